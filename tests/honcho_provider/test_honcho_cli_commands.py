"""What each ``hermes honcho`` command prints and writes, word for word (run in-process with ``run_hermes``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """argparse wraps help at the terminal's width: one line per option makes the help comparable."""
    monkeypatch.setenv("COLUMNS", "200")


def honcho_json(home: Path) -> dict[str, Any]:
    return json.loads((home / "honcho.json").read_text())


def test_without_a_subcommand_the_help_lists_each_command_with_what_it_does(run_hermes: Any) -> None:
    result = run_hermes("honcho")
    assert result.exit_code == 0 and result.stderr == ""
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert "usage: hermes honcho [-h] SUBCOMMAND ..." in lines
    for command, help_text in (
        ("setup", "set up Honcho (cloud or self-hosted) and select it as memory provider"),
        ("status", "show the resolved settings of the active profile and where each comes from"),
        ("enable", "turn Honcho on for the active profile"),
        ("disable", "turn Honcho off for the active profile"),
        ("mode", "change the recall mode (hybrid, context, tools) or the observation mode (directional, unified)"),
        ("peer", "change the user or AI peer name"),
        ("tokens", "change the context token budget or the dialectic size"),
        ("map", "name the Honcho session of the current directory"),
        ("sync", "create host blocks for every hermes profile"),
    ):
        assert any(re.fullmatch(rf"{command}\s+{re.escape(help_text)}", line) for line in lines), command
        sub = run_hermes("honcho", command, "--help")
        assert sub.exit_code == 0 and help_text in sub.stdout.splitlines()
        assert re.search(r"^\s*--json\s+print the result as JSON$", sub.stdout, re.M), command


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("setup", {"--api-key API_KEY": "Honcho API key (stored in $HERMES_HOME/.env as HONCHO_API_KEY)",
                   "--base-url BASE_URL": "self-hosted Honcho URL (omit for Honcho cloud)", "--workspace WORKSPACE": "workspace ID (default: host key)",
                   "--peer-name PEER_NAME": "your peer name", "--ai-peer AI_PEER": "this profile's AI peer name",
                   "--no-input": "never prompt; use the flags and defaults"}),
        ("status", {"--check": "also connect to Honcho and report whether it answers"}),
        ("peer", {"--user USER": "the user's peer name", "--ai AI": "this profile's AI peer name"}),
        ("tokens", {"--context CONTEXT": "contextTokens: token budget of recalled context",
                    "--dialectic DIALECTIC": "dialecticMaxChars: max chars of the dialectic answer"}),
        ("map", {"name": "session name for this directory", "--directory DIRECTORY": "another directory instead of the current one"}),
    ],
)
def test_each_option_is_explained(run_hermes: Any, command: str, options: dict[str, str]) -> None:
    text = run_hermes("honcho", command, "--help").stdout
    flat = " ".join(text.split())  # a long option's help may start on the next line
    for option, help_text in options.items():
        assert re.search(rf"(^| ){re.escape(option)} {re.escape(help_text)}( |$)", flat), option
    if command == "setup":
        assert "--recall-mode {hybrid,context,tools}" in flat and "--session-strategy {per-directory,per-session,per-repo,global}" in flat
    if command == "mode":
        assert "{hybrid,context,tools,directional,unified}" in flat


def test_each_edit_says_what_it_set_in_which_file_and_host(run_hermes: Any, hermes_home: Path, tmp_path: Path) -> None:
    where = f"({hermes_home / 'honcho.json'}, host hermes)"
    for argv, said in (
        (("enable",), "Honcho enabled"),
        (("disable",), "Honcho disabled"),
        (("mode", "tools"), "recallMode = tools"),
        (("mode", "directional"), "observationMode = directional"),
        (("peer", "--user", "eri"), "peerName = eri"),
        (("peer", "--ai", "coder"), "aiPeer = coder"),
        (("peer", "--user", "eri", "--ai", "coder"), "peerName = eri, aiPeer = coder"),
        (("tokens", "--dialectic", "400"), "dialecticMaxChars = 400"),
        (("tokens", "--context", "1200", "--dialectic", "300"), "contextTokens = 1200, dialecticMaxChars = 300"),
        (("map", "  proj  ", "--directory", str(tmp_path)), f"{tmp_path.resolve()} -> session proj"),
        (("sync",), "host blocks created: none (all present)"),
    ):
        result = run_hermes("honcho", *argv)
        assert (result.exit_code, result.stdout, result.stderr) == (0, f"{said} {where}\n", ""), argv
    assert honcho_json(hermes_home) == {
        "hosts": {"hermes": {"enabled": False, "recallMode": "tools", "observationMode": "directional", "peerName": "eri",
                             "aiPeer": "coder", "dialecticMaxChars": 300, "contextTokens": 1200}},
        "sessions": {str(tmp_path.resolve()): "proj"},
    }
    assert oct((hermes_home / "honcho.json").stat().st_mode & 0o777) == "0o600"


def test_each_edit_answers_json_with_the_file_host_and_change(run_hermes: Any, hermes_home: Path) -> None:
    for argv, changed in (
        (("enable",), {"enabled": True}),
        (("mode", "unified"), {"observationMode": "unified"}),
        (("mode", "context"), {"recallMode": "context"}),
        (("peer", "--ai", "coder"), {"aiPeer": "coder"}),
        (("tokens", "--context", "900"), {"contextTokens": 900}),
        (("sync",), {"created": []}),
    ):
        result = run_hermes("honcho", *argv, "--json")
        assert result.exit_code == 0 and result.json() == {"file": str(hermes_home / "honcho.json"), "host": "hermes", "changed": changed}, argv


def test_map_without_a_directory_maps_the_current_one_and_keeps_the_other_entries(run_hermes: Any, hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (hermes_home / "honcho.json").write_text(json.dumps({"sessions": {"/srv/other": "other"}}))
    monkeypatch.chdir(tmp_path)
    result = run_hermes("honcho", "map", "here", "--json")
    assert result.json()["changed"] == {"sessions": {str(tmp_path.resolve()): "here"}}
    assert honcho_json(hermes_home) == {"sessions": {"/srv/other": "other", str(tmp_path.resolve()): "here"}, "hosts": {"hermes": {}}}


def test_map_writes_into_the_host_blocks_own_map_when_it_has_one(run_hermes: Any, hermes_home: Path, tmp_path: Path) -> None:
    """The host block's ``sessions`` wins over the root's, so a mapping written at the root would be ignored."""
    (hermes_home / "honcho.json").write_text(json.dumps({"sessions": {"/srv/root": "r"}, "hosts": {"hermes": {"sessions": {"/srv/a": "a"}}}}))
    assert run_hermes("honcho", "map", "b", "--directory", str(tmp_path)).exit_code == 0
    data = honcho_json(hermes_home)
    assert data["hosts"]["hermes"]["sessions"] == {"/srv/a": "a", str(tmp_path.resolve()): "b"}
    assert data["sessions"] == {"/srv/root": "r"}
    assert run_hermes("honcho", "status", "--json").json()["settings"]["sessions"]["value"] == {"/srv/a": "a", str(tmp_path.resolve()): "b"}


def test_map_and_sync_refuse_a_file_whose_hosts_is_not_an_object(run_hermes: Any, hermes_home: Path) -> None:
    (hermes_home / "honcho.json").write_text('{"hosts": [1]}')
    before = (hermes_home / "honcho.json").read_text()
    synced = run_hermes("honcho", "sync")
    assert synced.exit_code == 1 and f"{hermes_home / 'honcho.json'}: hosts must be an object -> fix it by hand first" in synced.stderr
    mapped = run_hermes("honcho", "map", "x")
    assert mapped.exit_code == 1 and "hosts must be an object" in mapped.stderr and "Traceback" not in mapped.stderr
    assert (hermes_home / "honcho.json").read_text() == before


def test_sync_creates_a_block_per_profile_named_after_it_once(run_hermes: Any, hermes_home: Path) -> None:
    for profile in ("zed", "ada"):
        (hermes_home / "profiles" / profile).mkdir(parents=True)
    (hermes_home / "profiles" / "notes.txt").write_text("not a profile")
    result = run_hermes("honcho", "sync")
    assert result.exit_code == 0
    assert result.stdout == f"host blocks created: hermes, hermes.ada, hermes.zed ({hermes_home / 'honcho.json'}, host hermes)\n"
    assert honcho_json(hermes_home) == {"hosts": {"hermes": {"aiPeer": "hermes"}, "hermes.ada": {"aiPeer": "ada"}, "hermes.zed": {"aiPeer": "zed"}}}
    assert run_hermes("honcho", "sync", "--json").json()["changed"] == {"created": []}


def test_sync_without_profiles_creates_the_default_block(run_hermes: Any, hermes_home: Path) -> None:
    (hermes_home / "honcho.json").write_text('{"workspace": "team"}')
    assert run_hermes("honcho", "sync", "--json").json()["changed"] == {"created": ["hermes"]}
    assert honcho_json(hermes_home) == {"workspace": "team", "hosts": {"hermes": {"aiPeer": "hermes"}}}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("peer", "--user", "eri smith"), "peer name 'eri smith' may use only letters, digits, '_' and '-' -> e.g. 'eri-smith'"),
        (("peer", "--ai", "  "), "peer name '  ' may use only letters, digits, '_' and '-' -> e.g. 'default'"),
        (("peer", "--user", "eri", "--ai", "co/der"), "peer name 'co/der' may use only letters, digits, '_' and '-' -> e.g. 'co-der'"),
        (("peer",), "nothing to change: no peer name was given -> give --user NAME and/or --ai NAME"),
        (("tokens",), "nothing to change: no size was given -> give --context N and/or --dialectic N"),
        (("tokens", "--context", "-5"), "--context -5 is not valid (at least 1): it must be a whole number -> run 'hermes honcho tokens' again with a corrected --context"),
        (("tokens", "--context", "800", "--dialectic", "0"), "--dialectic 0 is not valid (at least 1): it must be a whole number -> run 'hermes honcho tokens' again with a corrected --dialectic"),
        (("setup", "--no-input", "--base-url", "http://localhost:8000", "--peer-name", "eri/smith"), "--peer-name 'eri/smith' may use only letters, digits, '_' and '-' -> e.g. --peer-name eri-smith"),
        (("setup", "--no-input", "--base-url", "http://localhost:8000", "--workspace", "my team"), "--workspace 'my team' may use only letters, digits, '_' and '-' -> e.g. --workspace my-team"),
        (("map", " "), "the session name is empty -> e.g. hermes honcho map myproject-main"),
        (("map", "proj", "--directory", "/no/such/checkout"),
         "--directory '/no/such/checkout' is not a directory (/no/such/checkout) -> give an existing directory, or create it first"),
    ],
)
def test_a_bad_edit_is_one_exact_error_and_writes_nothing(run_hermes: Any, hermes_home: Path, argv: tuple[str, ...], message: str) -> None:
    result = run_hermes("honcho", *argv)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"hermes: error: {message}\n")
    assert not (hermes_home / "honcho.json").exists()


def test_a_peer_name_is_stored_without_surrounding_spaces(run_hermes: Any, hermes_home: Path) -> None:
    result = run_hermes("honcho", "peer", "--user", " eri ", "--json")
    assert result.exit_code == 0, result.stderr
    assert honcho_json(hermes_home)["hosts"]["hermes"]["peerName"] == "eri"


def test_setup_says_what_it_set_up(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)
    result = run_hermes("honcho", "setup", "--no-input", "--api-key", "  hk_test_key  ", "--workspace", "team", "--ai-peer", "coder",
                        "--session-strategy", "per-repo")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"Honcho set up; memory.provider = honcho ({hermes_home / 'honcho.json'}, host hermes)\n"
    assert honcho_json(hermes_home) == {"hosts": {"hermes": {"workspace": "team", "aiPeer": "coder", "sessionStrategy": "per-repo", "enabled": True}}}
    assert "HONCHO_API_KEY=hk_test_key\n" in (hermes_home / ".env").read_text()
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)  # the in-process run exported .env into this process
    local = run_hermes("honcho", "setup", "--no-input", "--base-url", "http://localhost:8000", "--json")
    assert local.json()["changed"] == {"baseUrl": "http://localhost:8000", "enabled": True}


@pytest.mark.parametrize("key", ["", "   ", "hk_one\nhk_two"])
def test_setup_refuses_an_empty_or_multi_line_key(run_hermes: Any, hermes_home: Path, key: str) -> None:
    result = run_hermes("honcho", "setup", "--no-input", "--base-url", "http://localhost:8000", "--api-key", key)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", "hermes: error: the API key is empty or spans lines -> give it on one line (--api-key KEY)\n")
    assert not (hermes_home / "honcho.json").exists() and not (hermes_home / ".env").exists()


def test_setup_without_flags_goes_on_with_a_key_or_url_it_already_has(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HONCHO_API_KEY", "hk_from_the_environment")
    assert run_hermes("honcho", "setup", "--no-input", "--json").json()["changed"] == {"enabled": True}
    monkeypatch.delenv("HONCHO_API_KEY")
    (hermes_home / "honcho.json").write_text('{"apiKey": "hk_in_the_file"}')
    assert run_hermes("honcho", "setup", "--no-input").exit_code == 0
    (hermes_home / "honcho.json").write_text('{"baseUrl": "http://localhost:8000"}')
    assert run_hermes("honcho", "setup", "--no-input").exit_code == 0
    (hermes_home / "honcho.json").write_text('{"baseUrl": 5}')
    bad = run_hermes("honcho", "setup", "--no-input")
    assert bad.exit_code == 1 and "baseUrl" in bad.stderr and "Traceback" not in bad.stderr


def _answer(monkeypatch: pytest.MonkeyPatch, answers: list[str], secret: str | None = None) -> list[str]:
    """Answer the wizard's prompts in order; returns the prompts shown (a secret one marked ``secret:``)."""
    asked: list[str] = []
    queue = iter(answers)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)

    def ask(prompt: str = "") -> str:
        asked.append(prompt)
        return next(queue)

    def ask_secret(prompt: str = "") -> str:
        asked.append("secret:" + prompt)
        assert secret is not None, prompt
        return secret

    monkeypatch.setattr("builtins.input", ask)
    monkeypatch.setattr("getpass.getpass", ask_secret)
    return asked


def test_the_wizard_asks_for_a_key_in_secret_for_cloud(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "erika")
    asked = _answer(monkeypatch, ["", "", ""], secret="hk_typed_key")
    from hermes_core.cli.main import main

    assert main(["honcho", "setup"]) == 0
    assert asked == [
        "Use Honcho cloud or a self-hosted server? (cloud/local) [cloud]: ",
        "secret:API key (from app.honcho.dev, or your server's): ",
        "Your peer name [erika]: ",
        "Recall mode (hybrid/context/tools) [hybrid]: ",
    ]
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"peerName": "erika", "recallMode": "hybrid", "enabled": True}
    assert "HONCHO_API_KEY=hk_typed_key" in (hermes_home / ".env").read_text()


def test_the_wizard_asks_a_remote_self_hosted_server_for_a_key_but_not_a_local_one(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("USER", raising=False)
    asked = _answer(monkeypatch, ["LOCAL", "https://honcho.example.org", "", "tools"], secret="hk_remote")
    from hermes_core.cli.main import main

    assert main(["honcho", "setup"]) == 0
    assert asked == [
        "Use Honcho cloud or a self-hosted server? (cloud/local) [cloud]: ",
        "Server URL [http://localhost:8000]: ",
        "secret:API key (from app.honcho.dev, or your server's): ",
        "Your peer name [user]: ",
        "Recall mode (hybrid/context/tools) [hybrid]: ",
    ]
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"baseUrl": "https://honcho.example.org", "peerName": "user", "recallMode": "tools", "enabled": True}
    (hermes_home / "honcho.json").unlink()
    (hermes_home / ".env").unlink()
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)
    asked = _answer(monkeypatch, ["local", "", ""])
    assert main(["honcho", "setup", "--peer-name", "eri"]) == 0
    assert asked == ["Use Honcho cloud or a self-hosted server? (cloud/local) [cloud]: ", "Server URL [http://localhost:8000]: ",
                     "Recall mode (hybrid/context/tools) [hybrid]: "]
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"baseUrl": "http://localhost:8000", "peerName": "eri", "recallMode": "hybrid", "enabled": True}
    assert not (hermes_home / ".env").exists()


def test_the_wizard_keeps_a_url_given_as_a_flag_and_a_key_given_as_a_flag(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "erika")
    asked = _answer(monkeypatch, ["local", "eri", "context"])
    from hermes_core.cli.main import main

    assert main(["honcho", "setup", "--base-url", "https://honcho.example.org", "--api-key", "hk_flag"]) == 0
    assert asked == ["Use Honcho cloud or a self-hosted server? (cloud/local) [cloud]: ", "Your peer name [erika]: ",
                     "Recall mode (hybrid/context/tools) [hybrid]: "]
    assert honcho_json(hermes_home)["hosts"]["hermes"]["baseUrl"] == "https://honcho.example.org"
    assert "HONCHO_API_KEY=hk_flag" in (hermes_home / ".env").read_text()


def test_setup_without_input_never_prompts_even_on_a_terminal(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _answer(monkeypatch, [])
    from hermes_core.cli.main import main

    assert main(["honcho", "setup", "--no-input", "--base-url", "http://localhost:8000"]) == 0
    assert asked == []


def test_status_prints_the_file_host_session_and_each_setting(run_hermes: Any, hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (hermes_home / "honcho.json").write_text(json.dumps({"workspace": "team", "stray": 1, "sessions": {str(tmp_path): "mapped"},
                                                         "hosts": {"hermes": {"aiPeer": "ada", "apiKey": "hk_secret_value"}}}))
    result = run_hermes("honcho", "status")
    assert result.exit_code == 0 and "hk_secret_value" not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[:3] == [f"file:    {hermes_home / 'honcho.json'}", "host:    hermes", "session: mapped (manual map (sessions))"]
    assert f"  {'workspace':<24} {json.dumps('team'):<28} root" in lines
    assert f"  {'aiPeer':<24} {json.dumps('ada'):<28} host block hosts.hermes" in lines
    assert f"  {'timeout':<24} {json.dumps(8):<28} default" in lines
    assert lines[-1] == f"warning: {hermes_home / 'honcho.json'}: stray is not a Honcho setting of hermes; it is ignored (settings: 'hermes honcho status')"
    shown = run_hermes("honcho", "status", "--json")
    assert shown.exit_code == 0  # nothing was checked, so nothing failed
    report = shown.json()
    assert report["file"] == str(hermes_home / "honcho.json") and report["host"] == "hermes"
    assert report["session"] == {"name": "mapped", "rule": "manual map (sessions)"} and report["failed_writes"] == 0
    assert report["observation"] == {"user": {"observeMe": True, "observeOthers": True}, "ai": {"observeMe": True, "observeOthers": True}}
    assert report["warnings"] == [lines[-1].removeprefix("warning: ")] and "connection" not in report
    assert report["settings"]["apiKey"]["source"] == "host block hosts.hermes" and "hk_secret_value" not in json.dumps(report)


def test_status_without_a_file_says_so(run_hermes: Any, hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HONCHO_ENVIRONMENT", "local")
    result = run_hermes("honcho", "status")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:3] == ["file:    (none: defaults and environment only)", "host:    hermes", "session: proj (per-directory)"]
    assert run_hermes("honcho", "status", "--json").json()["file"] is None


def test_status_names_the_failed_writes_waiting_in_the_journal(run_hermes: Any, hermes_home: Path) -> None:
    journal = hermes_home / "honcho" / "failed_writes.jsonl"
    journal.parent.mkdir()
    entry = {"cause": "Honcho unreachable", "messages": [{"session": "s", "peer": "eri", "content": "a", "metadata": {}},
                                                         {"session": "s", "peer": "hermes", "content": "b", "metadata": {}}]}
    journal.write_text(json.dumps(entry) + "\n" + json.dumps(entry) + "\n")
    result = run_hermes("honcho", "status")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == f"failed writes: 4 message(s) wait in {journal}; sent again at the next session"
    assert run_hermes("honcho", "status", "--json").json()["failed_writes"] == 4


def test_status_check_prints_the_time_it_took(run_hermes: Any, honcho_config: Any) -> None:
    honcho_config()
    result = run_hermes("honcho", "status", "--check")
    assert result.exit_code == 0 and re.search(r"^connection: ok \(\d+ ms\)$", result.stdout, re.M)
    report = run_hermes("honcho", "status", "--check", "--json")
    assert report.exit_code == 0 and set(report.json()["connection"]) == {"ok", "ms"}
    honcho_config(root={"baseUrl": "http://127.0.0.1:9"})
    down = run_hermes("honcho", "status", "--check", "--json")
    assert down.exit_code == 1 and down.json()["connection"]["ok"] is False
    assert down.json()["connection"]["error"].startswith("Honcho unreachable at http://127.0.0.1:9")


def test_status_names_the_session_with_the_user_peer_prefix(run_hermes: Any, hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (hermes_home / "honcho.json").write_text(json.dumps({"baseUrl": "http://localhost:8000", "peerName": "eri", "sessionPeerPrefix": True,
                                                         "sessions": {str(tmp_path): "mapped"}}))
    result = run_hermes("honcho", "status")
    assert result.exit_code == 0 and result.stdout.splitlines()[2] == "session: eri-mapped (manual map (sessions))"


def test_the_wizard_does_not_ask_for_a_recall_mode_given_as_a_flag(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _answer(monkeypatch, ["local"])
    from hermes_core.cli.main import main

    assert main(["honcho", "setup", "--base-url", "http://localhost:8000", "--peer-name", "eri", "--recall-mode", "context"]) == 0
    assert asked == ["Use Honcho cloud or a self-hosted server? (cloud/local) [cloud]: "]
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"baseUrl": "http://localhost:8000", "peerName": "eri", "recallMode": "context", "enabled": True}


def test_setup_with_the_key_in_the_environment_replaces_a_bad_value_of_the_file(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With HONCHO_API_KEY set, setup needs nothing from honcho.json, so a value it replaces may be broken: setup is how it is fixed."""
    (hermes_home / "honcho.json").write_text(json.dumps({"hosts": {"hermes": {"recallMode": "sometimes"}}}))
    monkeypatch.setenv("HONCHO_API_KEY", "hk_from_the_environment")
    result = run_hermes("honcho", "setup", "--no-input", "--recall-mode", "tools")
    assert (result.exit_code, result.stderr) == (0, "")
    assert honcho_json(hermes_home) == {"hosts": {"hermes": {"recallMode": "tools", "enabled": True}}}


def test_run_setup_writes_into_the_home_it_is_given(hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hermes memory setup honcho`` hands the provider its home: the file goes there, whatever $HERMES_HOME says."""
    from hermes_bundled_plugins.memory.honcho.cli import run_setup

    other = tmp_path / "other_home"
    other.mkdir()
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)
    path, changed = run_setup(other, {"baseUrl": "http://localhost:8000", "peerName": "eri"}, "hk_key", interactive=False)
    assert path == other / "honcho.json" and not (hermes_home / "honcho.json").exists()
    assert honcho_json(other) == {"hosts": {"hermes": {"baseUrl": "http://localhost:8000", "peerName": "eri", "enabled": True}}}
    assert changed == {"baseUrl": "http://localhost:8000", "peerName": "eri", "enabled": True, "apiKey": "(stored in .env)"}
    assert "HONCHO_API_KEY=hk_key\n" in (other / ".env").read_text()


def test_sync_run_in_a_profile_creates_the_blocks_of_its_sibling_profiles(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for profile in ("coder", "writer"):
        (hermes_home / "profiles" / profile).mkdir(parents=True)
    (hermes_home / "honcho.json").write_text('{"workspace": "team"}')
    result = run_hermes("-p", "coder", "honcho", "sync", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["changed"] == {"created": ["hermes", "hermes.coder", "hermes.writer"]}
