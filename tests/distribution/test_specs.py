"""SPEC parsing: every accepted form maps to one kind; everything else is refused with the forms to use."""

from __future__ import annotations

import pytest

from hermes_core.distribution.errors import SpecError
from hermes_core.distribution.specs import parse_spec, spec_from_lines


@pytest.fixture
def local(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text("[project]\nname='x'\n")
    (tmp_path / "dirplug").mkdir()
    (tmp_path / "dirplug" / "plugin.yaml").write_text("name: dirplug\n")
    (tmp_path / "mono" / "plugins" / "a").mkdir(parents=True)
    (tmp_path / "mono" / "plugins" / "a" / "plugin.yaml").write_text("name: a\n")
    (tmp_path / "hermes_x-1.0-py3-none-any.whl").write_bytes(b"")
    (tmp_path / "hermes-x-1.0.tar.gz").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "kind", "location", "subdir", "distribution"),
    [
        ("hermes-weather", "requirement", "hermes-weather", "", "hermes-weather"),
        ("Hermes_Weather==1.2", "requirement", "Hermes_Weather==1.2", "", "hermes-weather"),
        ("hermes-weather>=1", "requirement", "hermes-weather>=1", "", "hermes-weather"),
        ("owner/repo", "git", "https://github.com/owner/repo.git", "", ""),
        ("owner/repo.git#plugins/x", "git", "https://github.com/owner/repo.git", "plugins/x", ""),
        ("https://host/a/b.git", "git", "https://host/a/b.git", "", ""),
        ("git+https://host/a/b.git#subdirectory=pkg", "git", "https://host/a/b.git", "pkg", ""),
        ("git@github.com:owner/repo.git", "git", "git@github.com:owner/repo.git", "", ""),
        ("ssh://git@host/repo.git", "git", "ssh://git@host/repo.git", "", ""),
        ("file:///srv/repos/notes#sub/dir", "git", "file:///srv/repos/notes", "sub/dir", ""),
    ],
)
def test_remote_and_requirement_forms(text, kind, location, subdir, distribution, local):
    spec = parse_spec(text, cwd=local)
    assert (spec.kind, spec.location, spec.subdir, spec.distribution) == (kind, location, subdir, distribution)
    assert spec.text == text


@pytest.mark.parametrize(
    ("text", "kind", "relative"),
    [
        ("./proj", "project", "proj"),
        ("./dirplug", "directory", "dirplug"),
        ("./mono#plugins/a", "directory", "mono/plugins/a"),
        ("hermes_x-1.0-py3-none-any.whl", "wheel", "hermes_x-1.0-py3-none-any.whl"),
        ("./hermes-x-1.0.tar.gz", "archive", "hermes-x-1.0.tar.gz"),
    ],
)
def test_local_forms_resolve_to_absolute_paths(text, kind, relative, local):
    spec = parse_spec(text, cwd=local)
    assert spec.kind == kind and spec.location == str(local / relative)
    assert spec.source == "path"


def test_an_existing_directory_with_a_slash_wins_over_the_github_shorthand(local):
    (local / "owner" / "repo").mkdir(parents=True)
    (local / "owner" / "repo" / "plugin.yaml").write_text("name: r\n")
    assert parse_spec("owner/repo", cwd=local).kind == "directory"


def test_a_file_url_to_a_wheel_is_a_local_wheel(local):
    spec = parse_spec(f"file://{local}/hermes_x-1.0-py3-none-any.whl", cwd=local)
    assert spec.kind == "wheel" and spec.distribution == "hermes-x"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "an empty SPEC"),
        ("./missing", "no such file or directory"),
        ("./notes.txt", "is a file but not a wheel"),
        (".", "neither a Python project"),
        ("owner/repo#../../etc", "must be a relative path inside the source"),
        ("owner/repo#/abs", "must be a relative path inside the source"),
        ("not a spec!", "is not a package requirement, an existing path, or a git URL"),
        ("hermes-x#sub", "'#subdir' only applies to git URLs and local paths"),
    ],
)
def test_refused_specs_say_what_to_write(text, message, local):
    with pytest.raises(SpecError, match=message.replace("(", r"\(")):
        parse_spec(text, cwd=local)


def test_ref_is_only_for_git(local):
    assert parse_spec("owner/repo", ref="v1").ref == "v1"
    with pytest.raises(SpecError, match="--ref applies to git sources only"):
        parse_spec("hermes-x", ref="v1", cwd=local)


def test_a_requirements_file_skips_comments_and_blank_lines():
    assert spec_from_lines("# plugins\nhermes-a\n\n  owner/repo#x  \n# done\n") == ["hermes-a", "owner/repo#x"]
