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
    assert spec.text == text and spec.ref == ""


@pytest.mark.parametrize(
    ("text", "location", "ref", "subdir"),
    [
        ("git+file:///srv/repo@v1", "file:///srv/repo", "v1", ""),
        ("git+file:///srv/repo@v1#plugins/x", "file:///srv/repo", "v1", "plugins/x"),
        ("git+https://host/a/b.git@release/2.0#subdirectory=pkg", "https://host/a/b.git", "release/2.0", "pkg"),
        ("git+ssh://git@host/repo.git@1a2b3c4", "ssh://git@host/repo.git", "1a2b3c4", ""),
        ("git@github.com:owner/repo.git@v2", "git@github.com:owner/repo.git", "v2", ""),
        ("https://user@host/repo.git", "https://user@host/repo.git", "", ""),
    ],
)
def test_a_git_url_may_end_in_at_ref_before_the_subdirectory(text, location, ref, subdir):
    spec = parse_spec(text)
    assert (spec.kind, spec.location, spec.ref, spec.subdir) == ("git", location, ref, subdir)
    assert parse_spec(text, ref=ref or "main").ref == (ref or "main")  # --ref may repeat the URL's ref


def test_a_ref_in_the_url_and_a_different_ref_option_are_refused():
    with pytest.raises(SpecError, match="names the ref 'v1' and --ref names 'v2' -> give only one of them"):
        parse_spec("git+file:///srv/repo@v1", ref="v2")
    with pytest.raises(SpecError, match="nothing follows '@'"):
        parse_spec("git+https://host/repo.git@")


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
        ("/nonexistent-hermes-plugin-dir", "no such file or directory"),
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


def test_a_comment_after_a_spec_is_stripped_and_a_subdir_is_not():
    text = "hermes-a==1.0  # pinned: 1.1 breaks\nowner/repo#x # the x plugin\n./plugins/y\t# after a tab\n"
    assert spec_from_lines(text) == ["hermes-a==1.0", "owner/repo#x", "./plugins/y"]


def test_an_invalid_requirement_is_explained_on_one_line(local):
    with pytest.raises(SpecError) as raised:
        parse_spec("hermes-x >= = 1", cwd=local)
    assert "\n" not in str(raised.value) and "is not a package requirement" in str(raised.value)
