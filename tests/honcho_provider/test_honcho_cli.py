"""``hermes honcho ...`` registered by the plugin through the plugin CLI API, and ``hermes memory setup honcho``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def honcho_json(home: Path) -> dict[str, Any]:
    return json.loads((home / "honcho.json").read_text())


def test_the_command_group_exists_before_honcho_is_selected_and_setup_selects_it(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "setup" in run_hermes("honcho", "--help").stdout
    result = run_hermes("honcho", "setup", "--no-input", "--api-key", "hk_test_" + "x" * 20, "--peer-name", "eri", "--recall-mode", "tools", "--json")
    assert result.exit_code == 0, result.stderr
    changed = result.json()["changed"]
    assert changed["apiKey"] == "(stored in .env)" and "hk_test_" not in result.stdout
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"peerName": "eri", "recallMode": "tools", "enabled": True}
    assert "HONCHO_API_KEY" in (hermes_home / ".env").read_text()
    assert oct((hermes_home / "honcho.json").stat().st_mode & 0o777) == "0o600"
    status = run_hermes("memory", "status", "--offline", "--json").json()  # Honcho cloud is not reachable from tests
    assert status["provider"] == "honcho" and status["available"] is True and status["missing_env"] == []
    (hermes_home / ".env").write_text("")
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)  # the in-process runs exported .env into this process
    assert run_hermes("memory", "status", "--json").json()["missing_env"] == ["HONCHO_API_KEY"]  # and it is needed
    (hermes_home / "honcho.json").write_text('{"baseUrl": "http://localhost:8000"}')
    assert run_hermes("memory", "status", "--offline", "--json").json()["missing_env"] == []  # a local server needs no key


def test_setup_without_a_key_or_url_fails_cleanly_and_writes_nothing(run_hermes: Any, hermes_home: Path) -> None:
    result = run_hermes("honcho", "setup", "--no-input")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1, "", "hermes: error: Honcho needs an API key (cloud) or a server URL (self-hosted) -> pass --api-key KEY or --base-url URL\n")
    assert not (hermes_home / "honcho.json").exists() and not (hermes_home / "config.yaml").exists()


def test_setup_interactively(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    answers = iter(["local", "http://localhost:8000", "eri", "context"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    from hermes_core.cli.main import main

    assert main(["honcho", "setup"]) == 0
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"baseUrl": "http://localhost:8000", "peerName": "eri", "recallMode": "context", "enabled": True}


def test_memory_setup_on_a_terminal_runs_the_honcho_wizard(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from hermes_core.cli.main import main

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    answers = iter(["cloud", "eri", "tools"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "hk_test_" + "k" * 20)
    assert main(["memory", "setup", "honcho"]) == 0
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"peerName": "eri", "recallMode": "tools", "enabled": True}
    assert "HONCHO_API_KEY=" in (hermes_home / ".env").read_text() and "memory:\n  provider: honcho" in (hermes_home / "config.yaml").read_text()


def test_status_shows_each_value_with_its_source(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (hermes_home / "honcho.json").write_text(json.dumps({"workspace": "team", "hosts": {"hermes": {"aiPeer": "ada"}}}))
    monkeypatch.setenv("HONCHO_BASE_URL", "http://localhost:8000")
    report = run_hermes("honcho", "status", "--json").json()
    settings = report["settings"]
    assert settings["aiPeer"] == {"value": "ada", "source": "host block hosts.hermes"}
    assert settings["workspace"] == {"value": "team", "source": "root"}
    assert settings["baseUrl"] == {"value": "http://localhost:8000", "source": "env HONCHO_BASE_URL"}
    assert settings["recallMode"] == {"value": "hybrid", "source": "default"}
    assert report["host"] == "hermes" and report["session"]["rule"] == "per-directory"
    text = run_hermes("honcho", "status").stdout
    assert "host block hosts.hermes" in text and "env HONCHO_BASE_URL" in text


def test_small_edits(run_hermes: Any, hermes_home: Path, tmp_path: Path) -> None:
    assert run_hermes("honcho", "enable").exit_code == 0
    assert run_hermes("honcho", "mode", "tools").exit_code == 0
    assert run_hermes("honcho", "mode", "unified").exit_code == 0
    assert run_hermes("honcho", "peer", "--user", "eri", "--ai", "coder").exit_code == 0
    assert run_hermes("honcho", "tokens", "--context", "1200", "--dialectic", "400").exit_code == 0
    assert run_hermes("honcho", "map", "myproject-main", "--directory", str(tmp_path)).exit_code == 0
    data = honcho_json(hermes_home)
    assert data["hosts"]["hermes"] == {
        "enabled": True, "recallMode": "tools", "observationMode": "unified", "peerName": "eri", "aiPeer": "coder",
        "contextTokens": 1200, "dialecticMaxChars": 400,
    }
    assert data["sessions"] == {str(tmp_path.resolve()): "myproject-main"}
    assert run_hermes("honcho", "disable", "--json").json()["changed"] == {"enabled": False}
    assert honcho_json(hermes_home)["hosts"]["hermes"]["enabled"] is False


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("honcho", "tokens", "--context", "0"), "--context 0 is not valid (at least 1)"),
        (("honcho", "peer", "--user", "eri smith"), "only letters"),
        (("honcho", "peer"), "give --user NAME"),
        (("honcho", "map", "  "), "session name is empty"),
        (("honcho", "setup", "--no-input", "--base-url", "localhost:8000"), "http:// or https://"),
    ],
)
def test_bad_input_is_one_clear_error_and_changes_nothing(run_hermes: Any, hermes_home: Path, argv: tuple[str, ...], message: str) -> None:
    (hermes_home / "honcho.json").write_text('{"hosts": {"hermes": {"aiPeer": "ada"}}}')
    before = (hermes_home / "honcho.json").read_text()
    result = run_hermes(*argv)
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.stderr
    assert (hermes_home / "honcho.json").read_text() == before


def test_a_malformed_file_is_named_with_its_line(run_hermes: Any, hermes_home: Path) -> None:
    (hermes_home / "honcho.json").write_text('{\n  "workspace": "a",\n}')
    result = run_hermes("honcho", "status")
    assert result.exit_code == 1 and f"{hermes_home / 'honcho.json'}: line 3" in result.stderr
    for argv in (("enable",), ("map", "x"), ("sync",), ("setup", "--no-input", "--base-url", "http://localhost:8000"), ("peer", "--user", "eri")):
        failed = run_hermes("honcho", *argv)
        assert failed.exit_code == 1 and "line 3" in failed.stderr and "internal error" not in failed.stderr, argv


def test_profiles_edit_their_own_host_block_and_sync_creates_the_rest(run_hermes: Any, hermes_home: Path, user_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = user_home / ".hermes"
    base.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(base))
    for profile in ("coder", "writer"):
        (base / "profiles" / profile).mkdir(parents=True)
    (base / "honcho.json").write_text(json.dumps({"workspace": "hermes", "peerName": "eri"}))
    assert run_hermes("-p", "coder", "honcho", "mode", "tools").exit_code == 0
    monkeypatch.setenv("HERMES_HOME", str(base))  # -p set it for the (in-process) run; back to the default profile
    assert run_hermes("honcho", "mode", "context").exit_code == 0
    result = run_hermes("honcho", "sync", "--json")
    assert result.json()["changed"]["created"] == ["hermes.writer"]
    hosts = json.loads((base / "honcho.json").read_text())["hosts"]
    assert hosts["hermes.coder"] == {"recallMode": "tools"} and hosts["hermes"] == {"recallMode": "context"}
    assert hosts["hermes.writer"] == {"aiPeer": "writer"}
    hosts["hermes_writer"] = hosts.pop("hermes.writer")  # the spelling newer Honcho tools write is edited in place
    (base / "honcho.json").write_text(json.dumps({"workspace": "hermes", "hosts": hosts}))
    assert run_hermes("-p", "writer", "honcho", "peer", "--ai", "scribe").exit_code == 0
    monkeypatch.setenv("HERMES_HOME", str(base))
    assert run_hermes("honcho", "sync", "--json").json()["changed"]["created"] == []
    edited = json.loads((base / "honcho.json").read_text())["hosts"]
    assert edited["hermes_writer"] == {"aiPeer": "scribe"} and "hermes.writer" not in edited
    coder = run_hermes("-p", "coder", "honcho", "status", "--json").json()
    assert coder["host"] == "hermes.coder" and coder["settings"]["workspace"]["value"] == "hermes"


def test_memory_setup_honcho_uses_the_generic_picker(run_hermes: Any, hermes_home: Path) -> None:
    result = run_hermes("memory", "setup", "honcho", "--yes", "--set", "baseUrl=http://localhost:8000", "--set", "peerName=eri", "--set", "writeFrequency=3")
    assert result.exit_code == 0, result.stderr
    assert honcho_json(hermes_home)["hosts"]["hermes"] == {"baseUrl": "http://localhost:8000", "peerName": "eri", "writeFrequency": 3}
    bad = run_hermes("memory", "setup", "honcho", "--yes", "--set", "writeFrequency=hourly")
    assert bad.exit_code != 0 and "writeFrequency" in bad.stderr


def test_a_disabled_plugin_offers_no_command(run_hermes: Any, hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text("plugins:\n  disabled: [honcho]\n")
    assert run_hermes("honcho", "status").exit_code == 2


def test_listing_and_offline_status_never_import_the_sdk(hermes_home: Path, tmp_path: Path) -> None:
    """Only the connection check of 'hermes memory status' (skipped by --offline) imports the SDK."""
    import subprocess
    import sys

    (hermes_home / "config.yaml").write_text("memory:\n  provider: honcho\n")
    (hermes_home / "honcho.json").write_text('{"baseUrl": "http://localhost:8000"}')
    code = (
        "import sys\nfrom hermes_core.cli.main import main\n"
        "for argv in (['plugins', 'list'], ['memory', 'status', '--offline'], ['honcho', 'status']):\n"
        "    assert main(argv) == 0, argv\n"
        "print('IMPORTED' if 'honcho' in sys.modules else 'CLEAN')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("CLEAN") and "honcho [plugin memory/honcho] (available)" in result.stdout


def test_status_check_connects(run_hermes: Any, honcho_config: Any, server: Any) -> None:
    honcho_config()
    ok = run_hermes("honcho", "status", "--check", "--json")
    assert ok.exit_code == 0 and ok.json()["connection"]["ok"] is True
    honcho_config(root={"baseUrl": "http://127.0.0.1:9"})
    down = run_hermes("honcho", "status", "--check")
    assert down.exit_code == 1 and "connection: FAILED: Honcho unreachable at http://127.0.0.1:9" in down.stdout


def test_without_the_sdk_status_says_how_to_install_it(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "honcho", None)  # how Python marks a module as not importable
    (hermes_home / "config.yaml").write_text("memory:\n  provider: honcho\n")
    (hermes_home / "honcho.json").write_text('{"baseUrl": "http://localhost:8000"}')
    result = run_hermes("memory", "status")
    assert result.exit_code == 1 and "pip install 'hermes-host[honcho]'" in result.stdout
    assert run_hermes("honcho", "status", "--check").stdout.count("pip install 'hermes-host[honcho]'") == 1


def test_setup_blames_a_bad_flag_not_a_file_that_does_not_exist(run_hermes: Any, hermes_home: Path) -> None:
    result = run_hermes("honcho", "setup", "--no-input", "--base-url", "notaurl")
    assert result.exit_code == 1
    assert "--base-url 'notaurl' is not an http(s) URL -> " in result.stderr and "http://localhost:8000" in result.stderr
    assert "honcho.json" not in result.stderr and "Traceback" not in result.stderr
    assert not (hermes_home / "honcho.json").exists() and not (hermes_home / "config.yaml").exists()
    spaced = run_hermes("honcho", "setup", "--no-input", "--base-url", "http://localhost:8000", "--peer-name", "   ")
    assert spaced.exit_code == 2 and "argument --peer-name: the value is blank" in spaced.stderr and not (hermes_home / "honcho.json").exists()


def test_setup_while_another_provider_is_selected_loads_honcho_only_for_its_command(
    run_hermes: Any, hermes_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n", encoding="utf-8")
    result = run_hermes("honcho", "setup", "--no-input", "--base-url", "http://localhost:8000", "--peer-name", "eri")
    assert result.exit_code == 0, result.stderr
    assert "rejected" not in result.stderr and "rejected" not in caplog.text
    assert "already active" not in result.stderr + caplog.text
    assert honcho_json(hermes_home)["hosts"]["hermes"]["peerName"] == "eri"


def test_memory_status_reports_a_rejected_key_unavailable(run_hermes: Any, hermes_home: Path, server: Any, workspace: str) -> None:
    from hermes_core.testing.honcho_server import HonchoServer

    with HonchoServer(api_key="the-right-key") as strict:
        (hermes_home / "honcho.json").write_text(json.dumps({"baseUrl": strict.base_url, "apiKey": "a-wrong-key", "workspace": workspace, "timeout": 2}))
        (hermes_home / "config.yaml").write_text("memory:\n  provider: honcho\n", encoding="utf-8")
        rejected = run_hermes("memory", "status", "--json")
        assert rejected.exit_code == 1, rejected.stdout
        status = rejected.json()
        assert status["available"] is False and status["connection"] == "failed"
        assert "401" in status["reason"] and "apiKey" in status["reason"]
        (hermes_home / "honcho.json").write_text(json.dumps({"baseUrl": strict.base_url, "apiKey": "the-right-key", "workspace": workspace, "timeout": 2}))
        accepted = run_hermes("memory", "status", "--json")
    assert accepted.exit_code == 0 and accepted.json()["connection"] == "ok", accepted.stdout


def test_sync_from_a_profile_fills_the_shared_file_its_profiles_read(run_hermes: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a custom root (HERMES_HOME outside ~/.hermes): its profiles live in <root>/profiles/NAME
    for profile in ("coder", "writer"):
        (hermes_home / "profiles" / profile).mkdir(parents=True)
    assert run_hermes("honcho", "setup", "--no-input", "--base-url", "http://localhost:8000", "--peer-name", "eri").exit_code == 0
    shared = hermes_home / "honcho.json"
    before = run_hermes("-p", "coder", "honcho", "status", "--json").json()
    assert before["file"] == str(shared)  # a profile without its own file reads the default profile's
    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    result = run_hermes("-p", "writer", "honcho", "sync", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["file"] == str(shared) and result.json()["changed"]["created"] == ["hermes.coder", "hermes.writer"]
    assert not (hermes_home / "profiles" / "writer" / "honcho.json").exists()
    hosts = honcho_json(hermes_home)["hosts"]
    assert hosts["hermes"] == {"baseUrl": "http://localhost:8000", "peerName": "eri", "enabled": True}
    assert (hosts["hermes.coder"], hosts["hermes.writer"]) == ({"aiPeer": "coder"}, {"aiPeer": "writer"})
    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    coder = run_hermes("-p", "coder", "honcho", "status", "--json").json()
    assert coder["file"] == str(shared) and coder["settings"]["aiPeer"] == {"value": "coder", "source": "host block hosts.hermes.coder"}


@pytest.mark.parametrize("flag", ["--peer-name", "--ai-peer", "--workspace", "--base-url"])  # --api-key: test_honcho_cli_commands
def test_setup_refuses_a_blank_value_and_writes_nothing(run_hermes: Any, hermes_home: Path, flag: str) -> None:
    result = run_hermes("honcho", "setup", "--no-input", "--base-url", "http://localhost:8000", flag, "  ")
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert flag in result.stderr and "blank" in result.stderr and "->" in result.stderr and "Traceback" not in result.stderr
    assert not (hermes_home / "honcho.json").exists() and not (hermes_home / "config.yaml").exists() and not (hermes_home / ".env").exists()
    as_json = run_hermes("honcho", "setup", "--no-input", "--json", "--base-url", "http://localhost:8000", flag, "")
    assert as_json.exit_code == 2 and flag in as_json.stderr and not (hermes_home / "honcho.json").exists()


def test_the_generic_wizard_refuses_an_id_honcho_would_not_take_and_writes_nothing(run_hermes: Any, hermes_home: Path) -> None:
    result = run_hermes("memory", "setup", "honcho", "--yes", "--set", "baseUrl=http://localhost:8000", "--set", "apiKey=hk_" + "k" * 20,
                        "--set", "peerName=eri smith", "--json")
    assert result.exit_code == 1, result.stdout
    answer = result.json()
    assert answer["cause"] == "memory provider 'honcho' refused the settings: peerName 'eri smith' may use only letters, digits, '_' and '-'"
    assert answer["fix"].startswith("e.g. --set peerName=eri-smith") and "report it to the provider's author" not in result.stderr
    assert not (hermes_home / "honcho.json").exists() and not (hermes_home / ".env").exists()
    assert "provider" not in (hermes_home / "config.yaml").read_text(encoding="utf-8") if (hermes_home / "config.yaml").exists() else True
    for argv in (("peer", "--ai", "co der"), ("setup", "--no-input", "--base-url", "http://localhost:8000", "--ai-peer", "co der")):
        assert run_hermes("honcho", *argv).exit_code == 1 and not (hermes_home / "honcho.json").exists()
