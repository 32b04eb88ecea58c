"""`hermes plugins validate` on directories, projects and wheels: what is found, what is refused, and
what each report says (called in-process through ``validate_path`` and the CLI)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from hermes_core._version import __version__
from hermes_core.errors import HermesError
from hermes_core.validate import validate_path, validate_wheel

REGISTER = "def register(ctx): pass\n"


def _plugin(directory: Path, manifest: str = "name: demo\nversion: 1.0\n", code: str | None = REGISTER, manifest_name: str = "plugin.yaml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / manifest_name).write_text(manifest)
    if code is not None:
        (directory / "__init__.py").write_text(code)
    return directory


def _wheel(path: Path, members: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _dist(entry_points: str, **members: str | bytes) -> dict[str, str | bytes]:
    return {"demo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n", "demo-1.0.dist-info/entry_points.txt": entry_points, **members}


# --- directories and projects --------------------------------------------------------------


def test_a_clean_directory_gives_a_clean_report_in_json(tmp_path):
    (report,) = validate_path(_plugin(tmp_path / "demo", "name: demo\nversion: 1.0\nkind: backend\n"))
    assert report.as_dict() == {
        "name": "demo",
        "location": str(tmp_path / "demo"),
        "version": "1.0",
        "kind": "backend",
        "ok": True,
        "problems": [],
        "warnings": [],
    }


@pytest.mark.parametrize(
    "code",
    ["def register(ctx):\n    pass\n", "async def register(ctx):\n    pass\n", "  def register (ctx): pass\n", "from hermes_core import hookimpl\n@hookimpl\ndef on_session_start(session_id): pass\n"],
)
def test_a_register_function_or_hookimpl_is_recognised(tmp_path, code):
    (report,) = validate_path(_plugin(tmp_path / "demo", code=code))
    assert report.warnings == []


@pytest.mark.parametrize("code", ["X = 1\n", "def registered(ctx): pass\n", "register = None\n", "# def register(ctx) comes later\n"])
def test_a_plugin_that_would_do_nothing_is_warned_about(tmp_path, code):
    (report,) = validate_path(_plugin(tmp_path / "demo", code=code))
    assert report.warnings == ["plugin 'demo': __init__.py defines neither register(ctx) nor @hookimpl functions, so it would do nothing"]


def test_a_directory_report_keeps_manifest_warnings_and_problems_beside_its_own(tmp_path):
    directory = _plugin(tmp_path / "demo", "name: demo\nodd_key: 1\nprovides_hooks: sideways\n", code="X = 1\n")
    (report,) = validate_path(directory)
    assert [p.source for p in report.problems] == ["path"] and report.problems[0].field == "provides_hooks"
    assert len(report.warnings) == 2 and "unknown key(s) 'odd_key'" in report.warnings[0] and "would do nothing" in report.warnings[1]


def test_an_init_file_that_is_not_utf8_is_read_anyway(tmp_path):
    directory = _plugin(tmp_path / "demo", code=None)
    (directory / "__init__.py").write_bytes(b"# caf\xe9\ndef register(ctx): pass\n")
    (report,) = validate_path(directory)
    assert report.warnings == [] and report.problems == []


def test_the_manifest_file_itself_may_be_given(tmp_path):
    directory = _plugin(tmp_path / "demo", manifest_name="plugin.yml")
    (report,) = validate_path(directory / "plugin.yml")
    assert report.location == str(directory) and report.name == "demo" and report.as_dict()["ok"] is True


def test_a_project_is_searched_for_plugins_but_not_its_build_or_hidden_trees(tmp_path):
    project = tmp_path / "project"
    _plugin(project / "src" / "pkg" / "one", "name: one\n")
    _plugin(project / "src" / "two", "name: two\n")
    for skipped in ("build", "dist", ".venv", "venv", "node_modules", ".git", ".hidden", "__pycache__", ".tox"):
        _plugin(project / skipped / "copy", "name: copy\n")
    _plugin(project / "a" / "b" / "c" / "d" / "e", "name: too_deep\n")
    _plugin(project / "a" / "b" / "c" / "d2", "name: deep_enough\n")
    assert sorted(r.name for r in validate_path(project)) == ["deep_enough", "one", "two"]


def test_a_plugin_directory_is_not_searched_below_itself(tmp_path):
    outer = _plugin(tmp_path / "outer", "name: outer\n")
    _plugin(outer / "inner", "name: inner\n")
    assert [r.name for r in validate_path(outer)] == ["outer"]


def test_a_path_that_is_no_plugin_is_an_error_with_a_fix(tmp_path):
    with pytest.raises(HermesError, match=r"does not exist -> give a plugin directory, a project directory or a \.whl file"):
        validate_path(tmp_path / "missing")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(HermesError, match="is neither a plugin directory nor a wheel -> give the directory that holds plugin.yaml"):
        validate_path(tmp_path / "notes.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(HermesError, match=r"no plugin.yaml found in .*empty \(searched 4 levels deep\), and no pyproject.toml there "
                                          r"declares an entry point in 'hermes_agent.plugins' or 'hermes_agent.memory_providers' "
                                          r"-> run 'hermes plugins new'"):
        validate_path(tmp_path / "empty")


def test_a_home_relative_path_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    _plugin(tmp_path / "demo")
    assert [r.location for r in validate_path(Path("~/demo"))] == [str(tmp_path / "demo")]


# --- wheels ----------------------------------------------------------------------------------


def test_a_wheel_plugin_with_plugin_yaml_is_read_from_the_archive(tmp_path):
    wheel = _wheel(
        tmp_path / "demo-1.0-py3-none-any.whl",
        _dist("[hermes_agent.plugins]\ndemo = demo_pkg\n", **{"demo_pkg/__init__.py": REGISTER, "demo_pkg/plugin.yaml": "name: demo\nversion: 3.1\nkind: backend\nodd_key: 1\n"}),
    )
    (report,) = validate_path(wheel)
    assert (report.name, report.version, report.kind, report.problems) == ("demo", "3.1", "backend", [])
    assert report.location == f"{wheel.name}!demo_pkg"
    assert report.warnings == [f"plugin 'demo' (path, {wheel.name}!demo_pkg/plugin.yaml): unknown key(s) 'odd_key' in plugin.yaml are ignored"]


def test_a_wheel_manifest_problem_names_the_member(tmp_path):
    wheel = _wheel(
        tmp_path / "demo-1.0-py3-none-any.whl",
        _dist("[hermes_agent.plugins]\ndemo = demo.sub\n", **{"demo/sub/__init__.py": REGISTER, "demo/sub/plugin.yml": "name: demo\nprovides_hooks: nonsense\n"}),
    )
    (report,) = validate_wheel(wheel)
    (problem,) = report.problems
    assert problem.field == "provides_hooks" and problem.path == f"{wheel.name}!demo/sub/plugin.yml" and problem.source == "path"
    assert (report.name, report.kind) == ("demo", "standalone")


def test_a_wheel_plugin_without_plugin_yaml_takes_its_kind_from_the_group(tmp_path):
    wheel = _wheel(
        tmp_path / "demo-1.0-py3-none-any.whl",
        _dist(
            "[hermes_agent.plugins]\ngeneral = demo_general\n\n[hermes_agent.memory_providers]\nvault = demo_vault:register\n",
            **{"demo_general/__init__.py": "X = 1\n", "demo_vault.py": "X = 1\n"},
        ),
    )
    general, vault = validate_wheel(wheel)  # the general group is read first
    assert (general.name, general.kind, vault.name, vault.kind) == ("general", "standalone", "vault", "exclusive")
    assert general.location == f"{wheel.name}!demo_general" and vault.location == f"{wheel.name}!demo_vault"
    assert general.warnings[0].startswith("plugin 'general': no plugin.yaml next to demo_general; name and version come from the package metadata")
    # a general entry point that names the package must define register(ctx); one naming a function is trusted
    assert general.warnings[1] == "plugin 'general': __init__.py defines neither register(ctx) nor @hookimpl functions, so it would do nothing"
    assert len(vault.warnings) == 1


def test_a_wheel_with_only_memory_providers_is_read(tmp_path):
    wheel = _wheel(tmp_path / "d-1.0-py3-none-any.whl", _dist("[hermes_agent.memory_providers]\nvault = demo_vault\n", **{"demo_vault/__init__.py": REGISTER}))
    (report,) = validate_wheel(wheel)
    assert (report.name, report.kind, report.problems) == ("vault", "exclusive", [])


def test_wheel_plugin_yaml_details_are_checked_like_a_directorys(tmp_path):
    wheel = _wheel(
        tmp_path / "d-1.0-py3-none-any.whl",
        _dist(
            "[hermes_agent.plugins]\nnameless = p_nameless\nmem = p_mem\nneedy = p_needy\nbroken = p_broken\nlatin = p_latin\n",
            **{
                "p_nameless/__init__.py": REGISTER, "p_nameless/plugin.yaml": "version: 1.0\n",
                "p_mem/__init__.py": "from hermes_core import MemoryProvider\n" + REGISTER, "p_mem/plugin.yaml": "name: mem\n",
                "p_needy/__init__.py": "import hermes_core  # written for hermes: requires_hermes speaks of its version\n" + REGISTER, "p_needy/plugin.yaml": "name: needy\nrequires_hermes: '>=999'\n",
                "p_broken/__init__.py": REGISTER, "p_broken/plugin.yaml": "name: [unclosed\n",
                "p_latin/__init__.py": b"# caf\xe9\n" + REGISTER.encode(), "p_latin/plugin.yaml": b"name: latin\ndescription: caf\xe9\n",
            },
        ),
    )
    reports = {r.location.split("!")[1]: r for r in validate_wheel(wheel)}
    assert reports["p_nameless"].name == "nameless"
    assert reports["p_mem"].kind == "exclusive"
    assert f"this is hermes {__version__}" in reports["p_needy"].problems[0].cause
    broken = reports["p_broken"]
    assert (broken.name, broken.version, broken.kind) == ("broken", "", "") and "not valid YAML" in broken.problems[0].cause
    # an __init__.py that is not UTF-8 is still read for the kind; a plugin.yaml that is not UTF-8 is refused by offset
    (latin,) = reports["p_latin"].problems
    assert latin.path == "d-1.0-py3-none-any.whl!p_latin/plugin.yaml" and "not UTF-8" in latin.cause and "offset 28" in latin.cause
    assert "re-save plugin.yaml as UTF-8" in latin.fix


def test_entry_point_names_with_a_colon_and_values_with_a_percent_are_read_as_written(tmp_path):
    wheel = _wheel(tmp_path / "d-1.0-py3-none-any.whl", _dist("[hermes_agent.plugins]\nns:tool = demo:setup_100%\n", **{"demo/__init__.py": REGISTER}))
    (report,) = validate_wheel(wheel)
    assert report.name == "ns:tool" and report.problems == []


def test_a_general_entry_point_naming_a_function_is_not_checked_for_register(tmp_path):
    wheel = _wheel(tmp_path / "d-1.0-py3-none-any.whl", _dist("[hermes_agent.plugins]\nfn = demo_fn:setup\n", **{"demo_fn/__init__.py": "def setup(ctx): pass\n"}))
    (report,) = validate_wheel(wheel)
    assert not any("would do nothing" in w for w in report.warnings)


def test_an_entry_point_to_a_module_the_wheel_lacks_is_a_problem(tmp_path):
    wheel = _wheel(tmp_path / "d-1.0-py3-none-any.whl", _dist("[hermes_agent.plugins]\nghost = not_here.sub:register\n", **{"other/__init__.py": ""}))
    (report,) = validate_wheel(wheel)
    (problem,) = report.problems
    assert report.name == "ghost" and report.location == f"{wheel.name}!not_here/sub"
    assert (problem.plugin, problem.source, problem.path) == ("ghost", "path", f"{wheel.name}!not_here/sub")
    assert problem.cause == "entry point ghost = not_here.sub:register names module 'not_here.sub', which the wheel does not contain"
    assert problem.field == "entry-points" and problem.fix == "fix the entry point or include the package in the wheel"


def test_a_wheel_without_hermes_entry_points_is_a_problem(tmp_path):
    for entry_points in ("[console_scripts]\ndemo = demo:main\n", None):
        members = _dist(entry_points or "", **{"demo/__init__.py": ""})
        if entry_points is None:
            del members["demo-1.0.dist-info/entry_points.txt"]
        wheel = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", members)
        (report,) = validate_wheel(wheel)
        (problem,) = report.problems
        assert (report.name, report.location) == (wheel.name, str(wheel))
        assert (problem.plugin, problem.source, problem.path, problem.field) == (wheel.name, "path", str(wheel), "entry-points")
        assert problem.cause == "the wheel declares no entry point in 'hermes_agent.plugins' or 'hermes_agent.memory_providers'"
        assert problem.fix == 'add [project.entry-points."hermes_agent.plugins"] <name> = "<package>" to pyproject.toml'


def test_only_the_top_level_dist_info_declares_entry_points(tmp_path):
    members = _dist("[console_scripts]\nx = y\n", **{"demo/__init__.py": REGISTER, "vendored/other-1.0.dist-info/entry_points.txt": "[hermes_agent.plugins]\nother = demo\n"})
    (report,) = validate_wheel(_wheel(tmp_path / "demo-1.0-py3-none-any.whl", members))
    assert "declares no entry point" in report.problems[0].cause


def test_entry_point_names_keep_their_case_and_values_are_stripped(tmp_path):
    wheel = _wheel(tmp_path / "d-1.0-py3-none-any.whl", _dist("[hermes_agent.plugins]\nMixedCase =   demo  \n", **{"demo/__init__.py": REGISTER}))
    (report,) = validate_wheel(wheel)
    assert report.name == "MixedCase" and report.problems == []


@pytest.mark.parametrize(
    ("entry_points", "cause"),
    [
        (b"[hermes_agent.plugins]\nd = demo\xff\n", "demo-1.0.dist-info/entry_points.txt is not UTF-8"),
        (b"no section header\n", "demo-1.0.dist-info/entry_points.txt cannot be parsed (MissingSectionHeaderError: File contains no section headers.)"),
    ],
)
def test_an_unreadable_entry_points_file_is_one_problem(tmp_path, entry_points, cause):
    wheel = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", _dist(entry_points, **{"demo/__init__.py": REGISTER}))  # type: ignore[arg-type]
    (report,) = validate_wheel(wheel)
    (problem,) = report.problems
    assert problem.cause == cause and problem.field == "entry-points" and (problem.plugin, problem.source) == (wheel.name, "path")
    assert report.location == str(wheel)
    assert problem.fix == 'declare entry points in pyproject.toml ([project.entry-points."..."]) and rebuild the wheel with \'python -m build\''
    assert problem.path == f"{wheel}!demo-1.0.dist-info/entry_points.txt"
    assert "rebuild the wheel with 'python -m build'" in problem.fix and report.name == wheel.name


def test_a_file_that_is_not_a_wheel_is_an_error_with_a_fix(tmp_path):
    fake = tmp_path / "fake-1.0-py3-none-any.whl"
    fake.write_text("not a zip")
    with pytest.raises(HermesError, match=r"not a readable wheel .* -> build it again with 'python -m build'"):
        validate_path(fake)


@pytest.mark.parametrize("member", ["../up.py", "/abs.py", "\\windows.py", "C:/drive.py", "a/../../b.py"])
def test_unsafe_members_are_reported_on_the_first_report(tmp_path, member):
    wheel = _wheel(
        tmp_path / "demo-1.0-py3-none-any.whl",
        _dist("[hermes_agent.plugins]\na = demo\nb = demo\n", **{"demo/__init__.py": REGISTER, member: "x"}),
    )
    first, second = validate_wheel(wheel)
    (problem,) = first.problems
    assert problem.cause == f"archive members escape the install root: {member}" and problem.fix == "rebuild the wheel from a clean tree"
    assert (problem.plugin, problem.source, problem.path, problem.field) == ("a", "path", str(wheel), "")
    assert second.problems == []


def test_safe_members_with_dots_and_colons_later_in_the_path_are_accepted(tmp_path):
    wheel = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", _dist("[hermes_agent.plugins]\na = demo\n", **{"demo/__init__.py": REGISTER, "demo/..data": "x", "demo/a:b.txt": "x"}))
    (report,) = validate_wheel(wheel)
    assert report.problems == []


def test_at_most_five_unsafe_members_are_listed(tmp_path):
    evil = {f"../evil{i}.py": "x" for i in range(7)}
    (report,) = validate_wheel(_wheel(tmp_path / "demo-1.0-py3-none-any.whl", _dist("[hermes_agent.plugins]\na = demo\n", **{"demo/__init__.py": REGISTER}, **evil)))
    assert report.problems[0].cause == "archive members escape the install root: " + ", ".join(f"../evil{i}.py" for i in range(5))


def test_the_cli_exits_one_on_problems_and_zero_when_clean(tmp_path, run_hermes):
    good = _plugin(tmp_path / "good")
    assert run_hermes("plugins", "validate", str(good)).exit_code == 0
    bad = _plugin(tmp_path / "bad", "name: bad\nprovides_hooks: nope\n")
    result = run_hermes("plugins", "validate", str(bad), "--json")
    assert result.exit_code == 1 and result.json()[0]["problems"][0]["field"] == "provides_hooks"
    needs = _plugin(tmp_path / "needs", "name: needs\nrequires_hermes: '>=999'\n", code="import hermes_core\n" + REGISTER)
    assert f"this is hermes {__version__}" in run_hermes("plugins", "validate", str(needs)).stdout


def test_a_wheel_report_takes_the_manifests_name_and_reads_a_plain_module_that_is_not_utf8(tmp_path):
    wheel = _wheel(
        tmp_path / "d-1.0-py3-none-any.whl",
        _dist(
            "[hermes_agent.plugins]\nshort = demo_named\nsingle = demo_single\n",
            **{"demo_named/__init__.py": REGISTER, "demo_named/plugin.yaml": "name: the_long_name\n", "demo_single.py": b"# caf\xe9\n" + REGISTER.encode()},
        ),
    )
    named, single = validate_wheel(wheel)
    assert named.name == "the_long_name" and named.location == f"{wheel.name}!demo_named"
    assert single.name == "single" and single.problems == [] and not any("would do nothing" in w for w in single.warnings)


def _project(root: Path, pyproject: str, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(pyproject)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_source_project_is_validated_through_its_entry_points_as_an_install_would(tmp_path, run_hermes):
    project = _project(tmp_path / "weather", """
[project]
name = "hermes-weather"
version = "0.3.0"
[project.entry-points."hermes_agent.plugins"]
weather = "hermes_weather [fast]"
[project.entry-points."hermes_agent.memory_providers"]
notes = "hermes_weather.notes:NotesProvider [cloud]"
""", {"src/hermes_weather/__init__.py": REGISTER,
      "src/hermes_weather/notes.py": "class NotesProvider(MemoryProvider):\n    pass\n"})
    weather, notes = validate_path(project)
    assert (weather.name, weather.kind, weather.problems) == ("weather", "standalone", [])
    assert weather.location == f"{project / 'src'}/hermes_weather"
    assert weather.warnings == ["plugin 'weather': no plugin.yaml next to hermes_weather; name and version come from the package "
                                "metadata (ship plugin.yaml as package data to declare hooks, tools and requirements)"]
    assert (notes.name, notes.kind, notes.problems) == ("notes", "exclusive", [])
    result = run_hermes("plugins", "validate", str(project), "--json")
    assert result.exit_code == 0 and [r["name"] for r in result.json()] == ["weather", "notes"]


def test_a_project_entry_point_reads_the_manifest_beside_a_flat_module_and_names_a_missing_one(tmp_path, run_hermes):
    project = _project(tmp_path / "flat", """
[tool.poetry.plugins."hermes_agent.plugins"]
tidy = "tidy_plugin"
gone = "not_written"
""", {"tidy_plugin.py": "def helper(): pass\n"})
    tidy, gone = validate_path(project)
    assert tidy.problems == [] and tidy.warnings[-1] == ("plugin 'tidy': __init__.py defines neither register(ctx) nor "
                                                         "@hookimpl functions, so it would do nothing")
    (problem,) = gone.problems
    assert problem.cause == f"entry point gone = not_written names module 'not_written', which is not in {project} (nor in its src/)"
    assert problem.fix == "fix the entry point in pyproject.toml or move the package there"
    result = run_hermes("plugins", "validate", str(project))
    assert result.exit_code == 1 and "not_written" in result.stdout + result.stderr


def test_a_project_manifest_next_to_its_package_is_read_under_the_entry_point_name(tmp_path):
    project = _project(tmp_path / "typed", """
[project]
name = "typed"
dependencies = ["hermes-host>=0.1"]
[project.entry-points."hermes_agent.plugins"]
typed = "typed_plugin"
""", {"typed_plugin/__init__.py": REGISTER})
    _plugin(project / "typed_plugin", "version: 2.0\nprovides_hooks: nope\n")
    _plugin(project / "examples" / "sample", "name: sample\n")  # not what the project installs
    (report,) = validate_path(project)
    assert (report.name, report.version) == ("typed", "2.0") and report.problems[0].field == "provides_hooks"


def test_an_unreadable_pyproject_is_named_with_its_cause(tmp_path, run_hermes):
    project = _project(tmp_path / "broken", "[project\nname = 1\n", {})
    with pytest.raises(HermesError, match=r"pyproject.toml cannot be read \(.*\) -> fix it so its entry points can be checked"):
        validate_path(project)
    result = run_hermes("plugins", "validate", str(project))
    assert result.exit_code != 0 and "Traceback" not in result.stderr and "pyproject.toml cannot be read" in result.stderr


def test_a_poetry_project_that_depends_on_hermes_is_held_to_its_requirement(tmp_path):
    project = _project(tmp_path / "poetry", """
[tool.poetry]
name = "needs"
[tool.poetry.dependencies]
python = "^3.11"
hermes-host = ">=0.1"
[tool.poetry.plugins."hermes_agent.plugins"]
needs = "needs_plugin"
""", {"needs_plugin/__init__.py": REGISTER})
    _plugin(project / "needs_plugin", "name: needs\nrequires_hermes: '>=999'\n")
    (report,) = validate_path(project)
    assert report.problems and report.problems[0].field == "requires_hermes", report


@pytest.mark.parametrize("value", ["{ a = 1 }", "3", '".mod"', '"pkg/mod"', '""'])
def test_an_entry_point_that_is_no_module_name_is_refused_naming_it(tmp_path, value, run_hermes):
    project = _project(tmp_path / "odd", f'[project.entry-points."hermes_agent.plugins"]\nodd = {value}\n', {})
    with pytest.raises(HermesError, match=r"pyproject.toml: entry point odd = .* in 'hermes_agent.plugins' is not "
                                          r"'package.module' or 'package.module:attribute' -> write the module's dotted name"):
        validate_path(project)
    result = run_hermes("plugins", "validate", str(project))
    assert result.exit_code != 0 and "Traceback" not in result.stderr and "entry point odd" in result.stderr


def test_code_whose_text_is_not_utf8_is_named_as_such_with_the_conversion(tmp_path):
    directory = _plugin(tmp_path / "demo", code=None)
    (directory / "__init__.py").write_bytes('GREETING = "café"\ndef register(ctx): pass\n'.encode("latin-1"))
    (report,) = validate_path(directory)
    (problem,) = report.problems
    assert problem.cause == "the code is not UTF-8 text and declares no other encoding"
    assert problem.fix == f"re-save it as UTF-8 in your editor (a Latin-1 file: iconv -f latin1 -t utf-8 {directory / '__init__.py'})"


def test_a_utf16_manifest_is_named_with_the_utf16_conversion(tmp_path):
    directory = _plugin(tmp_path / "demo")
    (directory / "plugin.yaml").write_bytes("name: demo\nversion: 1.0\n".encode("utf-16"))
    (report,) = validate_path(directory)
    assert any("iconv -f utf-16 -t utf-8" in p.fix and "not UTF-8" in p.cause for p in report.problems), report.problems


def test_a_manifest_without_a_version_is_shown_without_a_gap(tmp_path, run_hermes):
    # the version is optional (many published manifests have none), so it draws no warning
    directory = _plugin(tmp_path / "nover", manifest="name: nover\n")
    shown = run_hermes("plugins", "validate", str(directory))
    assert shown.exit_code == 0 and f"ok   nover (standalone) {directory}" in shown.stdout


def test_a_bad_escape_in_utf8_code_is_a_syntax_error_not_an_encoding_one(tmp_path):
    directory = _plugin(tmp_path / "demo", code='CACHE = "C:\\Users\\me\\cache"\ndef register(ctx): pass\n')
    (report,) = validate_path(directory)
    (problem,) = report.problems
    assert problem.cause.startswith("the code does not compile: SyntaxError:") and "iconv" not in problem.fix
