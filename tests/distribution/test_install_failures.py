"""Every way an install fails ends in one clear message, a non-zero exit, and nothing changed."""

from __future__ import annotations

import io
import json
import os
import tarfile

import pytest

from distribution_support import package_project, tree_state, write_files

pytestmark = pytest.mark.slow


@pytest.fixture
def lived_in_home(home):
    """A $HERMES_HOME with config, secrets and a lock already in it, as a user's would be."""
    (home / "config.yaml").write_text("plugins:\n  enabled: [something]\nmemory:\n  provider: ''\n")
    (home / ".env").write_text("EXISTING=1\n")
    os.chmod(home / ".env", 0o600)
    lock = {"lock_version": 1, "plugins": {"old": {"spec": "hermes-old", "source": "index", "layout": "package", "distribution": "hermes-old", "version": "1.0", "plugins": ["old"]}}}
    (home / "plugins.lock").write_text(json.dumps(lock))
    return home


def failing_install(venv, home, cwd, *argv, **kwargs):
    """Run an install that must fail; check the venv and home did not change and return stderr."""
    before = (tree_state(venv.root), tree_state(home))
    result = venv.hermes_run("plugins", "install", *argv, home=home, cwd=cwd, **kwargs)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("hermes: error:")]
    assert len(errors) == 1, result.stderr
    assert result.stderr.rstrip().endswith(errors[0])  # the message is the last thing printed
    assert (tree_state(venv.root), tree_state(home)) == before
    return errors[0]


@pytest.mark.parametrize("retries", ["0", "1"])
def test_an_unreachable_index_is_a_network_failure(venv, lived_in_home, tmp_path, retries):
    # The index URL points at a port where nothing listens (see ISOLATED_PIP). pip reports
    # refused connections only when it retries; without retries hermes probes the index itself.
    message = failing_install(venv, lived_in_home, tmp_path, "hermes-greeter", extra_env={"PIP_RETRIES": retries})
    assert "cannot install 'hermes-greeter': pip could not reach the package index http://127.0.0.1:9/simple (network failure)" in message
    assert "-> check the network connection" in message and message.endswith("Nothing was changed.")


def test_a_missing_package_names_where_it_was_looked_for(venv, lived_in_home, wheels, tmp_path):
    message = failing_install(venv, lived_in_home, tmp_path, "hermes-nonexistent>=2", "--no-index", "--find-links", str(wheels.index))
    assert f"no package matching 'hermes-nonexistent>=2' was found on the local package directories ({wheels.index})" in message
    assert "-> check the name and the version constraint" in message


def test_a_version_that_does_not_exist_lists_the_available_ones(venv, lived_in_home, wheels, tmp_path):
    message = failing_install(venv, lived_in_home, tmp_path, "hermes-greeter==9.9", "--no-index", "--find-links", str(wheels.index))
    assert "no package matching 'hermes-greeter==9.9'" in message and "available: 1.0.0, 1.1.0" in message


def test_a_dependency_conflict_is_explained(venv, lived_in_home, wheels, tmp_path):
    message = failing_install(venv, lived_in_home, tmp_path, "hermes-conflict", "--no-index", "--find-links", str(wheels.index))
    assert "pip found no set of versions that satisfies every requirement (a dependency conflict)" in message
    assert "hermes-conflict 1.0 depends on depx==1.0" in message and "depy 1.0 depends on depx==2.0" in message


def test_a_bad_manifest_rolls_back_the_package_and_the_dependency_it_upgraded(venv, lived_in_home, wheels, tmp_path):
    # depx 1.0 is installed; the broken plugin needs depx 2.0, so pip upgrades it before
    # hermes finds the manifest invalid. The rollback must bring depx 1.0 back, file for file.
    seeded = venv.run("-m", "pip", "install", "--no-index", "--find-links", str(wheels.index), "depx==1.0", cwd=tmp_path)
    assert seeded.returncode == 0, seeded.stderr
    message = failing_install(venv, lived_in_home, tmp_path, "hermes-broken", "--no-index", "--find-links", str(wheels.index))
    assert "cannot install 'hermes-broken': plugin 'broken' is invalid: 'provides_hooks': 'nonsense' is not of type 'array'" in message
    assert "-> make 'provides_hooks' an array" in message
    assert [p.name for p in venv.site_packages.glob("depx-*.dist-info")] == ["depx-1.0.dist-info"]


def test_a_bad_manifest_in_a_wheel_is_refused_before_pip_runs(venv, lived_in_home, wheels, tmp_path):
    message = failing_install(venv, lived_in_home, tmp_path, str(wheels.wheel("hermes_broken")))
    assert "plugin 'broken' is invalid: 'provides_hooks'" in message


def test_a_distribution_without_a_plugin_is_uninstalled_again(venv, lived_in_home, wheels, tmp_path):
    message = failing_install(venv, lived_in_home, tmp_path, "plain-library", "--no-index", "--find-links", str(wheels.index))
    assert "the distribution 'plain-library' declares no hermes plugin" in message


def test_a_bad_directory_plugin_leaves_no_plugins_directory_behind(venv, lived_in_home, tmp_path):
    plugin = write_files(tmp_path / "bad", {"plugin.yaml": "name: bad\nrequires_hermes: '>=99'\n", "__init__.py": "def register(ctx):\n    pass\n"})
    message = failing_install(venv, lived_in_home, tmp_path, str(plugin))
    assert "plugin 'bad' is invalid: 'requires_hermes': needs Hermes Agent >=99; this host serves the plugin API of Hermes Agent" in message
    assert not (lived_in_home / "plugins").exists()


def test_a_name_that_escapes_the_plugins_directory_is_refused(venv, lived_in_home, tmp_path):
    plugin = write_files(tmp_path / "sneaky", {"plugin.yaml": "name: ../../escaped\n", "__init__.py": ""})
    message = failing_install(venv, lived_in_home, tmp_path, str(plugin))
    assert "the plugin name '../../escaped' is not a plain directory name" in message
    assert not (tmp_path / "escaped").exists()


def test_a_link_in_the_plugins_directory_pointing_elsewhere_is_not_followed(venv, lived_in_home, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (lived_in_home / "plugins").mkdir()
    (lived_in_home / "plugins" / "linked").symlink_to(outside)
    plugin = write_files(tmp_path / "linked", {"plugin.yaml": "name: linked\n", "__init__.py": ""})
    message = failing_install(venv, lived_in_home, tmp_path, str(plugin), "--force")
    assert f"resolves to {outside}, outside the plugins directory" in message
    assert list(outside.iterdir()) == []


def _tar(path, members):
    with tarfile.open(path, "w:gz") as archive:
        for member, data in members:
            archive.addfile(member, io.BytesIO(data) if data is not None else None)
    return path


@pytest.mark.parametrize(
    ("name", "member", "cause"),
    [
        ("traversal", ("../../evil.py", tarfile.REGTYPE, ""), "'../../evil.py' points outside the archive root"),
        ("link", ("pkg/passwd", tarfile.SYMTYPE, "/etc/passwd"), "'pkg/passwd' is a symlink to '/etc/passwd', outside the archive root"),
    ],
)
def test_an_archive_with_members_escaping_its_root_is_refused(venv, lived_in_home, tmp_path, name, member, cause):
    project = package_project(tmp_path / "project", "hermes-sneaky", "1.0", entry_point="sneaky", manifest="name: sneaky\n")
    members = []
    for file in sorted(p for p in project.rglob("*") if p.is_file()):
        data = file.read_bytes()
        info = tarfile.TarInfo(f"hermes-sneaky-1.0/{file.relative_to(project)}")
        info.size = len(data)
        members.append((info, data))
    bad = tarfile.TarInfo(member[0])
    bad.type, bad.linkname = member[1], member[2]
    members.append((bad, b"" if member[1] == tarfile.REGTYPE else None))
    archive = _tar(tmp_path / f"hermes-sneaky-{name}.tar.gz", members)
    message = failing_install(venv, lived_in_home, tmp_path, str(archive))
    assert f"the archive is unsafe: {cause}" in message
    assert not (tmp_path.parent / "evil.py").exists()


def test_a_package_whose_plugin_takes_a_builtin_key_is_refused_and_rolled_back(venv, lived_in_home, tmp_path):
    from venv_support import build_wheel

    project = package_project(tmp_path / "state-clone", "hermes-state-clone", "1.0", entry_point="state", manifest="name: state\nversion: '1.0'\n")
    message = failing_install(venv, lived_in_home, tmp_path, str(build_wheel(project, tmp_path / "wheels")))
    assert "its plugin key 'state' is the key of a builtin plugin, which always keeps it, so the plugin would never load" in message
    assert "-> rename the entry point 'state' in the 'hermes_agent.plugins' group of hermes-state-clone" in message


def test_a_directory_plugin_named_like_a_builtin_is_refused(venv, lived_in_home, tmp_path):
    plugin = write_files(tmp_path / "mymemory", {"plugin.yaml": "name: memory\nversion: '1.0'\n", "__init__.py": "def register(ctx):\n    pass\n"})
    message = failing_install(venv, lived_in_home, tmp_path, str(plugin))
    assert "its plugin key 'memory' is the key of a builtin plugin" in message and "-> change 'name:' in" in message
    assert not (lived_in_home / "plugins").exists()


def test_two_distributions_declaring_one_plugin_name_are_reported_not_dropped_in_silence(venv, home, tmp_path):
    from venv_support import build_wheel

    first = build_wheel(package_project(tmp_path / "a", "hermes-guard-a", "1.0", entry_point="guard", manifest="name: guard\nversion: '1.0'\n"), tmp_path / "wheels")
    second = build_wheel(package_project(tmp_path / "b", "hermes-guard-b", "2.0", entry_point="guard", manifest="name: guard\nversion: '2.0'\n"), tmp_path / "wheels")
    venv.install(first, second)
    listed = venv.hermes_run("plugins", "list", home=home, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "plugin 'guard' (entrypoint" in listed.stderr and "overrides the entrypoint plugin of the same key" in listed.stderr


def test_a_project_whose_pyproject_is_not_toml_is_named_with_line_and_column(venv, lived_in_home, tmp_path):
    # pip itself raises on such a file ("ERROR: Exception:" and its traceback): the cause is the traceback's last line
    project = write_files(tmp_path / "hermes-kettle", {"pyproject.toml": "[project]\nname = 'hermes-kettle'\nversion = '0.1'\nthis is [not toml\n"})
    message = failing_install(venv, lived_in_home, tmp_path, str(project), "--no-index")
    assert "the project's pyproject.toml is not valid TOML: " in message and "(at line 4, column 6)" in message
    assert "-> fix pyproject.toml at that line and column" in message and "Exception:" not in message


def test_streamed_tracebacks_fold_to_their_exception_line_at_any_depth():
    from hermes_core.distribution.console import Console

    out = io.StringIO()
    console = Console(out=out)
    build_log = [
        "Processing ./kettle", "ERROR: Exception:", "Traceback (most recent call last):", '  File "a.py", line 1, in <module>',
        "    run()", "", "During handling of the above exception, another exception occurred:", "",
        "Traceback (most recent call last):", '  File "b.py", line 2', "pkg.sub.BadThing: first cause",
        "  × Getting requirements to build wheel did not run successfully.", "  ╰─> [3 lines of output]",
        "      Traceback (most recent call last):", '        File "setup.py", line 9', "      ValueError: no version given",
        "      [end of output]", "error: subprocess-exited-with-error",
    ]
    for line in build_log:
        console.stream(line + "\n")
    shown = [line[4:] for line in out.getvalue().splitlines()]
    assert shown == [
        "Processing ./kettle", "ERROR: Exception:", "[a traceback of 8 lines left out]", "pkg.sub.BadThing: first cause",
        "  × Getting requirements to build wheel did not run successfully.", "  ╰─> [3 lines of output]",
        "      [a traceback of 2 lines left out]", "      ValueError: no version given", "      [end of output]", "error: subprocess-exited-with-error",
    ]
    assert "Traceback" not in out.getvalue() and list(console.tail)[-1] == "error: subprocess-exited-with-error"


def test_a_file_that_cannot_be_copied_names_itself_and_nothing_is_installed(run_hermes, hermes_home, tmp_path):
    source = tmp_path / "piped"
    write_files(source, {"plugin.yaml": "name: piped\nversion: '1'\n", "__init__.py": "def register(ctx):\n    pass\n"})
    os.mkfifo(source / "events")
    result = run_hermes("plugins", "install", str(source), "--no-input", "--json")
    assert result.exit_code == 1
    assert result.json()["cause"] == f"cannot install '{source}': {source / 'events'} cannot be copied: is a named pipe"
    assert "[(" not in result.stderr  # was shutil's list of tuples
    assert not (hermes_home / "plugins").exists()
