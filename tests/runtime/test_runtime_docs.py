"""docs/runtime.md: its code blocks run as written, print what the page says, and fire the hooks it lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_core.hooks import HookDispatcher
from hermes_core.memory.manager import MemoryManager
from hermes_core.runtime.session import AgentSession
from hermes_core.testing_servers import OpenAIServer, text_reply, tool_call_reply
from hermes_plugins_builtin.state import SessionStore

PAGE = Path(__file__).resolve().parents[2] / "docs" / "runtime.md"
FIRST_TURN_HOOKS = (
    "on_session_start, pre_llm_call, pre_api_request, post_api_request, pre_tool_call, transform_tool_result, "
    "post_tool_call, pre_api_request, post_api_request, transform_llm_output, post_llm_call, on_session_end"
)


def _blocks(language: str) -> list[str]:
    """The page's fenced code blocks whose info string is ``language`` ("" for a plain fence)."""
    blocks, current, info = [], None, ""
    for line in PAGE.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("```"):
            if current is None:
                current, info = [], line[3:].strip()
            else:
                if info == language:
                    blocks.append("".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def _block_starting(first_line: str) -> str:
    (block,) = [block for block in _blocks("python") if block.startswith(first_line)]
    return block


@pytest.fixture
def hooks_fired(monkeypatch):
    """Every hook any PluginManager created from now on calls, in order."""
    fired: list[str] = []
    original = HookDispatcher.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.add_monitor(lambda hook, kwargs: fired.append(hook), lambda *args: None)

    monkeypatch.setattr(HookDispatcher, "__init__", init)
    return fired


def test_the_complete_example_runs_and_prints_what_the_page_shows(hermes_home, monkeypatch, capsys, hooks_fired):
    script = [
        tool_call_reply("word_count", {"text": "the quick brown fox"}, id="call_1"),
        text_reply("There are 4 words."),
        text_reply("box, socks, rocks"),
        text_reply("A haiku is a short poem of 5, 7 and 5 syllables."),
        text_reply("We were counting words."),
    ]
    with OpenAIServer(script) as server:
        monkeypatch.setenv("HERMES_MODEL", "demo-model")
        monkeypatch.setenv("HERMES_BASE_URL", server.base_url)
        exec(compile(_block_starting("# my_agent.py"), "my_agent.py", "exec"), {"__name__": "__main__"})
        assert server.replies_left == 0
        first_request = server.bodies[0]
    printed = capsys.readouterr().out
    (shown,) = [block for block in _blocks("") if block.startswith("There are 4 words.")]
    assert printed == shown
    # The hooks of the first turn, exactly as "One turn, in order" lists them.
    assert ", ".join(hooks_fired[:12]) == FIRST_TURN_HOOKS
    assert f"fires these hooks: `{FIRST_TURN_HOOKS.replace(', ', '`, `')}`." in " ".join(PAGE.read_text(encoding="utf-8").split())
    # The store kept the user's words; the tool the example registered was offered to the model.
    assert any(tool["function"]["name"] == "word_count" for tool in first_request["tools"])
    with SessionStore(hermes_home / "state.db") as store:
        sessions = store.list_sessions_rich(limit=10)
        assert {row["source"] for row in sessions} >= {"cli", "subagent"}


def test_a_custom_client_drives_a_turn(plugin_manager, hermes_home):
    namespace: dict = {}
    exec(compile(_block_starting("# canned_client.py"), "canned_client.py", "exec"), namespace)
    plugins = plugin_manager()
    memory = MemoryManager.from_plugins(plugins)
    with SessionStore(hermes_home / "state.db") as store:
        session = AgentSession(plugins=plugins, client=namespace["CannedClient"](["Hello.", "Again."]), store=store, memory=memory)
        streamed: list[str] = []
        assert session.run_turn("hi").text == "Hello."
        assert session.run_turn("once more", stream=True, on_text=streamed.append).text == "Again." and streamed == ["Again."]
        row = store.get_session(session.session_id)
        assert row["model"] == "canned-1" and row["api_call_count"] == 2 and row["output_tokens"] == 2
        session.finalize()
    memory.shutdown_all()
