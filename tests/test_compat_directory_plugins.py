"""Directory plugins in the shapes published Hermes Agent plugins take, as found in their repositories.

Each test is a minimal reproduction written for this suite: a shim ``__init__.py`` importing
the plugin's package relatively and then absolutely, a platform adapter queueing messages
through ``gateway.platforms.base``, memory providers whose plugin.yaml lists the provider
methods under ``hooks`` and leaves ``kind`` out.
"""

from __future__ import annotations

import pytest

from hermes_core.validate import validate_path

# The shim published plugins put at the root of their directory, the code living in a package beside it.
SHIM = """
    try:
        from .impl.plugin import register
    except ImportError:
        from impl.plugin import register
"""


def test_a_failing_relative_import_is_named_before_the_fallback_that_hides_it(make_plugin, plugin_manager):
    make_plugin("shimmed", SHIM, files={"impl/__init__.py": "", "impl/plugin.py": "import fxc_absent_dependency\ndef register(ctx):\n    pass\n"})
    record = plugin_manager(enabled=["shimmed"], strict=False).get("shimmed")
    assert not record.loaded
    error = record.error
    assert error.startswith("import failed: ModuleNotFoundError: No module named 'fxc_absent_dependency' (at ")
    assert "impl/plugin.py:1)" in error.split(";")[0]
    assert "; the fallback import then failed too (ModuleNotFoundError: No module named 'impl' (at " in error


def test_a_name_missing_from_a_served_module_is_named_with_the_hermes_agent_module(make_plugin, plugin_manager):
    code = "from tools.registry import registry, fxc_not_there\ndef register(ctx):\n    pass\n"
    make_plugin("lacking", code)
    error = plugin_manager(enabled=["lacking"], strict=False).get("lacking").error
    assert "cannot import name 'fxc_not_there'" in error
    assert "the plugin imports 'fxc_not_there' from 'tools.registry', a Hermes Agent module this host serves without it" in error


def test_an_unrelated_fallback_keeps_its_own_error(make_plugin, plugin_manager):
    # the relative import works; a later import fails on its own: nothing earlier to name
    make_plugin("direct", "from .impl import X\nimport fxc_other_absent\n", files={"impl.py": "X = 1\n"})
    error = plugin_manager(enabled=["direct"], strict=False).get("direct").error
    assert error.startswith("import failed: ModuleNotFoundError: No module named 'fxc_other_absent'") and "fallback import" not in error


PLATFORM = """
    from gateway.config import Platform
    from gateway.platforms.base import BasePlatformAdapter, MessageEvent, MessageType, merge_pending_message_event

    class Adapter(BasePlatformAdapter):
        pending = {}

        async def connect(self):
            return True

        async def disconnect(self):
            pass

        async def send(self, chat_id, content, reply_to=None, metadata=None):
            pass

        def queue(self, key, event):
            merge_pending_message_event(self.pending, key, event, merge_text=True)
"""


def test_a_platform_plugin_queues_messages_with_merge_pending_message_event(make_plugin, plugin_manager):
    make_plugin("relay", SHIM, manifest={"name": "relay", "kind": "platform"}, files={
        "impl/__init__.py": "", "impl/adapter.py": PLATFORM,
        "impl/plugin.py": "from .adapter import Adapter\ndef register(ctx):\n    pass\n",
    })
    record = plugin_manager(enabled=["relay"]).get("relay")
    assert record.loaded
    from gateway.platforms.base import MessageEvent, MessageType, merge_pending_message_event

    pending: dict = {}
    merge_pending_message_event(pending, "s", MessageEvent("first", media_urls=["a.png"], media_types=["image/png"], message_type=MessageType.PHOTO))
    merge_pending_message_event(pending, "s", MessageEvent("second", media_urls=["b.png"], media_types=["image/png"], message_type=MessageType.PHOTO))
    assert (pending["s"].text, pending["s"].media_urls, pending["s"].media_types) == ("first\nsecond", ["a.png", "b.png"], ["image/png"] * 2)
    merge_pending_message_event(pending, "s", MessageEvent("caption only"))  # media waiting: the text joins it
    assert pending["s"].message_type is MessageType.PHOTO and pending["s"].text.endswith("\ncaption only")

    merge_pending_message_event(pending, "t", MessageEvent("a"))
    merge_pending_message_event(pending, "t", MessageEvent("b"))  # text replaces text unless merge_text
    assert pending["t"].text == "b"
    merge_pending_message_event(pending, "t", MessageEvent("c"), merge_text=True)
    assert pending["t"].text == "b\nc"
    merge_pending_message_event(pending, "t", MessageEvent("/stop", message_type=MessageType.COMMAND), merge_text=True)
    assert pending["t"].text == "/stop" and pending["t"].message_type is MessageType.COMMAND




def provider_source(class_name: str, name: str, *extra_lines: str) -> str:
    """A memory provider module as published plugins write one (the contract's required members)."""
    body = "\n".join(f"        {line}" for line in extra_lines)
    return f"""
    from agent.memory_provider import MemoryProvider

    class {class_name}(MemoryProvider):
        name = "{name}"
        def is_available(self):
            return True
        def initialize(self, session_id, **kwargs):
            pass
        def get_tool_schemas(self):
            return []
{body}
"""


# A memory provider as published: no kind, provider methods listed under hooks, no register().
PROVIDER_ONLY = provider_source("LedgerProvider", "ledger")
PROVIDER_MANIFEST = "name: ledger\nversion: 0.2.0\nhooks:\n  - sync_turn\n  - prefetch\n  - on_delegation\n  - on_turn_start\n  - on_memory_write\n"


def test_a_provider_only_plugin_validates_and_lists_without_warnings(make_plugin, plugin_manager):
    directory = make_plugin("ledger", PROVIDER_ONLY, manifest=PROVIDER_MANIFEST)
    (report,) = validate_path(directory)
    assert (report.kind, report.problems, report.warnings) == ("exclusive", [], [])
    manager = plugin_manager(config={"memory": {"provider": "ledger"}})
    record = manager.get("ledger")
    assert record.loaded and record.warnings == []
    assert manager.memory_providers["ledger"].name == "ledger"


def test_provider_method_names_still_warn_in_a_general_plugin(make_plugin):
    directory = make_plugin("general", "def register(ctx):\n    pass\n", manifest="name: general\nkind: standalone\nhooks: [sync_turn]\n")
    (report,) = validate_path(directory)
    assert report.warnings == ["plugin 'general': plugin.yaml declares hook 'sync_turn', which this version of hermes never calls -> see docs/hooks.md for the hook names"]


def test_a_guessed_kind_is_still_reported_when_the_plugin_registers_more_than_a_provider(make_plugin):
    code = PROVIDER_ONLY + "\ndef register(ctx):\n    ctx.register_memory_provider(LedgerProvider())\n    ctx.register_tool(name='ledger_note', toolset='ledger', schema={}, handler=None)\n"
    (report,) = validate_path(make_plugin("ledger", code, manifest="name: ledger\n"))
    assert [w for w in report.warnings if "treated as kind 'exclusive'" in w]


@pytest.mark.parametrize(
    "code",
    [SHIM, "from ledger_impl import (\n    LedgerProvider,\n    register,\n)\n", "from .impl import register  # re-export\n"],
)
def test_a_shim_re_exporting_register_is_not_warned_about(make_plugin, code):
    (report,) = validate_path(make_plugin("shim", code, manifest="name: shim\nkind: standalone\n"))
    assert report.warnings == []


def test_a_register_imported_under_another_name_still_warns(make_plugin):
    (report,) = validate_path(make_plugin("alias", "from .impl import register as setup\n", manifest="name: alias\nkind: standalone\n"))
    assert [w for w in report.warnings if "would do nothing" in w]


# A published provider's root __init__.py: it loads its inner package only when imported by
# Hermes Agent's memory loader, which names user memory providers _hermes_user_memory.<directory>.
NAMESPACED_PROVIDER = """
    '''Loads the MemoryProvider of inner/.'''
    import importlib.util, sys
    from pathlib import Path

    if __name__.startswith("_hermes_user_memory"):
        _spec = importlib.util.spec_from_file_location(__name__ + "._inner", Path(__file__).parent / "inner" / "__init__.py")
        _inner = importlib.util.module_from_spec(_spec)
        sys.modules[_spec.name] = _inner
        _spec.loader.exec_module(_inner)
        register = _inner.register
"""
INNER = (
    "    from .store import PREFIX\n"
    + provider_source("VaultProvider", "vault-mem", 'def prefetch(self, query, *, session_id=""):', "    return PREFIX + query")
    + "\n    def register(ctx):\n        ctx.register_memory_provider(VaultProvider())\n"
)


def test_a_user_memory_provider_imports_under_the_hermes_agent_module_name(make_plugin, plugin_manager):
    import sys

    directory = make_plugin(
        "vault-mem", NAMESPACED_PROVIDER, manifest="name: vault-mem\n",
        files={"inner/__init__.py": INNER, "inner/store.py": "PREFIX = 'vault: '\n"},
    )
    (report,) = validate_path(directory)
    assert report.kind == "exclusive" and not [w for w in report.warnings if "would do nothing" in w]
    manager = plugin_manager(config={"memory": {"provider": "vault-mem"}})
    record = manager.get("vault-mem")
    assert record.loaded, record.error
    assert record.module.__name__ == "_hermes_user_memory.vault-mem"
    assert manager.memory_providers["vault-mem"].prefetch("tea", session_id="s") == "vault: tea"
    manager.unload("vault-mem")
    assert "_hermes_user_memory.vault-mem" not in sys.modules


def test_general_plugins_keep_their_own_module_names(make_plugin, plugin_manager):
    make_plugin("plain-tool", "def register(ctx):\n    pass\n")
    record = plugin_manager(enabled=["plain-tool"]).get("plain-tool")
    assert record.module.__name__ == "hermes_plugins.plain_tool"


TTS = """
    from agent.tts_provider import DEFAULT_OUTPUT_FORMAT, TTSProvider, resolve_output_format

    class LocalVoice(TTSProvider):
        @property
        def name(self):
            return "local-voice"

        def list_voices(self):
            return [{"id": "aoi"}]

        def synthesize(self, text, output_path, *, voice=None, model=None, speed=None, format=DEFAULT_OUTPUT_FORMAT, **extra):
            return output_path

    def register(ctx):
        ctx.register_tts_provider(LocalVoice())
"""


def test_a_tts_provider_plugin_loads_and_is_listed(make_plugin, plugin_manager):
    make_plugin("local-voice", TTS)
    manager = plugin_manager(enabled=["local-voice"])
    record = manager.get("local-voice")
    assert record.loaded and manager.describe(record)["other_providers"] == ["tts:local-voice"]
    [(kind, provider)] = record.registrations.other_providers
    assert (kind, provider.display_name, provider.default_voice(), provider.voice_compatible) == ("tts", "Local-Voice", "aoi", False)
    from agent.tts_provider import TTSProvider, resolve_output_format

    assert (resolve_output_format(" WAV "), resolve_output_format("aiff"), resolve_output_format(None)) == ("wav", "mp3", "mp3")
    with pytest.raises(TypeError):  # synthesize is the contract
        type("Mute", (TTSProvider,), {"name": "mute"})()
    with pytest.raises(NotImplementedError, match="does not stream"):
        next(iter(provider.stream("hi")))


IMAGE_GEN = """
    import base64
    from agent.image_gen_provider import DEFAULT_ASPECT_RATIO, ImageGenProvider, error_response, resolve_aspect_ratio, save_b64_image, success_response

    class Sketch(ImageGenProvider):
        @property
        def name(self):
            return "sketch"

        def generate(self, prompt, aspect_ratio=DEFAULT_ASPECT_RATIO, **kwargs):
            if not prompt:
                return error_response(error="empty prompt", provider=self.name)
            path = save_b64_image(base64.b64encode(b"PNGDATA").decode(), prefix="sketch")
            return success_response(image=str(path), model="s1", prompt=prompt, aspect_ratio=resolve_aspect_ratio(aspect_ratio), provider=self.name, extra={"success": "kept", "seed": 7})

    def register(ctx):
        ctx.register_image_gen_provider(Sketch())
"""


def test_an_image_generation_backend_loads_is_listed_and_its_helpers_answer(make_plugin, plugin_manager):
    from pathlib import Path

    make_plugin("sketch", IMAGE_GEN, manifest="name: sketch\nkind: backend\n")
    manager = plugin_manager(enabled=["sketch"])
    record = manager.get("sketch")
    assert record.loaded and manager.describe(record)["other_providers"] == ["image_gen:sketch"]
    [(_, backend)] = record.registrations.other_providers
    answer = backend.generate("a cat", aspect_ratio="SQUARE ")
    image = Path(answer["image"])
    assert image.parent == manager.home / "cache" / "images" and image.read_bytes() == b"PNGDATA" and image.name.startswith("sketch_")
    assert (answer["success"], answer["aspect_ratio"], answer["seed"], answer["provider"]) == (True, "square", 7, "sketch")
    failed = backend.generate("")
    assert (failed["success"], failed["image"], failed["error"], failed["error_type"]) == (False, None, "empty prompt", "provider_error")
    assert backend.default_model() is None and backend.get_setup_schema()["name"] == "Sketch"


def test_a_model_provider_plugin_is_not_said_to_do_nothing(make_plugin):
    code = "from providers import ProviderProfile, register_provider\nregister_provider(ProviderProfile(name='relay'))\n"
    (report,) = validate_path(make_plugin("relay-provider", code, manifest="name: relay-provider\nkind: model-provider\n"))
    assert report.kind == "model-provider" and report.warnings == []


def test_validating_a_dashboard_only_extension_says_what_it_is(tmp_path):
    from hermes_core.errors import HermesError

    extension = tmp_path / "achievements"
    (extension / "dashboard" / "dist").mkdir(parents=True)
    (extension / "dashboard" / "manifest.json").write_text('{"name": "achievements", "entry": "dist/index.js"}')
    with pytest.raises(HermesError, match=r"holds only a dashboard extension \(dashboard/manifest.json\).* -> hermes has no web dashboard"):
        validate_path(extension)
    (tmp_path / "empty").mkdir()
    with pytest.raises(HermesError, match="no plugin.yaml found"):
        validate_path(tmp_path / "empty")


def test_an_unknown_kind_in_a_hermes_agent_plugin_loads_as_standalone_with_a_warning(make_plugin, plugin_manager):
    directory = make_plugin("recall-pro", "def register(ctx):\n    ctx.register_hook('on_session_end', lambda **kw: None)\n", manifest="name: recall-pro\nkind: memory\n")
    (report,) = validate_path(directory)
    assert report.problems == [] and report.kind == "standalone"
    [warning] = [w for w in report.warnings if "'memory' is not one of" in w]
    assert "loaded as 'standalone', as Hermes Agent does -> set 'kind' to one of 'standalone'" in warning
    record = plugin_manager(enabled=["recall-pro"]).get("recall-pro")
    assert record.loaded and record.candidate.kind == "standalone" and any("loaded as 'standalone'" in w for w in record.warnings)


def test_an_unknown_kind_in_a_plugin_written_for_hermes_is_still_refused(make_plugin):
    code = "from hermes_core import hookimpl\n\n@hookimpl\ndef on_session_end(session_id, **kwargs):\n    pass\n"
    (report,) = validate_path(make_plugin("native", code, manifest="name: native\nkind: memory\n"))
    assert [p.field for p in report.problems] == ["kind"]
