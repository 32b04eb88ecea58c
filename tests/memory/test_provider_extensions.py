"""Host features any memory provider can use: its own command group before it is selected,
``problems()`` in ``hermes memory status``, and ``on_session_title`` for ``/title``."""

from __future__ import annotations

from hermes_core.memory.manager import MemoryManager

PROVIDER = """
from hermes_core import MemoryProvider

class Vault(MemoryProvider):
    name = "vault"
    titles = []
    def is_available(self): return True
    def initialize(self, session_id, **kwargs): pass
    def get_tool_schemas(self): return []
    def problems(self): return ["3 notes could not be saved: vault offline -> start the vault"]
    def on_session_title(self, title): self.titles.append(title)

def setup(parser):
    parser.add_argument("--region", default="eu")

def handle(args):
    print(f"vault set up in {args.region}")

def register(ctx):
    ctx.register_memory_provider(Vault())
    ctx.register_cli_command("vault", "set up the vault", setup, handle)
"""


def test_a_provider_command_group_works_before_the_provider_is_selected(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    result = run_hermes("vault", "--region", "us")
    assert result.exit_code == 0 and result.stdout == "vault set up in us\n"
    assert run_hermes("memory", "status", "--json").json()["provider"] == "builtin"  # loading it selected nothing
    (hermes_home / "config.yaml").write_text("plugins:\n  disabled: [vault]\n")
    assert run_hermes("vault").exit_code == 2  # a disabled plugin offers nothing


def test_memory_status_lists_the_providers_problems(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    (hermes_home / "config.yaml").write_text("memory:\n  provider: vault\n")
    assert run_hermes("memory", "status", "--json").json()["problems"] == ["3 notes could not be saved: vault offline -> start the vault"]
    assert "problem:    3 notes could not be saved" in run_hermes("memory", "status").stdout


def test_session_titles_reach_providers_that_listen(make_plugin, plugin_manager):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    plugins = plugin_manager(config={"memory": {"provider": "vault"}})
    memory = MemoryManager.from_plugins(plugins)
    memory.initialize_all("s1")
    memory.on_session_title("Release plan")
    memory.on_session_title("")
    assert plugins.memory_providers["vault"].titles == ["Release plan", ""]
