"""Files of $HERMES_HOME kept elsewhere and linked in (a dotfiles checkout) stay links when hermes writes them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_core.files import atomic_write_text


@pytest.fixture
def dotfiles(tmp_path: Path) -> Path:
    directory = tmp_path / "dotfiles"
    directory.mkdir()
    return directory


def test_config_set_writes_through_a_linked_config_yaml(run_hermes, hermes_home, dotfiles):
    kept = dotfiles / "config.yaml"
    kept.write_text("model:\n  name: first\n", encoding="utf-8")
    (hermes_home / "config.yaml").symlink_to(kept)

    result = run_hermes("config", "set", "model.name", "second")

    assert result.exit_code == 0, result.stderr
    assert (hermes_home / "config.yaml").is_symlink()
    assert "name: second" in kept.read_text(encoding="utf-8")
    assert run_hermes("config", "get", "model.name").stdout.strip() == "second"


def test_memory_add_writes_through_a_linked_memory_md(run_hermes, hermes_home, dotfiles):
    kept = dotfiles / "MEMORY.md"
    kept.write_text("Deploys go out on Thursdays", encoding="utf-8")
    os.chmod(kept, 0o640)
    (hermes_home / "memories").mkdir()
    (hermes_home / "memories" / "MEMORY.md").symlink_to(kept)

    result = run_hermes("memory", "add", "The build uses make -j4")

    assert result.exit_code == 0, result.stderr
    assert (hermes_home / "memories" / "MEMORY.md").is_symlink()
    assert kept.read_text(encoding="utf-8") == "Deploys go out on Thursdays\n§\nThe build uses make -j4"
    assert kept.stat().st_mode & 0o777 == 0o640  # the linked file keeps the mode its owner gave it
    assert not [p for p in dotfiles.iterdir() if p.name.endswith(".tmp")]


def test_a_link_to_a_file_not_made_yet_creates_it_there(hermes_home, dotfiles):
    link = hermes_home / ".env"
    link.symlink_to(dotfiles / "hermes.env")

    atomic_write_text(link, "HONCHO_API_KEY=k\n", new_mode=0o600)

    assert link.is_symlink() and (dotfiles / "hermes.env").read_text() == "HONCHO_API_KEY=k\n"
    assert (dotfiles / "hermes.env").stat().st_mode & 0o777 == 0o600


def test_a_link_into_a_missing_directory_is_refused_and_nothing_is_created(run_hermes, hermes_home, tmp_path):
    gone = tmp_path / "unmounted" / "config.yaml"
    (hermes_home / "config.yaml").symlink_to(gone)

    with pytest.raises(FileNotFoundError, match=f"symbolic link to {gone}, whose directory does not exist"):
        atomic_write_text(hermes_home / "config.yaml", "a: 1\n")

    assert not gone.parent.exists()
    assert (hermes_home / "config.yaml").is_symlink()


def test_a_link_to_something_that_is_not_a_regular_file_is_never_replaced(hermes_home, tmp_path):
    import stat

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path):
        link = hermes_home / f"linked-{target.name}"
        link.symlink_to(target)
        with pytest.raises(OSError, match=f"symbolic link to {target}, which is not a regular file"):
            atomic_write_text(link, "a: 1\n")
        assert link.is_symlink()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
