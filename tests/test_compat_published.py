"""Host behaviours published Hermes Agent packages rely on, in the styles of those packages.

A memory package whose packaged plugin.yaml names a newer Hermes Agent release, a plugin whose
hook callbacks take an argument no hook passes, and a plugin written for hermes itself whose
requirement keeps its meaning.
"""

from __future__ import annotations

from test_compat_plugins import install, site_dir  # noqa: F401  (site_dir is a fixture)

from hermes_core.requires_hermes import HERMES_AGENT_API_LEVEL

# The shape of a published memory package: a provider with its own fallback base, registered by
# the entry point's function, and a plugin.yaml shipped as package data.
NEWER_RELEASE_PROVIDER = """
    try:
        from agent.memory_provider import MemoryProvider as _Base
    except Exception:
        class _Base:
            pass

    class RecallProvider(_Base):
        @property
        def name(self):
            return "recall"
        def is_available(self):
            return True
        def initialize(self, session_id, **kwargs):
            pass
        def get_tool_schemas(self):
            return []
        def prefetch(self, query, *, session_id=""):
            return "recalled: " + query

    def register(ctx):
        ctx.register_memory_provider(RecallProvider())
"""


def test_a_packaged_requirement_on_a_newer_hermes_agent_loads_with_a_warning(site_dir, plugin_manager):  # noqa: F811
    install(
        site_dir, "fxc_recall", "1.0.2", "[hermes_agent.memory_providers]\nrecall = fxc_recall:register\n",
        {"__init__.py": NEWER_RELEASE_PROVIDER, "plugin.yaml": 'name: recall\nversion: 1.0.0\nrequires_hermes: ">=99.1"\n'},
    )
    manager = plugin_manager(config={"memory": {"provider": "recall"}})
    record = manager.get("recall")
    assert record.loaded and record.error is None
    [warning] = [w for w in record.warnings if "requires_hermes" in w]
    assert f"needs Hermes Agent >=99.1; this host serves the plugin API of Hermes Agent {HERMES_AGENT_API_LEVEL}" in warning
    assert "loaded anyway" in warning
    assert manager.memory_providers["recall"].prefetch("tea", session_id="s") == "recalled: tea"


def test_a_package_written_for_hermes_keeps_hermes_own_version(site_dir, plugin_manager):  # noqa: F811
    root = install(
        site_dir, "fxc_native", "2.0", "[hermes_agent.plugins]\nnative = fxc_native\n",
        {
            "__init__.py": "import os, pathlib\npathlib.Path(os.environ['HERMES_HOME'], 'IMPORTED').touch()\ndef register(ctx):\n    pass\n",
            "plugin.yaml": f'name: native\nrequires_hermes: ">={HERMES_AGENT_API_LEVEL}"\n',
        },
    )
    metadata = root.parent / "fxc_native-2.0.dist-info" / "METADATA"
    metadata.write_text(metadata.read_text() + "Requires-Dist: hermes-host>=0.1\n")
    manager = plugin_manager(enabled=["native"], strict=False)
    record = manager.get("native")
    # hermes is 0.x: a plugin depending on hermes-host means hermes' version, and is refused before import
    assert not record.loaded and f"needs hermes >={HERMES_AGENT_API_LEVEL}, this is hermes" in record.error
    assert not (manager.home / "IMPORTED").exists()


def test_a_hermes_agent_requirement_the_api_level_meets_loads_quietly(site_dir, plugin_manager):  # noqa: F811
    install(
        site_dir, "fxc_guard", "0.3", "[hermes_agent.plugins]\nguard = fxc_guard\n",
        {
            "__init__.py": "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda tool_name, args, **kw: None)\n",
            "plugin.yaml": 'name: guard\nrequires_hermes: ">=0.15,<1"\n',
        },
    )
    record = plugin_manager(enabled=["guard"]).get("guard")
    assert record.loaded and not [w for w in record.warnings if "requires_hermes" in w]


# The shape of a published memory-and-payments package: async hook callbacks that take a ``ctx``
# no hook passes, tools registered with ``description``/``parameters`` keywords.
CTX_HOOKS = """
    import os, pathlib

    async def on_session_start(ctx):
        pathlib.Path(os.environ["HERMES_HOME"], "STARTED").touch()

    async def pre_llm_call(messages, ctx):
        return {"context": "never"}

    def observe(**kwargs):
        return "observed " + kwargs["session_id"]

    async def handle_tool(name, args, ctx):
        return "paid"

    def register(ctx):
        ctx.register_tool(name="wallet_balance", description="Balance", parameters={"type": "object", "properties": {}}, handler=handle_tool)
        ctx.register_hook("on_session_start", on_session_start)
        ctx.register_hook("pre_llm_call", pre_llm_call)
        ctx.register_hook("on_session_start", observe)
"""


def test_hook_callbacks_requiring_ctx_register_as_in_hermes_agent_and_are_reported(site_dir, plugin_manager):  # noqa: F811
    install(site_dir, "fxc_wallet", "1.1.1", "[hermes_agent.plugins]\nwallet = fxc_wallet:register\n", {"__init__.py": CTX_HOOKS})
    manager = plugin_manager(enabled=["wallet"])
    record = manager.get("wallet")
    assert record.loaded
    described = manager.describe(record)
    assert described["hooks"] == ["on_session_start", "pre_llm_call"]
    assert described["uncallable_hooks"] == ["on_session_start", "pre_llm_call"]
    assert described["tools"] == ["wallet_balance"]
    warnings = [w for w in record.warnings if "never passes" in w]
    assert len(warnings) == 2 and all("'ctx', which the hook never passes" in w and "never called" in w for w in warnings)
    assert manager.hooks.invoke("on_session_start", session_id="s1", model="m", platform="cli") == ["observed s1"]
    assert not (manager.home / "STARTED").exists()


def test_a_register_failing_for_a_declared_unset_variable_names_it(make_plugin, plugin_manager, monkeypatch):
    monkeypatch.delenv("FXC_SERVER_URL", raising=False)
    code = (
        "import os\n"
        "def register(ctx):\n"
        "    if not os.environ.get('FXC_SERVER_URL'):\n"
        "        raise ValueError('FXC_SERVER_URL environment variable is required')\n"
    )
    make_plugin("served", code, manifest={"name": "served", "requires_env": ["FXC_SERVER_URL", "PATH"]})
    record = plugin_manager(enabled=["served"], strict=False).get("served")
    assert not record.loaded and record.registrations is None
    assert "register(ctx) raised ValueError: FXC_SERVER_URL environment variable is required" in record.error
    assert "-> the plugin requires FXC_SERVER_URL (its requires_env), which is not set" in record.error
    assert "PATH" not in record.error.split("->")[1]


# The shape of a published session titler: a hook asking the auxiliary model through
# agent.auxiliary_client and reading the answer the OpenAI way.
TITLER = """
    TITLES = []

    def on_session_end(session_id, **kwargs):
        from agent.auxiliary_client import call_llm, extract_content_or_reasoning

        response = call_llm(
            task="title_generation",
            messages=[{"role": "system", "content": "Give a title."}, {"role": "user", "content": "we talked about tea"}],
            max_tokens=50, temperature=0.3, timeout=30.0, main_runtime=None,
        )
        TITLES.append((response.choices[0].message.content, extract_content_or_reasoning(response), response.usage.total_tokens))

    def register(ctx):
        ctx.register_hook("on_session_end", on_session_end)
"""


def test_call_llm_answers_from_the_auxiliary_model_of_the_task(make_plugin, plugin_manager):
    import textwrap

    from hermes_core.testing_servers import OpenAIServer, text_reply

    make_plugin("titler", textwrap.dedent(TITLER))
    with OpenAIServer([text_reply("Tea talk", usage={"prompt_tokens": 12, "completion_tokens": 2})]) as server:
        config = {"model": {"provider": "openai", "name": "main-model", "base_url": server.base_url}, "auxiliary": {"title_generation": {"model": "titles"}}}
        manager = plugin_manager(enabled=["titler"], config=config)
        manager.hooks.invoke("on_session_end", session_id="s1", completed=True, interrupted=False, model="m", platform="cli")
        bodies = server.bodies
    assert manager.get("titler").module.TITLES == [("Tea talk", "Tea talk", 14)]
    assert bodies[0]["model"] == "titles" and bodies[0]["max_tokens"] == 50


def _wheel(path, package: str, requires_dist: str, requires_hermes: str, init: str):
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{package}/__init__.py", init)
        archive.writestr(f"{package}/plugin.yaml", f'name: {package}\nrequires_hermes: "{requires_hermes}"\n')
        info = f"{package}-1.0.dist-info"
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n{requires_dist}")
        archive.writestr(f"{info}/entry_points.txt", f"[hermes_agent.plugins]\n{package} = {package}\n")
    return path


def test_validating_wheels_reads_requires_hermes_as_installing_would(tmp_path):
    from hermes_core.validate import validate_path

    agent_wheel = _wheel(tmp_path / "fxc_agent-1.0-py3-none-any.whl", "fxc_agent", "", ">=99", "def register(ctx):\n    pass\n")
    [agent] = validate_path(agent_wheel)
    assert not agent.problems
    assert any("needs Hermes Agent >=99" in w and "loaded anyway" in w for w in agent.warnings)

    native_wheel = _wheel(tmp_path / "fxc_own-1.0-py3-none-any.whl", "fxc_own", "Requires-Dist: hermes-host>=0.1\n", ">=99", "def register(ctx):\n    pass\n")
    [native] = validate_path(native_wheel)
    assert [p.field for p in native.problems] == ["requires_hermes"]
    assert "needs hermes >=99, this is hermes" in native.problems[0].cause


def test_plugins_list_marks_a_hook_that_is_never_called(make_plugin, run_hermes):
    make_plugin("wallet", "async def on_session_start(ctx):\n    pass\ndef register(ctx):\n    ctx.register_hook('on_session_start', on_session_start)\n")
    run_hermes("plugins", "enable", "wallet")
    result = run_hermes("plugins", "list", "--load")
    assert result.exit_code == 0, result.stderr
    assert "on_session_start (never called: see warnings)" in result.stdout


def test_kanban_observer_hooks_of_newer_releases_register_without_a_warning(make_plugin, plugin_manager, caplog):
    import logging

    code = "def register(ctx):\n    for hook in ('on_kanban_task_updated', 'on_kanban_dispatch_tick'):\n        ctx.register_hook(hook, lambda **kw: kw['board'])\n"
    make_plugin("board-watch", code)
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["board-watch"])
    assert "unknown hook" not in caplog.text
    assert manager.hooks.invoke("on_kanban_dispatch_tick", board="main", profile_name="default", dry_run=False, outcome="idle") == ["main"]
