"""Which Honcho session a conversation lands in and how each peer observes it (no server: the rules alone)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hermes_bundled_plugins.memory.honcho.config import HonchoConfig, load_config
from hermes_bundled_plugins.memory.honcho.sessions import (
    SessionName,
    git_root,
    observation_flags,
    resolve_session_name,
    session_peer_configs,
    user_peer_id,
)


def config(home: Path, **settings: Any) -> HonchoConfig:
    (home / "honcho.json").write_text(json.dumps({"baseUrl": "http://localhost:8000", "workspace": "team ws", **settings}), encoding="utf-8")
    return load_config(home, {})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "my project"
    directory.mkdir()
    return directory


def test_per_directory_is_the_default_and_names_the_directory(hermes_home: Path, project: Path) -> None:
    assert resolve_session_name(config(hermes_home), cwd=project, session_id="s1") == SessionName("my-project", "per-directory")


def test_the_current_directory_is_used_when_none_is_given(hermes_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    assert resolve_session_name(config(hermes_home)) == SessionName("my-project", "per-directory")


@pytest.mark.parametrize(
    ("strategy", "session_id", "expected"),
    [
        ("per-session", "20260415_a3f2b1", SessionName("20260415_a3f2b1", "per-session")),
        ("per-session", "  ", SessionName("my-project", "per-directory (fallback of per-session)")),
        ("per-session", "", SessionName("my-project", "per-directory (fallback of per-session)")),
        ("per-repo", "s1", SessionName("my-project", "per-directory (fallback of per-repo)")),
        ("global", "s1", SessionName("team-ws", "global")),
        ("per-directory", "s1", SessionName("my-project", "per-directory")),
    ],
)
def test_each_strategy(hermes_home: Path, project: Path, strategy: str, session_id: str, expected: SessionName) -> None:
    assert resolve_session_name(config(hermes_home, sessionStrategy=strategy), cwd=project, session_id=session_id) == expected


def test_per_repo_names_the_repository_from_any_directory_inside_it(hermes_home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "hermes-agent"
    (repo / "src" / "deep").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert resolve_session_name(config(hermes_home, sessionStrategy="per-repo"), cwd=repo / "src" / "deep") == SessionName("hermes-agent", "per-repo")
    worktree = tmp_path / "feature"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: /elsewhere\n")  # a worktree: .git is a file
    assert git_root(worktree) == worktree
    assert git_root(repo / "src") == repo and git_root(tmp_path) is None


def test_the_chain_map_then_title_then_gateway_key_then_strategy(hermes_home: Path, project: Path) -> None:
    mapped = config(hermes_home, sessionStrategy="per-session", sessions={str(project): "mapped-name"})
    plain = config(hermes_home, sessionStrategy="per-session")
    kwargs = {"cwd": project, "session_id": "sid", "title": "Sprint 12", "gateway_key": "agent:main:tg:1"}
    assert resolve_session_name(mapped, **kwargs) == SessionName("mapped-name", "manual map (sessions)")
    assert resolve_session_name(plain, **kwargs) == SessionName("Sprint-12", "/title")
    assert resolve_session_name(plain, **{**kwargs, "title": "  "}) == SessionName("agent-main-tg-1", "gateway session key")
    assert resolve_session_name(plain, **{**kwargs, "title": "", "gateway_key": "  "}) == SessionName("sid", "per-session")


def test_the_map_matches_the_same_directory_however_it_is_spelt(hermes_home: Path, project: Path, user_home: Path) -> None:
    home_dir = user_home / "code"
    home_dir.mkdir()
    by_tilde = config(hermes_home, sessions={"~/code": "home-code", "/no/such/dir": "nowhere"})
    assert resolve_session_name(by_tilde, cwd=home_dir) == SessionName("home-code", "manual map (sessions)")
    dotted = config(hermes_home, sessions={str(project / ".." / project.name): "dotted"})
    assert resolve_session_name(dotted, cwd=project) == SessionName("dotted", "manual map (sessions)")
    assert resolve_session_name(dotted, cwd=project / "..").rule == "per-directory"


def test_a_map_entry_that_cannot_be_resolved_is_skipped(hermes_home: Path, project: Path, tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    os.symlink(loop, loop)  # resolving it raises (a symlink loop)
    looped = config(hermes_home, sessions={str(loop / "x"): "never", str(project): "found"})
    assert resolve_session_name(looped, cwd=project) == SessionName("found", "manual map (sessions)")


def test_the_peer_prefix_goes_before_every_rule(hermes_home: Path, project: Path) -> None:
    prefixed = config(hermes_home, sessionPeerPrefix=True)
    assert resolve_session_name(prefixed, cwd=project, user_peer="eri") == SessionName("eri-my-project", "per-directory")
    assert resolve_session_name(prefixed, cwd=project, title="T", user_peer="eri") == SessionName("eri-T", "/title")
    assert resolve_session_name(prefixed, cwd=project, user_peer="") == SessionName("my-project", "per-directory")
    assert resolve_session_name(config(hermes_home), cwd=project, user_peer="eri") == SessionName("my-project", "per-directory")


def test_the_root_directory_has_a_name(hermes_home: Path) -> None:
    assert resolve_session_name(config(hermes_home), cwd=Path("/")) == SessionName("root", "per-directory")


def test_observation_presets_and_granular_flags(hermes_home: Path) -> None:
    every = {"observeMe": True, "observeOthers": True}
    assert observation_flags(config(hermes_home)) == {"user": every, "ai": every}
    assert observation_flags(config(hermes_home, observationMode="unified")) == {
        "user": {"observeMe": True, "observeOthers": False}, "ai": {"observeMe": False, "observeOthers": True}}
    granular = config(hermes_home, observationMode="unified", observation={"ai": {"observeMe": False}})
    assert observation_flags(granular) == {"user": every, "ai": {"observeMe": False, "observeOthers": True}}
    assert session_peer_configs(granular) == {"user": {"observe_me": True, "observe_others": True}, "ai": {"observe_me": False, "observe_others": True}}
    flags = observation_flags(config(hermes_home))
    flags["user"]["observeMe"] = False  # a copy: the preset is not changed for the next caller
    assert observation_flags(config(hermes_home))["user"] == every


def test_the_user_peer_is_the_configured_name_else_the_platform_user_else_user(hermes_home: Path) -> None:
    assert user_peer_id(config(hermes_home, peerName="Eri Smith"), "tg-1") == "Eri-Smith"
    assert user_peer_id(config(hermes_home), "tg:84391") == "tg-84391"
    assert user_peer_id(config(hermes_home)) == "user"


def test_without_a_session_id_or_user_peer_nothing_is_invented(hermes_home: Path, project: Path) -> None:
    """``hermes honcho status`` resolves the name with no hermes session: per-session falls back, no prefix is made up."""
    assert resolve_session_name(config(hermes_home, sessionStrategy="per-session"), cwd=project) == SessionName(
        "my-project", "per-directory (fallback of per-session)")
    assert resolve_session_name(config(hermes_home, sessionPeerPrefix=True), cwd=project) == SessionName("my-project", "per-directory")
