"""Plugins written for Hermes Agent, in the styles of the published ones, loaded unmodified.

Fixtures: a plugin using every module of the Hermes Agent API surface, a duck-typed
provider without plugin.yaml, a distribution in both entry-point groups, packages whose
installer writes a re-export shim or a copy of themselves into $HERMES_HOME/plugins.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_core import compat
from hermes_core.live import live_manager
from hermes_core.memory.manager import MemoryManager
from hermes_core.memory.provider import MemoryProvider

FIXTURES = Path(__file__).parent / "fixtures" / "compat"


@pytest.fixture
def site_dir(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [m for m in sys.modules if m.startswith("fxc_")]:
        del sys.modules[name]


def install(site: Path, package: str, version: str, entry_points: str, files: dict[str, str]) -> Path:
    """Lay out a package and its dist-info as pip does."""
    root = site / package
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    dist = site / f"{package}-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: {version}\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    return root


def copy_fixture(name: str, hermes_home: Path) -> Path:
    target = hermes_home / "plugins" / name
    shutil.copytree(FIXTURES / name, target)
    return target


PROVIDER_MODULE = """
    from agent.memory_provider import MemoryProvider

    class {cls}(MemoryProvider):
        @property
        def name(self):
            return "{name}"
        def is_available(self):
            return True
        def initialize(self, session_id, **kwargs):
            pass
        def get_tool_schemas(self):
            return []
        def prefetch(self, query, *, session_id=""):
            return "{name} recalls"
"""


# -- the API surface ---------------------------------------------------------


def test_a_plugin_using_every_api_module_gets_real_answers(hermes_home, plugin_manager):
    copy_fixture("surface_probe", hermes_home)
    manager = plugin_manager(enabled=["surface_probe"], config={"memory": {"provider": ""}})
    record = manager.get("surface_probe")
    assert record.loaded, record.error
    report = record.module.REPORT
    assert report["override"] == str(hermes_home / "elsewhere") and report["home"] is True
    assert report["provider_setting"] == "" and report["readonly_has_plugins"]
    assert report["secret"] == "k-123" and "PROBE_SEARCH_KEY=k-123" in (hermes_home / ".env").read_text()
    assert "hunter2" not in report["redacted"] and "sk-aaaa" not in report["redacted"]
    assert report["usage"] == [60, 40, 7, 107]
    assert report["cost"] == "2.5"
    assert report["skill"] == ["deploy", "to prod"] and report["trivial"] == [True, False]
    assert report["profile"] == ["default", "default"] and report["interrupt"] == [False, True, False]
    assert report["json"] and report["schema"] and report["valid_hooks"] and report["callables"] and report["model_tools"]
    assert report["tool_error"] == {"error": "nope"} and report["classes"][1:] == [True, "PluginManifest", "PermissionError"]
    # tools registered straight into tools.registry.registry are the runtime's tools
    assert manager.tools.dispatch("probe_echo", {"text": "hi"}) == json.dumps({"echo": "hi", "toolsets": ["probe_echo", "probe_offline", "terminal"]})
    assert manager.tools.get_entry("probe_echo").plugin == "surface_probe"
    assert "probe-search" in manager.web_search_providers
    # the guard answers rm -rf / through the host's pre_tool_call dispatch
    decision = manager.hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}, task_id="t")
    assert decision is not None and "probe refused rm_recursive_force" in decision.message
    import model_tools

    assert "probe refused" in json.loads(model_tools.handle_function_call("terminal", {"command": "rm -rf /"}))["error"]
    assert json.loads(model_tools.handle_function_call("terminal", {"command": "ls"})) == {"ran": "ls"}


def test_plugins_list_load_shows_every_registration(hermes_home, run_hermes):
    copy_fixture("surface_probe", hermes_home)
    copy_fixture("duck_memory", hermes_home)
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [surface_probe]\nmemory:\n  provider: duck_memory\n")
    result = run_hermes("plugins", "list", "--load", "--json")
    assert result.exit_code == 0, result.stderr
    entries = {e["key"]: e for e in json.loads(result.stdout)}
    probe, duck = entries["surface_probe"], entries["duck_memory"]
    assert probe["loaded"] and probe["version"] == "1.2.0"
    assert probe["tools"] == ["probe_echo", "probe_offline", "terminal"] and probe["unavailable_tools"] == ["probe_offline"]
    assert probe["hooks"] == ["pre_llm_call", "pre_tool_call"] and probe["commands"] == ["probe"]
    assert probe["web_search_providers"] == ["probe-search"]
    assert duck["loaded"] and duck["kind"] == "exclusive" and duck["memory_providers"] == ["duck"] and duck["context_engines"] == ["duck-engine"]
    text = run_hermes("plugins", "list", "--load").stdout
    assert "probe_offline (unavailable: check failed)" in text and "slash commands /probe" in text and "memory providers duck" in text


def test_get_plugin_manager_inside_hermes_chat_is_the_running_manager(hermes_home, run_hermes):
    from hermes_core.testing_servers import OpenAIServer, text_reply

    copy_fixture("surface_probe", hermes_home)
    with OpenAIServer([text_reply("first"), text_reply("second")]) as server:
        (hermes_home / "config.yaml").write_text(
            f"model:\n  provider: openai\n  name: m\n  base_url: {server.base_url}\nplugins:\n  enabled: [surface_probe]\n"
        )
        result = run_hermes("chat", input="hello\nagain\n/exit\n")
        bodies = server.bodies
    assert result.exit_code == 0, result.stderr
    assert all("probe sees the live manager: True" in b["messages"][-1]["content"] for b in bodies)
    # one manager: the plugin's register() ran once in the whole chat
    assert (hermes_home / "probe-register.log").read_text() == "registered\n"


# -- compat on by default, off by config --------------------------------------


def test_aliases_are_on_by_default_and_real_packages_keep_priority(site_dir, make_plugin, plugin_manager):
    install(site_dir, "fxc_utils_owner", "1.0", "", {"__init__.py": ""})
    (site_dir / "utils").mkdir()
    (site_dir / "utils" / "__init__.py").write_text("REAL = True\n")
    make_plugin("uses", "import utils\nfrom agent.memory_provider import MemoryProvider\nSEEN = getattr(utils, 'REAL', False)\ndef register(ctx):\n    pass\n",
                manifest={"name": "uses", "kind": "standalone"})
    sys.modules.pop("utils", None)
    try:
        record = plugin_manager(enabled=["uses"]).get("uses")
        assert record.loaded, record.error
        assert record.module.SEEN is True  # the installed utils package, not the alias
        assert compat.enabled()
    finally:
        sys.modules.pop("utils", None)


def test_an_unserved_hermes_agent_module_is_named_in_the_error(make_plugin, plugin_manager):
    make_plugin("gw", "from gateway.run import GatewayRunner\ndef register(ctx):\n    pass\n")
    record = plugin_manager(enabled=["gw"], strict=False).get("gw")
    assert not record.loaded
    assert "'gateway.run', a Hermes Agent module this host does not provide" in record.error


def test_memory_status_loads_a_legacy_provider_with_default_config(hermes_home, make_plugin, run_hermes):
    make_plugin("legacy", textwrap.dedent(PROVIDER_MODULE.format(cls="Legacy", name="legacy")) + "\ndef register(ctx):\n    ctx.register_memory_provider(Legacy())\n",
                manifest={"name": "legacy"})
    (hermes_home / "config.yaml").write_text("memory:\n  provider: legacy\n")
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 0, result.stderr
    status = json.loads(result.stdout)
    assert status["provider"] == "legacy" and status["available"] is True, status


# -- Hermes Agent's memory-provider rules --------------------------------------


def test_a_yamlless_directory_declaring_a_provider_is_a_duck_typed_memory_provider(hermes_home, plugin_manager):
    copy_fixture("duck_memory", hermes_home)
    manager = plugin_manager(config={"memory": {"provider": "duck_memory"}, "context": {"engine": "duck-engine"}})
    record = manager.get("duck_memory")
    assert record.loaded and record.candidate.kind == "exclusive" and not record.candidate.problems, record.error
    provider = manager.active_memory_provider()
    assert isinstance(provider, MemoryProvider) and provider.name == "duck"
    memory = MemoryManager.from_plugins(manager)
    memory.initialize_all("s1", hermes_home=str(hermes_home), platform="cli")
    memory.sync_all("hi", "hello", session_id="s1")
    memory.flush(5)
    assert "duck remembers 1 turn(s)" in memory.prefetch_all("what did we discuss", session_id="s1")
    assert json.loads(memory.handle_tool_call("duck_recall", {})) == {"turns": 1}
    engine = manager.active_context_engine()
    engine.update_from_response({"prompt_tokens": 42})
    assert engine.last_prompt_tokens == 42 and engine.compress([1, 2, 3]) == [2, 3]


def test_a_yamlless_directory_without_a_provider_still_needs_a_manifest(make_plugin, plugin_manager):
    make_plugin("bare", "def register(ctx):\n    pass\n", manifest=False)
    record = plugin_manager(enabled=["bare"], strict=False).get("bare")
    assert not record.loaded and "no plugin.yaml" in record.error


SHIM = "from fxc_memex import register  # noqa\nfrom fxc_memex.provider import MemexProvider  # MemoryProvider\n"


def test_an_installer_shim_and_its_entry_point_are_one_plugin(site_dir, hermes_home, plugin_manager, caplog):
    install(
        site_dir, "fxc_memex", "0.4.1", "[hermes_agent.plugins]\nmemex = fxc_memex\n",
        {
            "__init__.py": "from fxc_memex.provider import MemexProvider\ndef register(ctx):\n    ctx.register_memory_provider(MemexProvider())\n",
            "provider.py": PROVIDER_MODULE.format(cls="MemexProvider", name="memex"),
        },
    )
    (hermes_home / "plugins" / "memex").mkdir(parents=True)
    (hermes_home / "plugins" / "memex" / "__init__.py").write_text(SHIM)
    manager = plugin_manager(config={"memory": {"provider": "memex"}})
    assert [r.key for r in manager.plugins if "memex" in r.key] == ["memex"]
    record = manager.get("memex")
    assert record.candidate.source == "entrypoint" and record.candidate.version == "0.4.1"
    assert record.candidate.also_at == [str(hermes_home / "plugins" / "memex")]
    assert not manager.clashes and not record.warnings and "overrides" not in caplog.text
    assert record.loaded and manager.active_memory_provider().name == "memex"


def test_an_installer_copy_and_a_module_function_entry_point_are_one_plugin(site_dir, hermes_home, plugin_manager):
    files = {
        "__init__.py": textwrap.dedent(PROVIDER_MODULE.format(cls="CopyProvider", name="copied")) + "\ndef register(ctx):\n    ctx.register_memory_provider(CopyProvider())\n",
    }
    package = install(site_dir, "fxc_copied", "2.3.0", "[hermes_agent.memory_providers]\ncopied = fxc_copied:register\n", files)
    shutil.copytree(package, hermes_home / "plugins" / "copied")
    manager = plugin_manager(config={"memory": {"provider": "copied"}})
    records = [r for r in manager.plugins if r.name == "copied"]
    assert len(records) == 1 and records[0].candidate.source == "entrypoint" and not manager.clashes
    assert records[0].loaded and manager.active_memory_provider().name == "copied"


def test_an_unrelated_directory_of_the_same_name_still_overrides_and_says_so(site_dir, make_plugin, plugin_manager):
    install(site_dir, "fxc_other", "1.0", "[hermes_agent.plugins]\nclash = fxc_other\n", {"__init__.py": "def register(ctx):\n    pass\n"})
    make_plugin("clash", "import json\ndef register(ctx):\n    pass\n")
    manager = plugin_manager(load=False)
    manager.discover()
    assert any("overrides the user plugin" in c for c in manager.clashes)


# -- entry points ---------------------------------------------------------------


DUAL = {
    "__init__.py": """
        import json
        from fxc_dual.provider import DualProvider

        def register(ctx):
            schema = {"name": "dual_ping", "description": "ping", "parameters": {"type": "object", "properties": {}}}
            ctx.register_tool("dual_ping", "dual", schema, lambda args, **kw: json.dumps({"pong": True}))

        def register_provider(ctx):
            ctx.register_memory_provider(DualProvider())
    """,
    "provider.py": PROVIDER_MODULE.format(cls="DualProvider", name="dual"),
}


@pytest.mark.parametrize(
    ("config", "tools", "providers"),
    [
        ({"plugins": {"enabled": ["dual"]}}, ["dual_ping"], []),
        ({"memory": {"provider": "dual"}}, [], ["dual"]),
        ({"plugins": {"enabled": ["dual"]}, "memory": {"provider": "dual"}}, ["dual_ping"], ["dual"]),
        ({}, None, None),
    ],
)
def test_a_distribution_in_both_groups_is_one_plugin_with_two_parts(site_dir, plugin_manager, config, tools, providers):
    install(site_dir, "fxc_dual", "1.5.0", "[hermes_agent.plugins]\ndual = fxc_dual\n[hermes_agent.memory_providers]\ndual = fxc_dual:register_provider\n", DUAL)
    manager = plugin_manager(config=config)
    (record,) = [r for r in manager.plugins if r.name == "dual"]
    assert not manager.clashes and record.candidate.provides_memory and record.candidate.kind == "standalone"
    if tools is None:
        assert not record.enabled and "plugins enable dual" in record.reason and "hermes memory setup dual" in record.reason
        return
    assert record.loaded, record.error
    description = manager.describe(record)
    assert description["tools"] == tools and description["memory_providers"] == providers


def test_general_entry_points_are_not_reclassified_by_their_code(site_dir, plugin_manager):
    install(
        site_dir, "fxc_general", "1.0", "[hermes_agent.plugins]\ngeneral = fxc_general\n",
        {
            "__init__.py": "# mentions MemoryProvider and register_memory_provider in passing\ndef register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'general')\n",
            "plugin.yaml": "name: general\nversion: 0.0.1\n",
        },
    )
    manager = plugin_manager(enabled=["general"])
    record = manager.get("general")
    assert record.candidate.kind == "standalone" and record.loaded
    assert record.candidate.version == "1.0"  # the installed distribution, not the stale plugin.yaml
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["general"]


def test_live_manager_is_the_one_that_loaded(make_plugin, plugin_manager):
    make_plugin("noop", "def register(ctx):\n    pass\n")
    manager = plugin_manager(enabled=["noop"])
    from hermes_cli.plugins import get_plugin_manager
    from tools.registry import registry

    assert live_manager() is manager and get_plugin_manager() is manager
    assert registry.target is manager.tools


def test_an_entry_point_naming_a_provider_class_registers_an_instance(site_dir, plugin_manager):
    install(
        site_dir, "fxc_classy", "0.9", "[hermes_agent.memory_providers]\nclassy = fxc_classy.provider:ClassyProvider\n",
        {"__init__.py": "", "provider.py": PROVIDER_MODULE.format(cls="ClassyProvider", name="classy")},
    )
    manager = plugin_manager(config={"memory": {"provider": "classy"}})
    assert manager.get("classy").loaded and manager.active_memory_provider().name == "classy"


def test_ctx_llm_completes_with_the_configured_model(hermes_home, make_plugin, plugin_manager):
    from hermes_core.testing_servers import OpenAIServer, text_reply

    make_plugin("asker", "CTX = []\ndef register(ctx):\n    CTX.append(ctx)\n")
    with OpenAIServer([text_reply("a short summary", usage={"prompt_tokens": 30, "completion_tokens": 4}), text_reply('{"ok": true}')]) as server:
        config = {"model": {"provider": "openai", "name": "aux-model", "base_url": server.base_url}, "auxiliary": {"plugins": {"model": "summarizer"}}}
        manager = plugin_manager(enabled=["asker"], config=config)
        ctx = manager.get("asker").module.CTX[0]
        result = ctx.llm.complete([{"role": "system", "content": "be brief"}, {"role": "user", "content": "summarize"}])
        structured = ctx.llm.complete_structured(instructions="check", input=[{"type": "text", "text": "x"}], json_mode=True)
        bodies = server.bodies
    assert result.text == "a short summary" and result.usage.input_tokens == 30 and result.usage.total_tokens == 34
    assert bodies[0]["model"] == "summarizer" and bodies[0]["messages"][0] == {"role": "system", "content": "be brief"}
    assert structured.parsed == {"ok": True} and structured.content_type == "json"
    from hermes_core.compat.agent_plugin_llm import PluginLlmError

    with pytest.raises(PluginLlmError, match="non-empty list"):
        ctx.llm.complete([])
    assert ctx.profile_name == "default"


def test_memory_setup_configures_the_provider_part_of_a_two_part_plugin(site_dir, hermes_home, run_hermes):
    install(site_dir, "fxc_dual", "1.5.0", "[hermes_agent.plugins]\ndual = fxc_dual\n[hermes_agent.memory_providers]\ndual = fxc_dual:register_provider\n", DUAL)
    result = run_hermes("memory", "setup", "dual", "--yes")
    assert result.exit_code == 0, result.stderr
    assert "memory.provider = dual" in result.stdout
    assert "provider: dual" in (hermes_home / "config.yaml").read_text()


def test_calls_published_plugins_make_on_newer_hosts_work(make_plugin, plugin_manager, hermes_home):
    code = """
        SEEN = {}
        def on_llm(session_id, user_message, sender_id, task_id):
            SEEN['sender'] = sender_id
            return None
        def register(ctx):
            SEEN['home'] = ctx._manager.home_path
            ctx.register_tool(name="pay_quote", description="quote a price", parameters={"type": "object", "properties": {}}, handler=lambda args, **kw: "{}")
            ctx.register_hook("pre_llm_call", on_llm)
            ctx.register(name="via_registry_api", toolset="web", schema={"name": "via_registry_api", "parameters": {"type": "object", "properties": {}}}, handler=lambda args, **kw: "{}")
    """
    make_plugin("newer", code)
    manager = plugin_manager(enabled=["newer"])
    record = manager.get("newer")
    assert record.loaded, record.error
    assert record.module.SEEN["home"] == hermes_home
    assert manager.tools.get_entry("pay_quote").toolset == "newer" and manager.tools.get_entry("via_registry_api").toolset == "web"
    manager.hooks.pre_llm_call(session_id="s", user_message="hi", conversation_history=[], is_first_turn=True, model="m", platform="cli", turn_id="t", task_id="k", sender_id="u1")
    assert record.module.SEEN["sender"] == "u1"


def test_a_platform_plugin_loads_and_is_listed(make_plugin, plugin_manager):
    code = """
        from gateway.config import Platform, PlatformConfig
        from gateway.platforms.base import BasePlatformAdapter, MessageEvent, SendResult
        from gateway.session import SessionSource

        class PagerAdapter(BasePlatformAdapter):
            def __init__(self, config):
                super().__init__(config, Platform("pager"))
            async def connect(self):
                return True
            async def disconnect(self):
                pass
            async def send(self, chat_id, content, reply_to=None, metadata=None):
                return SendResult(success=True, message_id="m1")

        def register(ctx):
            ctx.register_platform("pager", "Pager", lambda config: PagerAdapter(config), check_fn=lambda: True)
    """
    make_plugin("pager", code, manifest={"name": "pager", "kind": "standalone"})
    manager = plugin_manager(enabled=["pager"])
    record = manager.get("pager")
    assert record.loaded, record.error
    assert manager.describe(record)["other_providers"] == ["platform:pager"]
    import asyncio

    from gateway.config import Platform, PlatformConfig

    adapter = record.module.PagerAdapter(PlatformConfig(enabled=True))
    assert adapter.platform is Platform("pager") and asyncio.run(adapter.send("c", "hi")).message_id == "m1"


def test_plugins_info_shows_the_parts_and_the_installer_copy(site_dir, hermes_home, run_hermes):
    install(site_dir, "fxc_dual", "1.5.0", "[hermes_agent.plugins]\ndual = fxc_dual\n[hermes_agent.memory_providers]\ndual = fxc_dual:register_provider\n", DUAL)
    (hermes_home / "plugins" / "dual").mkdir(parents=True)
    (hermes_home / "plugins" / "dual" / "__init__.py").write_text("from fxc_dual import register_provider as register  # MemoryProvider\n")
    result = run_hermes("plugins", "info", "dual")
    assert result.exit_code == 0, result.stderr
    assert "parts:          general (plugins.enabled), memory provider (memory.provider)" in result.stdout
    assert f"also at:        {hermes_home / 'plugins' / 'dual'}" in result.stdout
    assert "distribution:   fxc-dual" in result.stdout and "version:        1.5.0" in result.stdout


def test_a_plugin_cli_command_runs_with_the_aliases_and_the_live_manager(make_plugin, run_hermes, hermes_home):
    code = """
        from hermes_cli.config import cfg_get, load_config
        from hermes_cli.plugins import get_plugin_manager

        def setup(parser):
            parser.add_argument("--key", default="memory.provider")

        def run(args):
            manager = get_plugin_manager()
            print(f"{args.key}={cfg_get(load_config(), args.key, default='?')!r} live={manager.get('cli_probe').loaded}")
            return 0

        def register(ctx):
            ctx.register_cli_command("cli-probe", "print a setting", setup, run)
    """
    make_plugin("cli_probe", code)
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [cli_probe]\nmemory:\n  provider: ''\n")
    result = run_hermes("cli-probe")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "memory.provider='' live=True\n"
