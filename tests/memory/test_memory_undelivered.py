"""A provider that takes writes but cannot deliver them is reported as such: by ``memory switch --backfill``
(Honcho refusing the key is refused before sending; a Mem0 model refusing: not counted as sent, not checkpointed, non-zero exit) and by ``memory export``
(a clean exit 1, no abort at interpreter exit)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from switch_support import build_history  # noqa: E402
from test_memory_switch_providers import (  # noqa: E402
    DIMS,
    EmbeddingModelServer,
    HonchoServer,
    _mem0,
    _mem0_config,
    _user_messages,
    mem0_env,
    needs_honcho,
    needs_mem0,
)


def _honcho_with_key(home: Path, base_url: str, key: str) -> str:
    workspace = "ws-undelivered"
    (home / "honcho.json").write_text(json.dumps({"baseUrl": base_url, "apiKey": key, "workspace": workspace, "peerName": "eri",
                                                  "timeout": 2, "hosts": {"hermes": {"aiPeer": "hermes"}}}))
    return workspace


def _no_backfill_retries(home: Path) -> None:
    (home / "config.yaml").write_text(yaml.safe_dump({"memory": {"backfill_retries": 0, "backfill_retry_delay": 0}}), encoding="utf-8")


@needs_honcho
def test_backfill_into_a_honcho_refusing_the_key_fails_and_the_rerun_sends_everything(hermes_home, run_hermes, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "user_home"))
    _no_backfill_retries(hermes_home)
    history = build_history(hermes_home, conversations=2, turns=2)
    with HonchoServer(api_key="the-right-key") as server:
        workspace = _honcho_with_key(hermes_home, server.base_url, "a-wrong-key")
        failed = run_hermes("memory", "switch", "honcho", "--backfill", "--yes")
        assert failed.exit_code == 1, failed.stdout + failed.stderr
        assert "sent" not in failed.stdout
        # the connection check refuses before anything is sent, naming the cause
        assert "does not answer, so nothing was changed" in failed.stderr, failed.stderr
        assert "401" in failed.stderr or "rejected" in failed.stderr.lower(), failed.stderr
        assert not _user_messages(server, workspace)

        _honcho_with_key(hermes_home, server.base_url, "the-right-key")
        rerun = run_hermes("memory", "switch", "honcho", "--backfill", "--yes", "--json")
        assert rerun.exit_code == 0, rerun.stderr
        assert rerun.json()["backfill"]["turns_sent"] == len(history)  # nothing was checkpointed by the failed run
        stored = _user_messages(server, workspace)
    assert {t.user: stored[t.user] for t in history} == {t.user: 1 for t in history}


@needs_mem0
def test_backfill_into_a_mem0_whose_model_refuses_fails_and_the_rerun_sends_everything(hermes_home, mem0_env, run_hermes):
    from hermes_core.testing.replies import error_reply

    history = build_history(hermes_home, conversations=1, turns=2)
    with EmbeddingModelServer(dims=DIMS) as server:
        _mem0_config(hermes_home, server.base_url, infer=False)
        config = yaml.safe_load((hermes_home / "config.yaml").read_text())
        config["memory"].update(backfill_retries=0, backfill_retry_delay=0)
        (hermes_home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        server.fail_next("embeddings", *[error_reply(401, "invalid api key")] * 50)
        failed = run_hermes("memory", "switch", "mem0", "--backfill", "--yes")
        assert failed.exit_code == 1, failed.stdout + failed.stderr
        assert "sent" not in failed.stdout and "not delivered" in failed.stderr, failed.stderr
        assert "pending.jsonl" in failed.stderr  # the provider's own account of where the write waits
        server.clear_faults()
        rerun = run_hermes("memory", "switch", "mem0", "--backfill", "--yes", "--json")
        assert rerun.exit_code == 0, rerun.stderr
        assert rerun.json()["backfill"]["turns_sent"] == len(history)
        provider = _mem0(hermes_home)
        try:
            texts = [r["text"] for r in provider.export_memories()]
        finally:
            provider.shutdown()
    for turn in history:
        assert sum(turn.user in t for t in texts) == 1, (turn.user, texts)


@needs_honcho
def test_export_from_a_honcho_refusing_the_key_exits_1_without_aborting(hermes_home, tmp_path):
    env = dict(os.environ, HERMES_HOME=str(hermes_home), HOME=str(tmp_path / "user_home"))
    with HonchoServer(api_key="the-right-key") as server:
        _honcho_with_key(hermes_home, server.base_url, "a-wrong-key")
        out = tmp_path / "ho.jsonl"
        done = subprocess.run([sys.executable, "-m", "hermes_core", "memory", "export", "--provider", "honcho", str(out)],
                              env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert done.stderr.strip().count("\n") == 0, done.stderr  # one line: the error, no traceback, no abort message
    assert "honcho" in done.stderr
    assert not out.exists()
