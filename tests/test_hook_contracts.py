"""One test per hook: a plugin implementing it receives the documented kwargs, and its return is honoured.

The meta-tests at the bottom keep hookspecs, docs/hooks.md and these tests in step.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from hermes_core import hookspecs

DOCS = Path(__file__).resolve().parent.parent / "docs" / "hooks.md"

# The plugin implements every hook with the spec's exact signature and records what it got.
CONTRACT_PLUGIN = '''
from hermes_core import hookimpl
CALLS = []
RETURNS = {}
'''
for _name in hookspecs.HOOK_NAMES:
    _params = ", ".join(inspect.signature(getattr(hookspecs, _name)).parameters)
    CONTRACT_PLUGIN += f"""
@hookimpl
def {_name}({_params}):
    CALLS.append(({_name!r}, dict(locals())))
    return RETURNS.get({_name!r})
"""


@pytest.fixture
def contract(make_plugin, plugin_manager):
    make_plugin("contract", CONTRACT_PLUGIN)
    manager = plugin_manager(enabled=["contract"])
    return manager, manager.get("contract").module


def _kwargs(hook: str) -> dict:
    """A full set of kwargs for ``hook``, each value tagged with its name."""
    values = {}
    for name, parameter in inspect.signature(getattr(hookspecs, hook)).parameters.items():
        annotation = str(parameter.annotation)
        if "dict" in annotation:
            values[name] = {"for": name}
        elif "list" in annotation:
            values[name] = [{"for": name}]
        elif "bool" in annotation:
            values[name] = True
        elif "int" in annotation or "float" in annotation:
            values[name] = 7
        else:
            values[name] = f"<{name}>"
    return values


def _called_with(module, hook: str) -> dict:
    calls = [kwargs for name, kwargs in module.CALLS if name == hook]
    assert len(calls) == 1, module.CALLS
    return calls[0]


def test_hook_pre_tool_call(contract):
    manager, module = contract
    kwargs = _kwargs("pre_tool_call")
    assert manager.hooks.pre_tool_call(**kwargs) is None
    assert _called_with(module, "pre_tool_call") == kwargs
    module.RETURNS["pre_tool_call"] = {"action": "block", "message": "denied"}
    assert manager.hooks.pre_tool_call(**kwargs).message == "denied"


def test_hook_post_tool_call(contract):
    manager, module = contract
    kwargs = _kwargs("post_tool_call")
    module.RETURNS["post_tool_call"] = "ignored"
    assert manager.hooks.notify("post_tool_call", **kwargs) is None
    assert _called_with(module, "post_tool_call") == kwargs


def test_hook_pre_llm_call(contract):
    manager, module = contract
    kwargs = _kwargs("pre_llm_call")
    module.RETURNS["pre_llm_call"] = {"context": "remember the milk"}
    assert manager.hooks.pre_llm_call(**kwargs) == "remember the milk"
    assert _called_with(module, "pre_llm_call") == kwargs


def test_hook_post_llm_call(contract):
    manager, module = contract
    kwargs = _kwargs("post_llm_call")
    manager.hooks.notify("post_llm_call", **kwargs)
    assert _called_with(module, "post_llm_call") == kwargs


def test_hook_pre_api_request(contract):
    manager, module = contract
    kwargs = _kwargs("pre_api_request")
    manager.hooks.notify("pre_api_request", **kwargs)
    assert _called_with(module, "pre_api_request") == kwargs


def test_hook_post_api_request(contract):
    manager, module = contract
    kwargs = _kwargs("post_api_request")
    manager.hooks.notify("post_api_request", **kwargs)
    assert _called_with(module, "post_api_request") == kwargs


def test_hook_transform_terminal_output(contract):
    manager, module = contract
    kwargs = _kwargs("transform_terminal_output")
    assert manager.hooks.transform("transform_terminal_output", **kwargs) is None
    module.RETURNS["transform_terminal_output"] = "redacted"
    assert manager.hooks.transform("transform_terminal_output", **kwargs) == "redacted"
    assert [c for c in module.CALLS if c[0] == "transform_terminal_output"][0][1] == kwargs


def test_hook_transform_tool_result(contract):
    manager, module = contract
    kwargs = _kwargs("transform_tool_result")
    module.RETURNS["transform_tool_result"] = '{"ok": true}'
    assert manager.hooks.transform("transform_tool_result", **kwargs) == '{"ok": true}'
    assert _called_with(module, "transform_tool_result") == kwargs


def test_hook_on_session_start(contract):
    manager, module = contract
    kwargs = _kwargs("on_session_start")
    manager.hooks.notify("on_session_start", **kwargs)
    assert _called_with(module, "on_session_start") == kwargs


def test_hook_on_session_end(contract):
    manager, module = contract
    kwargs = _kwargs("on_session_end")
    manager.hooks.notify("on_session_end", **kwargs)
    assert _called_with(module, "on_session_end") == kwargs


def test_hook_on_session_finalize(contract):
    manager, module = contract
    manager.hooks.notify("on_session_finalize", session_id=None, platform="cli")
    assert _called_with(module, "on_session_finalize") == {"session_id": None, "platform": "cli"}


def test_hook_on_session_reset(contract):
    manager, module = contract
    kwargs = _kwargs("on_session_reset")
    manager.hooks.notify("on_session_reset", **kwargs)
    assert _called_with(module, "on_session_reset") == kwargs


def test_hook_subagent_stop(contract):
    manager, module = contract
    kwargs = _kwargs("subagent_stop")
    module.RETURNS["subagent_stop"] = "noted"
    assert manager.hooks.invoke("subagent_stop", **kwargs) == ["noted"]
    assert _called_with(module, "subagent_stop") == kwargs


def test_hook_on_memory_write(contract):
    manager, module = contract
    kwargs = _kwargs("on_memory_write")
    manager.hooks.notify("on_memory_write", **kwargs)
    assert _called_with(module, "on_memory_write") == kwargs


# --- meta-tests -----------------------------------------------------------------


def test_there_are_exactly_the_fourteen_hooks_and_each_has_a_full_docstring():
    specs = [n for n, f in vars(hookspecs).items() if callable(f) and hasattr(f, "hermes_spec")]
    assert sorted(specs) == sorted(hookspecs.HOOK_NAMES) and len(specs) == 14
    for name in specs:
        doc = inspect.getdoc(getattr(hookspecs, name))
        assert doc and ":return:" in doc, name
        for parameter in inspect.signature(getattr(hookspecs, name)).parameters:
            assert f":param {parameter}:" in doc, (name, parameter)


def test_every_hook_is_documented_with_every_argument():
    text = DOCS.read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S))
    for name in hookspecs.HOOK_NAMES:
        assert name in sections, f"docs/hooks.md has no '## {name}' section"
        for parameter in inspect.signature(getattr(hookspecs, name)).parameters:
            assert f"`{parameter}`" in sections[name], f"docs/hooks.md '## {name}' does not mention `{parameter}`"


def test_every_hook_has_a_test():
    tests = {n for n in globals() if n.startswith("test_hook_")}
    missing = [n for n in hookspecs.HOOK_NAMES if f"test_hook_{n}" not in tests]
    assert not missing


def test_a_host_checking_a_callback_up_front_is_told_what_the_hook_never_passes_and_the_fix():
    from hermes_core.errors import RegistrationError
    from hermes_core.hooks import check_callback_signature

    def needs_a_user(tool_name, user, **kwargs):
        return None

    with pytest.raises(RegistrationError) as caught:
        check_callback_signature("post_tool_call", needs_a_user)
    message = str(caught.value)
    assert message.startswith("hook 'post_tool_call': the callback ") and "needs_a_user" in message and "requires 'user'" in message
    assert message.endswith(" -> give those parameters defaults or accept **kwargs")
    # what the hook passes is accepted, and so is a hook this host does not know (nothing to check it against)
    assert check_callback_signature("post_tool_call", lambda tool_name, result, **kwargs: None) is None
    assert check_callback_signature("some_future_hook", needs_a_user) is None
