"""The plugin template, from the installed wheel: every kind generates, installs, passes its own tests, loads."""

from __future__ import annotations

import ast
import re
import tomllib

import pytest
import yaml

from distribution_support import PluginVenv
from venv_support import REPO_ROOT

pytestmark = pytest.mark.slow

COMMON_FILES = {
    ".github/workflows/publish.yml",
    ".github/workflows/test.yml",
    ".gitignore",
    "README.md",
    "pyproject.toml",
    "src/{module}/__init__.py",
    "src/{module}/plugin.yaml",
    "tests/test_{name}.py",
}

KINDS = {
    # kind: (extra files, what `list --json --load` shows, the setting that turns it on, entry-point group)
    "hooks": (set(), {"hooks": ["on_session_start", "pre_tool_call"], "tools": []}, "plugins.enabled", "hermes_agent.plugins"),
    "tools": (set(), {"hooks": [], "tools": ["{name}_word_count"]}, "plugins.enabled", "hermes_agent.plugins"),
    "memory-provider": ({"src/{module}/provider.py"}, {"memory_providers": ["{name}"], "hooks": []}, "memory.provider", "hermes_agent.memory_providers"),
    "context-engine": ({"src/{module}/engine.py"}, {"hooks": [], "tools": []}, "context.engine", "hermes_agent.plugins"),
}


@pytest.fixture(scope="module")
def template_venv(prepared_venv, tmp_path_factory) -> PluginVenv:
    """One venv for every kind: each project is a distinct distribution."""
    return PluginVenv.clone_of(prepared_venv, tmp_path_factory.mktemp("template") / "venv")


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_generates_installs_passes_its_own_tests_and_loads(kind, template_venv, tmp_path):
    name = f"demo_{kind.replace('-', '_')}"
    module = f"hermes_{name}"
    home = tmp_path / "home"
    home.mkdir()
    # `new` runs from the venv's non-editable install: the template comes out of the wheel.
    assert (template_venv.site_packages / "hermes_plugin_template" / "cookiecutter.json").is_file()
    created = template_venv.hermes_run("plugins", "new", name, "--kind", kind, "--no-input", "--description", "A test plugin.", home=home, cwd=tmp_path)
    assert created.returncode == 0, created.stdout + created.stderr
    project = tmp_path / f"hermes-{name.replace('_', '-')}"
    extra, shown, setting, group = KINDS[kind]
    generated = {str(p.relative_to(project)) for p in project.rglob("*") if p.is_file()}
    assert generated == {f.format(module=module, name=name) for f in COMMON_FILES | extra}
    pyproject = (project / "pyproject.toml").read_text()
    assert f'[project.entry-points."{group}"]\n{name} = "{module}"' in pyproject
    assert 'description = "A test plugin."' in pyproject

    validated = template_venv.hermes_run("plugins", "validate", str(project / "src" / module), home=home, cwd=tmp_path)
    assert validated.returncode == 0 and validated.stdout.startswith(f"ok   {name} 0.1.0"), validated.stdout
    installed = template_venv.hermes_run("plugins", "install", str(project), "--enable", "--no-build-isolation", "--no-index", home=home, cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    own_tests = template_venv.pytest(project / "tests", cwd=project)
    assert own_tests.returncode == 0, own_tests.stdout + own_tests.stderr
    assert " passed" in own_tests.stdout and "failed" not in own_tests.stdout
    if kind == "memory-provider":  # the contract kit runs as part of the project's suite
        assert own_tests.stdout.count("::TestProviderContract::") >= 5, own_tests.stdout

    entry = template_venv.listing(home, tmp_path)[name]
    assert entry["loaded"] is True and entry["error"] is None
    assert entry["source"] == "entrypoint" and entry["install"]["source"] == "path"
    for field, value in shown.items():
        assert entry[field] == [v.format(name=name) for v in value], field
    config = yaml.safe_load((home / "config.yaml").read_text())
    group, _, leaf = setting.partition(".")
    assert name in ([config[group][leaf]] if group != "plugins" else config[group][leaf])


def test_new_refuses_a_name_that_cannot_be_a_plugin_key(run_hermes, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    result = run_hermes("plugins", "new", "9lives", "--no-input", "-o", str(out))
    assert result.exit_code == 1
    assert "'9lives' cannot be a plugin name for a new project: it must start with an ASCII letter" in result.stderr
    assert list(out.iterdir()) == []
    # a name a published plugin may carry (see test_plugin_names) is still no PyPI project name: the
    # message says why instead of claiming 'é' is no letter
    accented = run_hermes("plugins", "new", "Café", "--no-input", "-o", str(out))
    assert accented.exit_code == 1 and "ASCII letters" in accented.stderr and "PyPI project" in accented.stderr
    assert list(out.iterdir()) == []


def test_new_refuses_to_overwrite_an_existing_project(run_hermes, tmp_path):
    (tmp_path / "hermes-taken").mkdir()
    result = run_hermes("plugins", "new", "taken", "--no-input", "-o", str(tmp_path))
    assert result.exit_code == 1 and "hermes-taken already exists" in result.stderr
    assert list((tmp_path / "hermes-taken").iterdir()) == []


@pytest.mark.parametrize("kind", ["hooks", "context-engine"])
def test_quotes_and_backslashes_in_the_values_are_escaped_in_every_file(run_hermes, tmp_path, kind):
    description = 'He said "hi": yes \\ no # not a comment \'single\' \u00e9\t"'
    author = 'O\'Brien "Q"'
    result = run_hermes("plugins", "new", "quoting", "--kind", kind, "--no-input", "-o", str(tmp_path), "--description", description, "--author", author)
    assert result.exit_code == 0, result.stderr
    project = tmp_path / "hermes-quoting"
    package = project / "src" / "hermes_quoting"
    pyproject = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    assert pyproject["description"] == description and pyproject["authors"][0]["name"] == author
    manifest = yaml.safe_load((package / "plugin.yaml").read_text())
    assert (manifest["description"], manifest["author"]) == (description, author)
    for source in project.rglob("*.py"):
        ast.parse(source.read_text(), str(source))
    assert ast.get_docstring(ast.parse((package / "__init__.py").read_text()), clean=False) == description
    for workflow in (project / ".github" / "workflows").glob("*.yml"):
        assert yaml.safe_load(workflow.read_text())["jobs"], workflow
    validated = run_hermes("plugins", "validate", str(package))
    assert validated.exit_code == 0 and validated.stdout.startswith("ok   quoting 0.1.0"), validated.stdout + validated.stderr


def test_a_description_on_two_lines_is_refused(run_hermes, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    result = run_hermes("plugins", "new", "twolines", "--no-input", "-o", str(out), "--description", "one\ntwo")
    assert result.exit_code == 1 and "the description must be one line" in result.stderr
    assert list(out.iterdir()) == []


def test_the_authoring_tutorial_works_as_written(template_venv, tmp_path):
    """docs/authoring.md steps 1-3: generate, replace __init__.py, plugin.yaml and the tests, install -e, test."""
    blocks = re.findall(r"```(python|yaml)\n(.*?)```", (REPO_ROOT / "docs" / "authoring.md").read_text(), re.DOTALL)
    assert [language for language, _ in blocks] == ["python", "yaml", "python"]
    (_, init), (_, manifest), (_, tests) = blocks
    home = tmp_path / "home"
    home.mkdir()
    created = template_venv.hermes_run("plugins", "new", "rm_guard", "--kind", "hooks", "--description", "Blocks rm -rf in terminal calls", "--no-input", home=home, cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    project = tmp_path / "hermes-rm-guard"
    (project / "src" / "hermes_rm_guard" / "__init__.py").write_text(init)
    (project / "src" / "hermes_rm_guard" / "plugin.yaml").write_text(manifest)
    (project / "tests" / "test_rm_guard.py").write_text(tests)
    # `pip install -e '.[test]'` of step 1; hermes-host and pytest are already in this environment.
    editable = template_venv.run("-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-e", str(project), cwd=tmp_path)
    assert editable.returncode == 0, editable.stdout + editable.stderr
    validated = template_venv.hermes_run("plugins", "validate", "src/hermes_rm_guard", home=home, cwd=project)
    assert validated.stdout.startswith("ok   rm_guard 0.1.0 (standalone) src/hermes_rm_guard"), validated.stdout + validated.stderr
    own_tests = template_venv.pytest(project / "tests", cwd=project)
    assert own_tests.returncode == 0 and " 3 passed" in own_tests.stdout, own_tests.stdout + own_tests.stderr


def test_new_asks_nothing_when_stdin_is_not_a_terminal(run_hermes, tmp_path):
    result = run_hermes("plugins", "new", "quiet_one", "--kind", "tools", "-o", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert "EOFError" not in result.stderr and (tmp_path / "hermes-quiet-one" / "pyproject.toml").is_file()


def test_new_at_a_terminal_asks_only_for_what_was_not_given(tmp_path):
    """A real pseudo-terminal: the name and kind given as arguments are never asked again."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = {**os.environ, "HERMES_HOME": str(tmp_path / "home"), "TERM": "dumb"}
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_core", "plugins", "new", "tty_one", "--kind", "tools", "--author", "Ann", "-o", str(tmp_path)],
        stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True,
    )
    import select
    import time

    os.close(follower)
    os.write(leader, b"Guards rm -rf\n")
    output = b""
    deadline = time.monotonic() + 120  # a prompt nobody answers (a re-asked name) would wait forever
    waiting = False
    while True:
        ready, _, _ = select.select([leader], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            waiting = True
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        output += chunk
    if waiting:
        process.kill()
        process.wait()
        pytest.fail(f"hermes plugins new was still waiting for input: {output.decode('utf-8', 'replace')[-300:]!r}")
    assert process.wait() == 0, output
    os.close(leader)
    text = output.decode("utf-8", "replace")
    assert text.count("[") >= 1 and "one line saying what the plugin does" in text
    assert "plugin_name" not in text and "kind" not in text.split("created")[0] and "author name" not in text
    pyproject = (tmp_path / "hermes-tty-one" / "pyproject.toml").read_text()
    assert "Guards rm -rf" in pyproject and "Ann" in pyproject


def test_new_into_a_file_names_the_file_and_writes_nothing(run_hermes, tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me\n", encoding="utf-8")
    result = run_hermes("plugins", "new", "filed", "--no-input", "-o", str(a_file), "--json")
    assert result.exit_code == 1
    assert result.json()["cause"] == f"--output-dir {a_file} is a file, not a directory"
    assert "Traceback" not in result.stderr and "OSError" not in result.stderr
    assert a_file.read_text(encoding="utf-8") == "keep me\n"

