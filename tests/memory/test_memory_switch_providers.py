"""Switching to the bundled Mem0 and Honcho providers end to end: the real libraries over real HTTP
to the loopback model and Honcho servers. Skipped where those providers are not part of the tree."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from switch_support import build_history  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _found(*names: str) -> str | None:
    """The first of ``names`` that can be imported (test servers have moved between modules)."""
    for name in names:
        try:
            if importlib.util.find_spec(name) is not None:
                return name
        except ModuleNotFoundError:
            continue
    return None


EMBEDDINGS = _found("hermes_core.testing.openai_embeddings", "hermes_core.testing_openai_embeddings")
HONCHO_SERVER = _found("hermes_core.testing.honcho_server", "hermes_core.testing_honcho")


def _present(plugin: str, *modules: str | None) -> bool:
    return (REPO / "plugins" / "memory" / plugin).is_dir() and all(m is not None and importlib.util.find_spec(m) is not None for m in modules)


needs_mem0 = pytest.mark.skipif(not _present("mem0", "mem0", EMBEDDINGS), reason="the Mem0 provider is not in this tree")
needs_honcho = pytest.mark.skipif(not _present("honcho", "honcho", HONCHO_SERVER), reason="the Honcho provider is not in this tree")
DIMS = 64


def EmbeddingModelServer(**kwargs: Any) -> Any:  # noqa: N802 - the server class, found where it lives
    return importlib.import_module(EMBEDDINGS).EmbeddingModelServer(**kwargs)


def HonchoServer(**kwargs: Any) -> Any:  # noqa: N802
    return importlib.import_module(HONCHO_SERVER).HonchoServer(**kwargs)


@pytest.fixture
def mem0_env(hermes_home, monkeypatch):
    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    monkeypatch.setenv("MEM0_DIR", str(hermes_home / "mem0"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MEM0_API_KEY", "MEM0_BASE_URL", "MEM0_USER_ID", "MEM0_AGENT_ID"):
        monkeypatch.delenv(name, raising=False)


def _mem0_config(home: Path, base_url: str, *, infer: bool) -> None:
    """Mem0 local mode against the loopback model server; memory.provider still empty (built-in only)."""
    config = {
        "model": {"provider": "openai", "name": "chat-model", "base_url": base_url},
        "memory": {"provider": "", "mem0": {"embedder": {"model": "hashed-bow", "dims": DIMS}, "timeout": 2, "infer": infer}},
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def _mem0(home: Path) -> Any:
    """The Mem0 provider as the host loads it for memory.provider = mem0, initialized."""
    from hermes_core.manager import PluginManager

    plugins = PluginManager()
    plugins.load_all()
    provider = plugins.active_memory_provider()
    assert provider is not None and provider.name == "mem0"
    provider.initialize(f"check-{uuid.uuid4()}", hermes_home=str(home), platform="cli", agent_context="primary")
    return provider


@needs_mem0
def test_switch_to_mem0_finds_facts_said_only_in_old_conversations(hermes_home, mem0_env, run_hermes):
    build_history(hermes_home)
    with EmbeddingModelServer(dims=DIMS) as server:
        _mem0_config(hermes_home, server.base_url, infer=True)
        dry = run_hermes("memory", "switch", "mem0", "--backfill", "--dry-run", "--json")
        assert dry.exit_code == 0 and dry.json()["backfill"]["turns_to_send"] == 63
        assert not (hermes_home / "mem0").exists() and server.requests == []  # the dry run wrote nothing
        result = run_hermes("memory", "switch", "mem0", "--backfill", "--yes", "--json")
        assert result.exit_code == 0, result.stderr
        assert result.json()["backfill"]["turns_sent"] == 63
        provider = _mem0(hermes_home)
        try:
            found = json.loads(provider.handle_tool_call("mem0_search", {"query": "what is my locker code zx7q2"}))
            assert any("zx7q2" in r["memory"] for r in found["results"]), found
            hidden = json.loads(provider.handle_tool_call("mem0_search", {"query": "secretsubagentword"}))
            assert not any("secretsubagentword" in r["memory"] for r in hidden["results"])
        finally:
            provider.shutdown()


class _KillingServer:
    """Wraps the model server: SIGKILLs the backfill process when the N-th embedding request arrives."""

    def __init__(self, server: Any, at: int) -> None:
        self.server, self.at, self.seen, self.pid = server, at, 0, 0
        self.lock = threading.Lock()
        original = server._take_reply

        def take(request: Any, number: int) -> Any:
            if server.route_of(request) == "embeddings" and self.pid:
                with self.lock:
                    self.seen += 1
                    if self.seen == self.at:
                        os.kill(self.pid, signal.SIGKILL)
            return original(request, number)

        server._take_reply = take


@needs_mem0
def test_mem0_backfill_killed_half_way_then_rerun_stores_every_turn_once(hermes_home, mem0_env):
    history = build_history(hermes_home)
    command = [sys.executable, "-m", "hermes_core", "memory", "switch", "mem0", "--backfill", "--yes", "--json"]
    with EmbeddingModelServer(dims=DIMS) as server:
        _mem0_config(hermes_home, server.base_url, infer=False)  # verbatim: one memory per message, countable
        killer = _KillingServer(server, at=60)
        process = subprocess.Popen(command, env=dict(os.environ, HERMES_HOME=str(hermes_home)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killer.pid = process.pid
        process.communicate(timeout=300)
        assert process.returncode == -signal.SIGKILL
        killer.pid = 0
        finished = subprocess.run(command, env=dict(os.environ, HERMES_HOME=str(hermes_home)), capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        provider = _mem0(hermes_home)
        try:
            stored = Counter(record["text"] for record in provider.export_memories())
        finally:
            provider.shutdown()
    assert {t.user: stored[t.user] for t in history} == {t.user: 1 for t in history}


@needs_mem0
@needs_honcho
def test_export_from_mem0_import_into_honcho_and_find_them_there(hermes_home, mem0_env, run_hermes, tmp_path, monkeypatch):
    facts = ["The user's cat is called Miso.", "The user deploys on Thursdays only.", "Staging runs on ferret.example.org."]
    with EmbeddingModelServer(dims=DIMS) as model:
        _mem0_config(hermes_home, model.base_url, infer=False)
        records = tmp_path / "in.jsonl"
        records.write_text("".join(json.dumps({"text": f, "kind": "fact"}) + "\n" for f in facts))
        assert run_hermes("memory", "import", str(records), "--provider", "mem0").exit_code == 0
        exported = tmp_path / "mem0.jsonl"
        assert run_hermes("memory", "export", "--provider", "mem0", str(exported)).exit_code == 0
    assert sorted(json.loads(line)["text"] for line in exported.read_text().splitlines()) == sorted(facts)
    monkeypatch.setenv("HOME", str(tmp_path / "user_home"))
    with HonchoServer() as honcho:
        (hermes_home / "honcho.json").write_text(json.dumps({"baseUrl": honcho.base_url, "workspace": "ws-" + uuid.uuid4().hex[:8], "peerName": "eri", "timeout": 2,
                                                              "hosts": {"hermes": {"aiPeer": "hermes"}}}))
        imported = run_hermes("memory", "import", str(exported), "--provider", "honcho", "--json")
        assert imported.exit_code == 0, imported.stderr
        assert imported.json()["imported"] == len(facts)
        back = tmp_path / "honcho.jsonl"
        assert run_hermes("memory", "export", "--provider", "honcho", str(back)).exit_code == 0
        texts = [json.loads(line)["text"] for line in back.read_text().splitlines()]
        assert all(any(f in t for t in texts) for f in facts), texts


def _honcho_config(home: Path, base_url: str) -> str:
    workspace = "ws-" + uuid.uuid4().hex[:8]
    (home / "honcho.json").write_text(json.dumps({"baseUrl": base_url, "workspace": workspace, "peerName": "eri", "timeout": 2,
                                                  "hosts": {"hermes": {"aiPeer": "hermes"}}}))
    return workspace


def _user_messages(server: Any, workspace: str) -> Counter:
    """What the user peer said, counted (the session each lands in is Honcho's sessionStrategy's choice)."""
    return Counter(m["content"] for m in server.state.messages if m["workspace_id"] == workspace and m["peer_id"] == "eri")


@needs_honcho
def test_switch_to_honcho_sends_every_old_turn_once(hermes_home, run_hermes, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "user_home"))
    history = build_history(hermes_home)
    with HonchoServer() as server:
        workspace = _honcho_config(hermes_home, server.base_url)
        result = run_hermes("memory", "switch", "honcho", "--backfill", "--yes", "--json")
        assert result.exit_code == 0, result.stderr
        assert result.json()["backfill"]["turns_sent"] == len(history)
        stored = _user_messages(server, workspace)
    assert {t.user: stored[t.user] for t in history} == {t.user: 1 for t in history}
    assert not any("secretsubagentword" in content for content in stored)


@needs_honcho
@pytest.mark.parametrize("when", ["before", "after"])
def test_honcho_backfill_killed_at_a_write_then_rerun_stores_every_turn_once(hermes_home, tmp_path, when):
    """SIGKILL from the server on the 25th message write: before storing it, or after (the host resends that one turn)."""
    history = build_history(hermes_home)
    env = dict(os.environ, HERMES_HOME=str(hermes_home), HOME=str(tmp_path / "user_home"))
    command = [sys.executable, "-m", "hermes_core", "memory", "switch", "honcho", "--backfill", "--yes", "--json"]
    with HonchoServer() as server:
        workspace = _honcho_config(hermes_home, server.base_url)
        route, state = server.api.route, {"pid": 0, "writes": 0}

        def route_and_kill(request: Any) -> Any:
            if not (request.method == "POST" and request.path.endswith("/messages") and state["pid"]):
                return route(request)
            state["writes"] += 1
            if state["writes"] != 25:
                return route(request)
            if when == "before":
                os.kill(state["pid"], signal.SIGKILL)
                return 503, {"detail": "the client is gone"}
            answer = route(request)
            os.kill(state["pid"], signal.SIGKILL)
            return answer

        server.api.route = route_and_kill
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        state["pid"] = process.pid
        process.communicate(timeout=300)
        assert process.returncode == -signal.SIGKILL
        state["pid"] = 0
        finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        assert len(json.loads(finished.stdout)["backfill"]["resent_after_interruption"]) == 1
        stored = _user_messages(server, workspace)
    assert {t.user: stored[t.user] for t in history} == {t.user: 1 for t in history}
