"""The frozen snapshot: rendered once per session, byte-identical through writes, refreshed by a new session."""

from __future__ import annotations

from hermes_plugins_builtin.memory import BuiltinMemoryProvider
from hermes_plugins_builtin.memory.snapshot import RULE

RULE_LINE = "═" * 46


def _seed(home, memory=(), user=()):
    folder = home / "memories"
    folder.mkdir(exist_ok=True)
    (folder / "MEMORY.md").write_text("\n§\n".join(memory), encoding="utf-8")
    (folder / "USER.md").write_text("\n§\n".join(user), encoding="utf-8")


def test_block_layout_and_headers(hermes_home):
    _seed(hermes_home, memory=["Repo uses uv.", "Tests: make test"], user=["Name: Ada"])
    provider = BuiltinMemoryProvider(hermes_home)
    provider.initialize("s1", platform="cli")
    snapshot = provider.frozen_snapshot()
    assert RULE == RULE_LINE
    assert snapshot["memory"] == (
        f"{RULE_LINE}\nMEMORY (your personal notes) [1% — 32/2200 chars]\n{RULE_LINE}\nRepo uses uv.\n§\nTests: make test"
    )
    assert snapshot["user"] == f"{RULE_LINE}\nUSER PROFILE (who the user is) [1% — 9/1375 chars]\n{RULE_LINE}\nName: Ada"
    assert provider.system_prompt_block() == snapshot["memory"] + "\n\n" + snapshot["user"]


def test_empty_targets_produce_no_block(hermes_home):
    provider = BuiltinMemoryProvider(hermes_home)
    provider.initialize("s1")
    assert provider.frozen_snapshot() == {"memory": "", "user": ""}
    assert provider.system_prompt_block() == ""
    _seed(hermes_home, user=["Likes tea"])
    provider.on_session_switch("s2")
    assert provider.frozen_snapshot()["memory"] == ""
    assert provider.system_prompt_block() == provider.frozen_snapshot()["user"] != ""


def test_snapshot_is_byte_identical_across_a_session_with_writes(hermes_home, tool):
    _seed(hermes_home, memory=["Deploys on Fridays are banned.", "Uses ruff"], user=["Prefers British spelling."])
    provider = BuiltinMemoryProvider(hermes_home)
    provider.initialize("session-1", platform="cli")
    prompt_before = provider.system_prompt_block().encode("utf-8")
    snapshot_before = provider.frozen_snapshot()

    tool(provider, action="add", content="The CI cache key includes the lockfile hash.")
    tool(provider, action="replace", old_text="ruff", content="Uses ruff and mypy --strict")
    tool(provider, action="remove", old_text="Fridays")
    tool(provider, action="add", target="user", content="Works from Lisbon.")
    # A second agent (another provider on the same home) writes too.
    tool(BuiltinMemoryProvider(hermes_home), action="add", content="written by another agent")

    assert provider.system_prompt_block().encode("utf-8") == prompt_before
    assert provider.frozen_snapshot() == snapshot_before
    live = provider.live_state("memory")["entries"]
    assert live == ["Uses ruff and mypy --strict", "The CI cache key includes the lockfile hash.", "written by another agent"]
    # Initializing the same session again (a host calling it twice) does not re-read.
    provider.initialize("session-1", platform="cli")
    assert provider.system_prompt_block().encode("utf-8") == prompt_before


def test_the_tool_answer_shows_live_state_while_the_prompt_stays_frozen(hermes_home, tool):
    provider = BuiltinMemoryProvider(hermes_home)
    provider.initialize("s1")
    answer = tool(provider, action="add", content="new fact")
    assert answer["entries"] == ["new fact"]
    assert "next session" in answer["message"]
    assert provider.system_prompt_block() == ""


def test_a_new_session_sees_the_new_state(hermes_home, tool):
    provider = BuiltinMemoryProvider(hermes_home)
    provider.initialize("s1")
    tool(provider, action="add", content="learned in s1")
    assert "learned in s1" not in provider.system_prompt_block()
    provider.on_session_switch("s2", parent_session_id="s1")
    assert "learned in s1" in provider.system_prompt_block()
    fresh = BuiltinMemoryProvider(hermes_home)
    fresh.initialize("s3")
    assert "learned in s1" in fresh.system_prompt_block()


def test_reset_refreezes_and_a_rewind_of_the_same_session_does_not(hermes_home, tool):
    provider = BuiltinMemoryProvider(hermes_home)
    provider.initialize("s1")
    tool(provider, action="add", content="first")
    provider.on_session_switch("s1", rewound=True)
    assert provider.system_prompt_block() == ""
    provider.on_session_switch("s1", reset=True)
    assert "first" in provider.system_prompt_block()
    tool(provider, action="add", content="second")
    provider.on_session_switch("s1")
    assert "second" not in provider.system_prompt_block()


def test_initialize_with_another_session_id_refreezes(hermes_home, tool):
    provider = BuiltinMemoryProvider(hermes_home)
    provider.initialize("s1")
    tool(provider, action="add", content="fact")
    provider.initialize("s2")
    assert "fact" in provider.system_prompt_block()


def test_without_initialize_the_first_use_freezes(hermes_home, tool):
    _seed(hermes_home, memory=["before"])
    provider = BuiltinMemoryProvider(hermes_home)
    # A write before anything read the prompt: the snapshot still shows the state before it.
    tool(provider, action="add", content="after")
    block = provider.system_prompt_block()
    assert "before" in block and "after" not in block
    other = BuiltinMemoryProvider(hermes_home)
    assert "after" in other.system_prompt_block()
    tool(other, action="add", content="later")
    assert "later" not in other.system_prompt_block()
