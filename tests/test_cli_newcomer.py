"""What a new user trips on first: the `hermes` command run for real, in a subprocess, on a throwaway home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_plugins_builtin.state import SessionStore


def hermes(home: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # Provider settings other tests' plugins exported into this process (.env loading) must not
    # configure the providers these commands expect to find unconfigured.
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(("HERMES_", "HONCHO_", "MEM0_"))}
    environment.update(HERMES_HOME=str(home), **(env or {}))
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True,
                          env=environment, timeout=120, check=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def test_a_huge_limit_lists_every_session_instead_of_failing(home):
    with SessionStore(home / "state.db") as store:
        for title in ("first", "second"):
            session = store.create_session(source="cli", title=title)
            store.append_messages(session, [{"role": "user", "content": f"{title} question about tea"}])
    huge = "99999999999999999999"  # more than SQLite's 64-bit LIMIT
    listed = hermes(home, "sessions", "list", "--limit", huge, "--json")
    assert listed.returncode == 0, listed.stderr
    assert sorted(row["title"] for row in json.loads(listed.stdout)) == ["first", "second"]
    found = hermes(home, "sessions", "search", "tea", "--limit", huge, "--json")
    assert found.returncode == 0, found.stderr
    assert len(json.loads(found.stdout)) == 2


@pytest.mark.parametrize("query", ["", "   \n"])
def test_an_empty_chat_question_is_refused_before_the_model_is_called(home, query):
    from hermes_core.testing_servers import OpenAIServer, text_reply

    with OpenAIServer([text_reply("an answer to nothing")]) as server:
        result = hermes(home, "chat", "-q", query, env={"HERMES_BASE_URL": server.base_url, "HERMES_MODEL": "local-model"})
        assert server.requests == []
    assert result.returncode == 1
    assert "-q is empty" in result.stderr and "give the question" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    with SessionStore(home / "state.db") as store:
        assert store.list_sessions_rich(limit=10) == []


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("backfill", [[], ["--backfill"]])
def test_switching_to_a_provider_whose_server_is_down_changes_nothing_and_names_the_cause(home, backfill):
    set_up = hermes(home, "honcho", "setup", "--no-input", "--base-url", f"http://127.0.0.1:{_closed_port()}", "--peer-name", "eri")
    assert set_up.returncode == 0, set_up.stderr
    assert hermes(home, "config", "unset", "memory.provider").returncode == 0
    assert hermes(home, "memory", "add", "User prefers dark mode").returncode == 0
    config_before = (home / "config.yaml").read_bytes()

    switched = hermes(home, "memory", "switch", "honcho", *backfill, "--yes")
    assert switched.returncode == 1
    assert "memory provider 'honcho' does not answer, so nothing was changed" in switched.stderr
    assert "Honcho unreachable" in switched.stderr and "->" in switched.stderr
    assert "flush_writes" not in switched.stderr and "Traceback" not in switched.stderr
    assert (home / "config.yaml").read_bytes() == config_before


def test_a_misspelt_config_key_is_stored_with_a_warning_naming_the_setting_meant(home):
    typo = hermes(home, "config", "set", "memory.provder", "honcho")
    assert typo.returncode == 0  # kept: plugins may read keys hermes does not know
    assert "did you mean 'memory.provider'?" in typo.stderr and "hermes config unset memory.provder" in typo.stderr
    section = hermes(home, "config", "set", "compresion.threshold", "0.5")
    assert "did you mean 'compression.threshold'?" in section.stderr
    for free_form in ("plugins.entries.observability/hook_log.settings.max_field_chars", "memory.mem0.llm.model", "display.skin"):
        quiet = hermes(home, "config", "set", free_form, "7")
        assert quiet.returncode == 0 and quiet.stderr == "", (free_form, quiet.stderr)
    assert hermes(home, "config", "set", "memory.provider", "mem0").stderr == ""

    missing = hermes(home, "config", "get", "model.nmae")
    assert missing.returncode == 1 and "did you mean 'model.name'?" in missing.stderr
    absent = hermes(home, "config", "unset", "memory.providr")
    assert absent.returncode == 1 and "did you mean 'memory.provider'?" in absent.stderr
    assert "nothing to remove -> 'hermes config show' lists what is set" in absent.stderr


def test_a_misspelt_manifest_key_is_named_with_the_key_meant(home):
    plugin = home / "plugins" / "guard"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: guard\nversion: 0.1.0\nprovides_hook: [pre_tool_call]\nx_internal_build: 7\n")
    (plugin / "__init__.py").write_text("def register(ctx):\n    pass\n")
    listed = hermes(home, "plugins", "list")
    assert listed.returncode == 0
    warning = "unknown key(s) 'provides_hook', 'x_internal_build' in plugin.yaml are ignored -> rename 'provides_hook' to 'provides_hooks'\n"
    assert warning in listed.stderr  # and no rename offered for a key that resembles none
    checked = hermes(home, "plugins", "validate", str(plugin), "--json")
    assert any("rename 'provides_hook' to 'provides_hooks'" in warning for warning in json.loads(checked.stdout)[0]["warnings"])


def test_plugins_info_keeps_every_label_apart_from_its_value(home):
    plugin = home / "plugins" / "pinned"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: pinned\nversion: 0.1.0\nrequires_hermes: '>=0.1'\n")
    (plugin / "__init__.py").write_text("def register(ctx):\n    pass\n")
    shown = hermes(home, "plugins", "info", "pinned")
    assert shown.returncode == 0, shown.stderr
    assert "requires_hermes: >=0.1\n" in shown.stdout
    assert "name:           pinned\n" in shown.stdout  # the shorter labels keep their column


def test_a_memory_write_honcho_cannot_mirror_names_the_file_it_went_to(home):
    set_up = hermes(home, "honcho", "setup", "--no-input", "--base-url", f"http://127.0.0.1:{_closed_port()}", "--peer-name", "eri")
    assert set_up.returncode == 0, set_up.stderr
    added = hermes(home, "memory", "add", "--target", "user", "Name is Eri")
    assert added.returncode == 0, added.stderr  # the built-in memory took it; only the mirror failed
    assert "honcho: the new USER.md entry was not mirrored as a conclusion: Honcho unreachable" in added.stderr
    assert "Name is Eri" in (home / "memories" / "USER.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["memory", "session-search", "hermes-state"])
def test_plugins_new_refuses_the_name_of_a_builtin_plugin(home, tmp_path, name):
    made = hermes(home, "plugins", "new", name, "--no-input", "-o", str(tmp_path / "projects"))
    assert made.returncode == 1
    assert "is the name of a builtin plugin, which always keeps it, so a plugin of that name would never load" in made.stderr
    assert "_plus'" in made.stderr
    assert not (tmp_path / "projects").exists() or not any((tmp_path / "projects").iterdir())


def test_plugins_new_refuses_builtin_the_name_of_built_in_memory(home, tmp_path):
    made = hermes(home, "plugins", "new", "builtin", "--kind", "memory-provider", "--no-input", "-o", str(tmp_path / "projects"))
    assert made.returncode == 1
    assert "is the name hermes gives its built-in memory" in made.stderr and "'hermes plugins new builtin_memory'" in made.stderr
    assert not (tmp_path / "projects").exists() or not any((tmp_path / "projects").iterdir())


def test_sessions_import_and_prune_answer_in_json(home, tmp_path):
    chats = tmp_path / "chats.jsonl"
    chats.write_text('{"messages": [{"role": "user", "content": "héllo 日本"}, {"role": "assistant", "content": "hi"}]}\n'
                     '{"messages": [{"role": "user", "content": "second"}]}\n', encoding="utf-8")
    imported = hermes(home, "sessions", "import", str(chats), "--title", "Old chats", "--json")
    assert imported.returncode == 0, imported.stderr
    answer = json.loads(imported.stdout)
    assert [(s["messages"], s["title"]) for s in answer["sessions"]] == [(2, "Old chats"), (1, "Old chats #2")]
    listed = json.loads(hermes(home, "sessions", "list", "--json").stdout)
    assert {row["id"] for row in listed} == {s["id"] for s in answer["sessions"]}

    kept = hermes(home, "sessions", "prune", "--older-than", "30d", "--yes", "--json")
    assert kept.returncode == 0 and json.loads(kept.stdout) == {"older_than": "30d", "deleted": 0, "confirmed": True}


@pytest.mark.parametrize("content, cause", [
    ("", "no messages found"),
    ("[1, 2]\n", "a chat message must be a JSON object with 'role' and 'content', not a list"),
    ('{"messages": 3}\n', "'messages' must be a list of chat messages, not a number"),
])
def test_a_malformed_import_file_names_the_cause_and_the_fix(home, tmp_path, content, cause):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    refused = hermes(home, "sessions", "import", str(bad))
    assert refused.returncode == 1 and cause in refused.stderr and " -> " in refused.stderr, refused.stderr


def test_a_plugin_named_by_its_directory_points_to_the_name_in_its_manifest(home):
    plugin = home / "plugins" / "rm-guard"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: no_rm\nversion: 0.1.0\n")
    (plugin / "__init__.py").write_text("def register(ctx):\n    pass\n")
    for command in ("enable", "info"):
        missed = hermes(home, "plugins", command, "rm-guard")
        assert missed.returncode == 1
        assert "the plugin in the directory 'rm-guard' is named 'no_rm' by its plugin.yaml -> use 'no_rm'" in missed.stderr
    assert hermes(home, "plugins", "enable", "no_rm").returncode == 0


def test_disabling_a_builtin_says_there_is_nothing_to_do(home):
    refused = hermes(home, "plugins", "disable", "memory")
    assert refused.returncode == 1
    assert "builtins are always on and cannot be disabled -> nothing to do" in refused.stderr


def test_a_plugin_that_prints_while_loading_leaves_json_output_intact(home):
    plugin = home / "plugins" / "chatty"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: chatty\nversion: 0.1.0\n")
    (plugin / "__init__.py").write_text("print('hello from import')\n\ndef register(ctx):\n    print('registering chatty')\n")
    assert hermes(home, "plugins", "enable", "chatty").returncode == 0
    listed = hermes(home, "plugins", "list", "--json", "--load")
    assert listed.returncode == 0, listed.stderr
    assert {entry["key"]: entry["loaded"] for entry in json.loads(listed.stdout)}["chatty"] is True
    assert "hello from import" in listed.stderr and "registering chatty" in listed.stderr  # shown, but not in the JSON
    status = hermes(home, "memory", "status", "--json")
    assert json.loads(status.stdout)["provider"] == "builtin"


def test_enable_disable_and_config_edits_answer_in_json(home, tmp_path):
    enabled = hermes(home, "plugins", "enable", "hook_log", "--json")
    assert enabled.returncode == 0, enabled.stderr
    answer = json.loads(enabled.stdout)
    assert (answer["key"], answer["state"], answer["source"]) == ("observability/hook_log", "enabled", "bundled")
    assert json.loads(hermes(home, "plugins", "disable", "hook_log", "--json").stdout)["state"] == "disabled"
    assert json.loads(hermes(home, "plugins", "enable", "memory", "--json").stdout)["state"] == "builtin"

    stored = json.loads(hermes(home, "config", "set", "memory.memory_char_limit", "3000", "--json").stdout)
    assert stored == {"key": "memory.memory_char_limit", "value": 3000, "file": str(home / "config.yaml"), "did_you_mean": None}
    assert json.loads(hermes(home, "config", "set", "memory.provder", "x", "--json").stdout)["did_you_mean"] == "memory.provider"
    secret = json.loads(hermes(home, "config", "set", "OPENAI_API_KEY", "sk-test", "--json").stdout)
    assert secret == {"key": "OPENAI_API_KEY", "file": str(home / ".env"), "secret": True}
    assert json.loads(hermes(home, "config", "unset", "memory.provder", "--json").stdout)["removed"] is True
    assert json.loads(hermes(home, "config", "path", "--json").stdout)["config"] == str(home / "config.yaml")

    made = hermes(home, "plugins", "new", "word_tools", "--kind", "tools", "-o", str(tmp_path), "--json")
    assert made.returncode == 0, made.stderr
    project = json.loads(made.stdout)
    assert project["kind"] == "tools" and Path(project["manifest"]).is_file()
    assert json.loads(hermes(home, "plugins", "validate", project["package"], "--json").stdout)[0]["ok"] is True


def test_installing_and_removing_a_directory_plugin_answers_in_json(home, tmp_path):
    source = tmp_path / "word_guard"
    source.mkdir()
    (source / "plugin.yaml").write_text("name: word_guard\nversion: 0.3.0\nprovides_hooks: [pre_tool_call]\n")
    (source / "__init__.py").write_text("def register(ctx):\n    pass\n")
    installed = hermes(home, "plugins", "install", str(source), "--json")
    assert installed.returncode == 0, installed.stderr
    (entry,) = json.loads(installed.stdout)  # progress went to stderr
    assert (entry["key"], entry["layout"], entry["version"], entry["changed"]) == ("word_guard", "directory", "0.3.0", True)
    assert entry["plugins"] == [{"key": "word_guard", "name": "word_guard", "kind": "standalone", "version": "0.3.0", "warnings": []}]
    assert "==> " in installed.stderr and (home / "plugins" / "word_guard" / "plugin.yaml").is_file()

    removed = hermes(home, "plugins", "remove", "word_guard", "--json")
    assert removed.returncode == 0, removed.stderr
    assert json.loads(removed.stdout)["removed"]["key"] == "word_guard"
    assert not (home / "plugins" / "word_guard").exists()


def test_memory_setup_says_when_the_provider_it_selected_cannot_run_yet(home):
    bare = hermes(home, "memory", "setup", "honcho", "--yes")
    assert bare.returncode == 0, bare.stderr  # the selection is made, as asked
    assert "warning: honcho is selected but not available yet: Honcho is not configured" in bare.stderr
    assert "hermes honcho setup" in bare.stderr
    ready = hermes(home, "memory", "setup", "honcho", "--yes", "--set", f"baseUrl=http://127.0.0.1:{_closed_port()}")
    assert ready.returncode == 0 and "not available" not in ready.stderr, ready.stderr  # configured: no network is tried here


def test_memory_setup_suggests_the_setting_spelt_the_provider_s_way(home):
    refused = hermes(home, "memory", "setup", "honcho", "--yes", "--set", "base_url=http://127.0.0.1:1")
    assert refused.returncode == 1
    assert "honcho has no setting(s) base_url (did you mean baseUrl for base_url?)" in refused.stderr
    assert not (home / "config.yaml").exists()


def test_chat_q_prints_only_the_answer_on_stdout_whatever_plugins_print(home):
    from hermes_core.testing_servers import OpenAIServer, text_reply, tool_call_reply

    plugin = home / "plugins" / "noisy"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: noisy\nversion: 0.1.0\nprovides_hooks: [on_session_start]\nprovides_tools: [shout]\n")
    (plugin / "__init__.py").write_text(
        "import json\n"
        "def started(session_id, platform, **kwargs):\n    print(f'session {session_id} started on {platform}')\n"
        "def shout(args, **kwargs):\n    print('shouting!')\n    return json.dumps({'ok': True})\n"
        "def register(ctx):\n"
        "    ctx.register_hook('on_session_start', started)\n"
        "    ctx.register_tool(name='shout', toolset='noisy', handler=shout, schema={'name': 'shout', 'description': 'Shout.',"
        " 'parameters': {'type': 'object', 'properties': {}}})\n")
    assert hermes(home, "plugins", "enable", "noisy").returncode == 0
    for stream in ([], ["--no-stream"]):
        with OpenAIServer([tool_call_reply("shout", {}), text_reply("All done.", chunks=["All ", "done."])]) as server:
            result = hermes(home, "chat", "-q", "shout please", *stream, env={"HERMES_BASE_URL": server.base_url, "HERMES_MODEL": "m"})
        assert result.returncode == 0, result.stderr
        assert result.stdout == "All done.\n"
        assert "started on cli" in result.stderr and "shouting!" in result.stderr


def test_an_option_given_before_its_command_says_where_it_goes(home):
    early = hermes(home, "--json", "plugins", "list")
    assert early.returncode == 2
    assert "unrecognized arguments: --json -> --json belongs to the command, after it: 'hermes plugins list --json'" in early.stderr
    unknown = hermes(home, "plugins", "list", "--bogus")
    assert unknown.returncode == 2 and "-> 'hermes plugins list --help' lists its options" in unknown.stderr


def test_memory_show_keeps_the_lines_of_one_entry_apart_from_the_next_entry(home):
    assert hermes(home, "memory", "add", "Deploy steps:\nbuild\nship").returncode == 0
    assert hermes(home, "memory", "add", "Project uses pytest").returncode == 0
    shown = hermes(home, "memory", "show", "--target", "memory").stdout
    assert "  Deploy steps:\n    build\n    ship\n  Project uses pytest\n" in shown


def test_plugins_list_json_carries_the_status_the_table_shows(home):
    for name, init in (("fine", "def register(ctx):\n    pass\n"), ("raiser", "def register(ctx):\n    raise RuntimeError('boom')\n")):
        plugin = home / "plugins" / name
        plugin.mkdir(parents=True)
        (plugin / "plugin.yaml").write_text(f"name: {name}\nversion: 0.1.0\n")
        (plugin / "__init__.py").write_text(init)
        assert hermes(home, "plugins", "enable", name).returncode == 0
    listed = {e["key"]: e["status"] for e in json.loads(hermes(home, "plugins", "list", "--json").stdout)}
    assert (listed["fine"], listed["raiser"], listed["observability/hook_log"], listed["memory"]) == ("enabled", "enabled", "off", "enabled")
    loaded = {e["key"]: e["status"] for e in json.loads(hermes(home, "plugins", "list", "--json", "--load").stdout)}
    assert (loaded["fine"], loaded["raiser"], loaded["memory"]) == ("loaded", "error", "loaded")


def test_a_unique_start_of_a_session_id_is_enough(home):
    with SessionStore(home / "state.db") as store:
        first = store.create_session(source="cli", title="Trip")
        store.append_messages(first, [{"role": "user", "content": "Pack the tent"}])
        second = store.create_session(source="cli")
        store.append_messages(second, [{"role": "user", "content": "other"}])
    common = len(os.path.commonprefix([first, second]))
    prefix = first[: max(8, common + 1)]
    shown = hermes(home, "sessions", "show", prefix)
    assert shown.returncode == 0, shown.stderr
    assert f"session {first}" in shown.stdout and "Pack the tent" in shown.stdout
    exported = hermes(home, "sessions", "export", prefix)
    assert json.loads(exported.stdout.splitlines()[0])["content"] == "Pack the tent"
    assert hermes(home, "sessions", "show", "abc").returncode == 1  # too short to be taken as a prefix
    missing = hermes(home, "sessions", "show", "ffffffff-ffff")
    assert missing.returncode == 1 and "no session 'ffffffff-ffff'" in missing.stderr


def test_a_session_id_start_shared_by_several_sessions_is_refused_with_the_candidates(home):
    with SessionStore(home / "state.db") as store:
        ids = [store.create_session(source="cli", session_id=f"abcdef00-0000-4000-8000-00000000000{n}") for n in range(2)]
    shared = hermes(home, "sessions", "show", "abcdef00")
    assert shared.returncode == 1
    assert f"2 sessions start with 'abcdef00' ({ids[0]}, {ids[1]}) -> give more of the id" in shared.stderr


def test_chat_resume_takes_a_unique_start_of_the_id(home):
    from hermes_core.testing_servers import OpenAIServer, text_reply

    env = {"HERMES_MODEL": "m"}
    with OpenAIServer([text_reply("Oslo it is."), text_reply("Still Oslo.")]) as server:
        env["HERMES_BASE_URL"] = server.base_url
        first = hermes(home, "chat", "-q", "Where do we go?", env=env)
        session = first.stderr.split("hermes chat --resume ")[-1].strip(" )\n")
        again = hermes(home, "chat", "--resume", session[:8], "-q", "And again?", env=env)
        assert again.returncode == 0, again.stderr
        assert again.stdout == "Still Oslo.\n"
        assert [m["content"] for m in server.requests[1].body["messages"] if m["role"] == "user"][:1] == ["Where do we go?"]


def _tree(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` with its bytes: what a refused command must leave as it was."""
    return {str(found.relative_to(path)): found.read_bytes() for found in sorted(path.rglob("*")) if found.is_file()}


@pytest.mark.parametrize("query", ["", "   ", " \t\n"])
def test_an_empty_search_query_is_an_error_that_says_how_to_write_one(home, query):
    before = _tree(home)
    result = hermes(home, "sessions", "search", query)
    assert result.returncode == 1
    assert "the query is empty" in result.stderr and "hermes sessions search 'dark mode'" in result.stderr
    assert "no matches" not in result.stdout and "Traceback" not in result.stderr
    assert _tree(home) == before and not (home / "state.db").exists()


def test_stats_of_an_empty_store_reads_well_as_text_and_as_json(home):
    text = hermes(home, "sessions", "stats")
    assert text.returncode == 0, text.stderr
    lines = {line.split()[0]: line for line in reversed(text.stdout.splitlines()) if line.strip()}  # first one wins
    assert lines["sessions"].split()[1] == "0" and "'hermes chat' starts one" in lines["sessions"]
    assert lines["messages"].split() == ["messages", "0"]  # no empty "()" after the count
    assert "()" not in text.stdout and text.stderr == ""
    as_json = hermes(home, "sessions", "stats", "--json")
    assert as_json.returncode == 0, as_json.stderr
    stats = json.loads(as_json.stdout)
    assert (stats["sessions"], stats["messages"], stats["messages_by_role"]) == (0, 0, {})
    assert stats["db_bytes"] > 0 and all(isinstance(size, int) for size in stats["object_bytes"].values())


def test_stats_lists_message_counts_by_role_once_there_are_messages(home):
    with SessionStore(home / "state.db") as store:
        session = store.create_session(source="cli", title="tea")
        store.append_messages(session, [{"role": "user", "content": "tea?"}, {"role": "assistant", "content": "green"},
                                        {"role": "user", "content": "more"}])
    text = hermes(home, "sessions", "stats")
    assert text.returncode == 0, text.stderr
    assert "messages         3 (assistant 1, user 2)" in text.stdout
    assert "none stored yet" not in text.stdout


def test_setting_a_plugin_name_nobody_provides_is_kept_with_a_warning_and_a_did_you_mean(home):
    plugin = home / "plugins" / "weather_report"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: weather_report\nversion: '1.0'\n")
    (plugin / "__init__.py").write_text("import pathlib, os\npathlib.Path(os.environ['HERMES_HOME'], 'IMPORTED').touch()\n"
                                        "def register(ctx): pass\n")

    typo = hermes(home, "config", "set", "plugins.enabled", "wether_report")
    assert typo.returncode == 0, typo.stderr  # kept: it may be installed later
    assert "warning: no plugin named 'wether_report' is found" in typo.stderr
    assert "did you mean 'weather_report'?" in typo.stderr and "hermes plugins list" in typo.stderr
    assert "Traceback" not in typo.stderr
    assert json.loads(hermes(home, "config", "get", "plugins.enabled", "--json").stdout) == ["wether_report"]

    as_json = hermes(home, "config", "set", "plugins.disabled", "[weather_report, zzzz-nothing-like-it]", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["unknown_plugins"] == [{"name": "zzzz-nothing-like-it", "did_you_mean": None}]
    assert "'zzzz-nothing-like-it' is found" in as_json.stderr and "did you mean" not in as_json.stderr

    known = hermes(home, "config", "set", "plugins.enabled", "[weather_report, hook_log, observability/hook_log]")
    assert known.returncode == 0 and known.stderr == ""  # a name, a bundled plugin and its key: all found
    assert not (home / "IMPORTED").exists()  # finding the names ran no plugin code
