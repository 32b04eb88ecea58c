"""Discovery in detail: which directories count as plugins, entry points and their manifests,
builtin detection, the validation cache per source, clash hints, and the debug trace."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_core._version import __version__
from hermes_core.discovery import (
    ENTRY_POINT_GROUP,
    MEMORY_ENTRY_POINT_GROUP,
    EntryPointRef,
    PluginCandidate,
    bundled_plugins_root,
    discover_plugins,
    locate_module_dir,
    read_entry_point_plugin,
    rename_hint,
)

PROVIDER_CODE = """
from hermes_core import MemoryProvider

class Vault(MemoryProvider):
    name = "vault"
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []

def register(ctx):
    ctx.register_memory_provider(Vault())
"""


@pytest.fixture
def site_dir(tmp_path, monkeypatch):
    """A directory on sys.path laid out as pip lays out site-packages."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [m for m in sys.modules if m.startswith("dsx_")]:
        del sys.modules[name]


def _install(site: Path, package: str, entry_points: str, code: str = "def register(ctx): pass\n", *, manifest: str | None = None, dist: str | None = None, dist_name: str | None = None) -> Path:
    """A package and its ``<dist>-2.0.dist-info`` with METADATA and entry_points.txt."""
    (site / package).mkdir(parents=True, exist_ok=True)
    (site / package / "__init__.py").write_text(textwrap.dedent(code))
    if manifest is not None:
        (site / package / "plugin.yaml").write_text(textwrap.dedent(manifest))
    info = site / f"{dist or package}-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name or dist or package}\nVersion: 2.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    return site / package


def _discover(home, **kwargs):
    kwargs.setdefault("env", {})
    return {c.key: c for c in discover_plugins(home, running_version=__version__, **kwargs).candidates}


# --- which directories are plugins --------------------------------------------------


def test_hidden_and_empty_directories_are_skipped_and_the_scan_goes_on(make_plugin, hermes_home):
    # '_private' holding a plugin is a plugin, as in Hermes Agent; hidden ones ('.hermes-install-*') are not
    root = hermes_home / "plugins"
    for skipped in (".hidden", "_private"):
        make_plugin(skipped, "def register(ctx): pass\n", manifest={"name": skipped.strip("._") + "_flat"})
    (root / "a_note.txt").write_text("not a plugin")
    (root / "b_empty").mkdir()
    make_plugin("c_flat", "def register(ctx): pass\n")
    # one category level: the same rules apply inside it
    for skipped in (".hidden", "_private"):
        make_plugin(skipped, "def register(ctx): pass\n", category="web", manifest={"name": skipped.strip("._") + "_nested"})
    (root / "web" / "a_file.py").write_text("")
    (root / "web" / "b_empty").mkdir()
    (root / "web" / "c_initonly").mkdir()
    (root / "web" / "c_initonly" / "__init__.py").write_text("def register(ctx): pass\n")
    make_plugin("d_tool", "def register(ctx): pass\n", category="web")
    (root / "web" / "e_yamlonly").mkdir()
    (root / "web" / "e_yamlonly" / "plugin.yaml").write_text("name: e_yamlonly\n")
    found = _discover(hermes_home)
    user = {k for k, c in found.items() if c.source == "user"}
    assert user == {"c_flat", "private_flat", "web/_private", "web/c_initonly", "web/d_tool", "web/e_yamlonly"}
    initonly = found["web/c_initonly"]
    (problem,) = initonly.problems
    assert (initonly.name, initonly.source, initonly.path, initonly.directory, initonly.manifest) == ("c_initonly", "user", str(root / "web" / "c_initonly"), root / "web" / "c_initonly", None)
    assert problem.as_dict() == {
        "plugin": "c_initonly",
        "source": "user",
        "path": str(root / "web" / "c_initonly"),
        "field": "",
        "cause": "there is no plugin.yaml in the plugin directory",
        "fix": "add a plugin.yaml with at least 'name: c_initonly' (see 'hermes plugins new')",
    }
    assert any("there is no __init__.py" in p.cause for p in found["web/e_yamlonly"].problems)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can list a directory without read permission")
def test_an_unreadable_category_directory_is_skipped_and_the_scan_goes_on(make_plugin, hermes_home):
    locked = hermes_home / "plugins" / "a_locked"
    locked.mkdir(parents=True)
    locked.chmod(0)
    try:
        make_plugin("b_after", "def register(ctx): pass\n")
        assert "b_after" in _discover(hermes_home)
    finally:
        locked.chmod(0o755)


# --- entry points ------------------------------------------------------------------------


def test_a_memory_entry_point_with_plugin_yaml_is_exclusive_and_reports_the_installed_version(site_dir, hermes_home):
    package = _install(
        site_dir,
        "dsx_vault",
        f"[{MEMORY_ENTRY_POINT_GROUP}]\nvault = dsx_vault:register\n",
        PROVIDER_CODE,
        manifest="name: vault_manifest\nversion: 0.0.1\nkind: standalone\n",
    )
    candidate = _discover(hermes_home)["vault"]
    assert candidate.source == "entrypoint" and candidate.name == "vault_manifest"
    assert candidate.kind == "exclusive"  # the group decides, whatever the manifest says
    assert candidate.manifest.version == "2.0" and candidate.version == "2.0"
    assert candidate.manifest.path == str(package) and candidate.path == str(package)
    assert candidate.manifest.key == "vault"  # config selects it by the entry point's name
    assert candidate.entry_point == EntryPointRef(MEMORY_ENTRY_POINT_GROUP, "vault", "dsx_vault:register", "dsx_vault", "2.0")
    assert candidate.directory is None


def test_a_bad_plugin_yaml_of_an_entry_point_is_reported_at_its_path(site_dir, hermes_home):
    package = _install(site_dir, "dsx_bad", f"[{ENTRY_POINT_GROUP}]\nbad = dsx_bad\n", manifest="name: bad\nkind: nonsense\n")
    candidate = _discover(hermes_home)["bad"]
    (problem,) = candidate.problems
    assert problem.field == "kind" and problem.path == str(package / "plugin.yaml") and problem.source == "entrypoint"


def test_an_entry_points_plugin_yaml_that_is_not_utf8_is_a_problem_of_that_plugin_only(site_dir, hermes_home):
    package = _install(site_dir, "dsx_latin", f"[{ENTRY_POINT_GROUP}]\nlatin = dsx_latin\n", manifest="")
    (package / "plugin.yaml").write_bytes(b"name: latin\ndescription: caf\xe9\n")
    _install(site_dir, "dsx_fine", f"[{ENTRY_POINT_GROUP}]\nfine = dsx_fine\n", manifest="name: fine\n")
    found = _discover(hermes_home)
    latin = found["latin"]
    (problem,) = latin.problems
    assert latin.manifest is None and problem.path == str(package / "plugin.yaml") and problem.source == "entrypoint"
    assert "not UTF-8" in problem.cause and "offset 28" in problem.cause and "re-save plugin.yaml as UTF-8" in problem.fix
    assert found["fine"].problems == [] and found["fine"].manifest.name == "fine"


def test_an_entry_point_without_plugin_yaml_gets_a_manifest_from_its_group_and_metadata(site_dir, hermes_home):
    _install(site_dir, "dsx_mem", f"[{MEMORY_ENTRY_POINT_GROUP}]\nmem = dsx_mem:register\n", PROVIDER_CODE)
    _install(site_dir, "dsx_gen", f"[{ENTRY_POINT_GROUP}]\ngen = dsx_gen\n", PROVIDER_CODE)  # code is not read for the kind
    found = _discover(hermes_home)
    mem, gen = found["mem"], found["gen"]
    assert (mem.source, mem.kind, mem.version, mem.problems, mem.warnings) == ("entrypoint", "exclusive", "2.0", [], [])
    assert mem.manifest.raw == {"name": "mem", "version": "2.0", "kind": "exclusive"}
    assert (mem.manifest.name, mem.manifest.key, mem.manifest.source, mem.manifest.path) == ("mem", "mem", "entrypoint", "dsx_mem:register")
    assert mem.path == str(site_dir / "dsx_mem")
    assert (gen.kind, gen.manifest.kind_detected, gen.problems) == ("standalone", False, [])


def test_an_entry_point_into_a_plain_module_is_located_by_its_value(site_dir, hermes_home):
    (site_dir / "dsx_single.py").write_text("def register(ctx): pass\n")
    info = site_dir / "dsx_single-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dsx-single\nVersion: 2.0\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nsingle = dsx_single:register\n")
    candidate = _discover(hermes_home)["single"]
    assert candidate.path == "dsx_single:register" and candidate.manifest.path == "dsx_single:register"


def test_the_distribution_is_named_as_its_metadata_spells_it(site_dir, hermes_home):
    _install(site_dir, "dsx_spelled", f"[{ENTRY_POINT_GROUP}]\nspelled = dsx_spelled\n", dist="dsx_spelled", dist_name="DSX.Spelled")
    assert _discover(hermes_home)["spelled"].entry_point.distribution == "DSX.Spelled"


def test_the_same_entry_point_name_in_two_distributions_is_one_plugin_and_a_clash(site_dir, hermes_home):
    # whichever distribution is read second, its copy of "twin" comes before one more entry point
    _install(site_dir, "dsx_first", f"[{ENTRY_POINT_GROUP}]\ntwin = dsx_first\nafter_first = dsx_first\n")
    _install(site_dir, "dsx_second", f"[{ENTRY_POINT_GROUP}]\ntwin = dsx_second\nafter_second = dsx_second\n")
    result = discover_plugins(hermes_home, env={}, running_version=__version__)
    keys = [c.key for c in result.candidates]
    assert keys.count("twin") == 1 and "after_first" in keys and "after_second" in keys
    assert len([c for c in result.clashes if "plugin 'twin'" in c]) == 1


def test_only_the_hermes_groups_are_read(hermes_home):
    # pytest's own plugins are entry points too (group pytest11); none of them is a hermes plugin
    assert all(c.entry_point is None or c.entry_point.group in {ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP} for c in _discover(hermes_home).values())
    assert "hermes" not in _discover(hermes_home)  # the pytest11 entry point of hermes_core.testing


@pytest.mark.parametrize("distribution", ["hermes-host", "hermes_host", "Hermes.Host", "HERMES-HOST"])
def test_builtins_are_recognised_by_distribution_name_however_it_is_spelled(distribution):
    ref = EntryPointRef(ENTRY_POINT_GROUP, "memory", "hermes_plugins_builtin.memory", distribution, __version__)
    assert read_entry_point_plugin(ref, running_version=__version__).source == "builtin"


@pytest.mark.parametrize(
    ("distribution", "value"),
    [("someone-else", "hermes_plugins_builtin.memory"), ("hermes-host", "elsewhere.memory"), ("hermes-host", "elsewhere:hermes_plugins_builtin")],
)
def test_a_plugin_is_builtin_only_with_both_the_distribution_and_the_package(distribution, value):
    ref = EntryPointRef(ENTRY_POINT_GROUP, "memory", value, distribution, "1.0")
    assert read_entry_point_plugin(ref, running_version=__version__).source == "entrypoint"


def test_builtins_come_first_and_keep_their_key(make_plugin, hermes_home, monkeypatch, tmp_path):
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "bundled"))
    make_plugin("flat", "def register(ctx): pass\n", where=tmp_path / "bundled")
    make_plugin("memory", "def register(ctx): pass\n", manifest={"name": "memory"})
    result = discover_plugins(hermes_home, running_version=__version__)
    sources = [c.source for c in result.candidates]
    assert sources[: sources.count("builtin")] == ["builtin"] * sources.count("builtin") and sources.count("builtin") >= 5
    keys = {c.key: c for c in result.candidates}
    assert keys["memory"].source == "builtin" and keys["flat"].source == "bundled"
    (clash,) = result.clashes
    assert clash in keys["memory"].warnings and "is ignored: the key is taken by the builtin plugin" in clash
    assert f"change 'name:' in {hermes_home / 'plugins' / 'memory' / 'plugin.yaml'}" in clash


# --- the environment, the working directory and the cache --------------------------------


@pytest.mark.parametrize("spelling", ["1", "true", "TRUE", "yes", "Yes", "on", " ON "])
def test_project_plugins_are_scanned_for_every_truthy_spelling(make_plugin, hermes_home, tmp_path, spelling):
    make_plugin("proj", "def register(ctx): pass\n", where="project")
    assert _discover(hermes_home, env={"HERMES_ENABLE_PROJECT_PLUGINS": spelling}, cwd=tmp_path / "project")["proj"].source == "project"


@pytest.mark.parametrize("spelling", ["0", "false", "no", "off", "", "enabled"])
def test_project_plugins_stay_off_otherwise(make_plugin, hermes_home, tmp_path, spelling):
    make_plugin("proj", "def register(ctx): pass\n", where="project")
    assert "proj" not in _discover(hermes_home, env={"HERMES_ENABLE_PROJECT_PLUGINS": spelling}, cwd=tmp_path / "project")


def test_without_env_and_cwd_the_process_environment_and_directory_are_used(make_plugin, hermes_home, monkeypatch, tmp_path):
    make_plugin("proj", "def register(ctx): pass\n", where="project")
    make_plugin("flat", "def register(ctx): pass\n", where=tmp_path / "bundled")
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "bundled"))
    monkeypatch.chdir(tmp_path / "project")
    found = {c.key: c.source for c in discover_plugins(hermes_home, running_version=__version__).candidates}
    assert found["proj"] == "project" and found["flat"] == "bundled"
    # a given mapping replaces the process environment entirely
    given = {c.key for c in discover_plugins(hermes_home, env={}, running_version=__version__).candidates}
    assert "proj" not in given and "flat" not in given
    only_bundled = {"HERMES_BUNDLED_PLUGINS": str(tmp_path / "bundled")}
    monkeypatch.delenv("HERMES_BUNDLED_PLUGINS")
    assert "flat" in {c.key for c in discover_plugins(hermes_home, env=only_bundled, running_version=__version__).candidates}


def _cached_sources(home: Path) -> set[tuple[str, str]]:
    data = json.loads((home / "cache" / "plugin-manifests.json").read_text())
    return {(e["manifest"]["source"], e["manifest"]["name"]) for e in data["entries"].values() if e["manifest"]}


def test_every_source_goes_through_the_validation_cache(make_plugin, hermes_home, tmp_path, site_dir):
    make_plugin("flat", "def register(ctx): pass\n", where=tmp_path / "bundled")
    make_plugin("mine", "def register(ctx): pass\n")
    make_plugin("proj", "def register(ctx): pass\n", where="project")
    _install(site_dir, "dsx_cached", f"[{ENTRY_POINT_GROUP}]\ncached = dsx_cached\n", manifest="name: cached\n")
    env = {"HERMES_ENABLE_PROJECT_PLUGINS": "1", "HERMES_BUNDLED_PLUGINS": str(tmp_path / "bundled")}
    discover_plugins(hermes_home, env=env, cwd=tmp_path / "project", running_version=__version__)
    cached = _cached_sources(hermes_home)
    assert {("bundled", "flat"), ("user", "mine"), ("project", "proj"), ("entrypoint", "cached"), ("builtin", "memory")} <= cached


def test_use_cache_false_neither_reads_nor_writes_the_cache(make_plugin, hermes_home, tmp_path):
    make_plugin("mine", "def register(ctx): pass\n")
    cached_home = tmp_path / "cached_home"
    discover_plugins(cached_home, env={}, running_version=__version__)
    assert (cached_home / "cache" / "plugin-manifests.json").is_file() and (cached_home / "cache" / "entry-points.json").is_file()
    discover_plugins(hermes_home, env={}, running_version=__version__, use_cache=False)
    assert not (hermes_home / "cache" / "plugin-manifests.json").exists()
    assert not (hermes_home / "cache" / "entry-points.json").exists()  # nor the entry-point cache


# --- locations -------------------------------------------------------------------------------


def test_the_bundled_root_comes_from_the_environment_with_the_home_expanded(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert bundled_plugins_root({"HERMES_BUNDLED_PLUGINS": "~/bundled"}) == tmp_path / "bundled"
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "from_process"))
    assert bundled_plugins_root() == tmp_path / "from_process"
    assert bundled_plugins_root({}) != tmp_path / "from_process"  # a given mapping is all there is


def test_the_bundled_root_is_the_installed_package_when_there_is_one(monkeypatch, tmp_path):
    site = tmp_path / "site"
    (site / "hermes_bundled_plugins").mkdir(parents=True)
    (site / "hermes_bundled_plugins" / "__init__.py").write_text("")
    monkeypatch.delitem(sys.modules, "hermes_bundled_plugins", raising=False)
    monkeypatch.syspath_prepend(str(site))
    assert bundled_plugins_root({"HERMES_BUNDLED_PLUGINS": ""}) == site / "hermes_bundled_plugins"


def test_without_the_package_the_bundled_root_is_the_checkouts_plugins_directory(monkeypatch, tmp_path):
    import hermes_core

    # a plain module of that name (no package): what a source checkout without the wheel looks like to find_spec
    site = tmp_path / "site"
    site.mkdir()
    (site / "hermes_bundled_plugins.py").write_text("")
    monkeypatch.delitem(sys.modules, "hermes_bundled_plugins", raising=False)
    monkeypatch.syspath_prepend(str(site))
    assert bundled_plugins_root({}) == Path(hermes_core.__file__).resolve().parent.parent / "plugins"


def test_locate_module_dir_finds_packages_without_importing_them(tmp_path, monkeypatch):
    site = tmp_path / "site"
    leaf = site / "dsx_outer" / "inner" / "leaf"
    leaf.mkdir(parents=True)
    marker = tmp_path / "IMPORTED"
    for directory in (site / "dsx_outer", site / "dsx_outer" / "inner"):
        (directory / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (leaf / "__init__.py").write_text("")
    (site / "dsx_outer" / "inner" / "plain.py").write_text("")
    (site / "dsx_module.py").write_text("")
    monkeypatch.syspath_prepend(str(site))
    assert locate_module_dir("dsx_outer") == site / "dsx_outer"
    assert locate_module_dir("dsx_outer.inner") == site / "dsx_outer" / "inner"
    assert locate_module_dir("dsx_outer.inner.leaf") == leaf
    assert locate_module_dir("dsx_outer.inner.plain") is None  # a module, not a package
    assert locate_module_dir("dsx_outer.missing") is None
    assert locate_module_dir("dsx_module") is None
    assert locate_module_dir("dsx_no_such_thing") is None
    assert not marker.exists(), "locating a package must not run its code"


# --- clash hints --------------------------------------------------------------------------


def _clash(result, key):
    (message,) = [c for c in result.clashes if f"plugin '{key}'" in c]
    return message


def test_the_hint_for_an_entry_point_names_the_entry_point_and_its_distribution(make_plugin, hermes_home, site_dir):
    make_plugin("twin", "def register(ctx):\n    pass  # its own code, not a copy of the package\n")
    _install(site_dir, "dsx_twin", f"[{ENTRY_POINT_GROUP}]\ntwin = dsx_twin\n", dist_name="dsx-twin")
    message = _clash(discover_plugins(hermes_home, env={}, running_version=__version__), "twin")
    assert f"rename the entry point 'twin' in the '{ENTRY_POINT_GROUP}' group of the distribution dsx-twin" in message


def test_the_hint_for_a_categorised_plugin_is_its_directory(make_plugin, hermes_home, tmp_path):
    make_plugin("tool", "def register(ctx): pass\n", category="web")
    project = make_plugin("tool", "def register(ctx): pass\n", category="web", where="project")
    result = discover_plugins(hermes_home, env={"HERMES_ENABLE_PROJECT_PLUGINS": "1"}, cwd=tmp_path / "project", running_version=__version__)
    assert f"rename its directory {project} (the key is category/directory)" in _clash(result, "web/tool")


def test_the_hint_for_a_plugin_without_manifest_names_the_plugin_yaml_to_write(make_plugin, hermes_home, tmp_path):
    make_plugin("bare", "def register(ctx): pass\n")
    project = make_plugin("bare", "def register(ctx): pass\n", manifest=False, where="project")
    result = discover_plugins(hermes_home, env={"HERMES_ENABLE_PROJECT_PLUGINS": "1"}, cwd=tmp_path / "project", running_version=__version__)
    assert f"change 'name:' in {project / 'plugin.yaml'} (the key is the manifest's name)" in _clash(result, "bare")


def test_the_hint_for_a_plugin_with_neither_directory_nor_entry_point():
    assert rename_hint(PluginCandidate("k", "k", "user", "somewhere", None)) == "rename it"


# --- HERMES_PLUGINS_DEBUG ---------------------------------------------------------------------


def test_the_debug_trace_says_what_each_source_held(make_plugin, hermes_home, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("HERMES_PLUGINS_DEBUG", "1")
    make_plugin("one", "def register(ctx): pass\n")
    make_plugin("one", "def register(ctx): pass\n", where=tmp_path / "bundled")
    discover_plugins(hermes_home, env={"HERMES_BUNDLED_PLUGINS": str(tmp_path / "nowhere")}, cwd=tmp_path, running_version=__version__)
    lines = capsys.readouterr().err.splitlines()
    assert f"hermes[plugins]: discover: no bundled plugin directory at {tmp_path / 'nowhere'}" in lines
    assert f"hermes[plugins]: discover: 1 user plugin(s) in {hermes_home / 'plugins'}" in lines
    assert "hermes[plugins]: discover: project plugins skipped (set HERMES_ENABLE_PROJECT_PLUGINS=1 to scan ./.hermes/plugins)" in lines
    discover_plugins(hermes_home, env={"HERMES_BUNDLED_PLUGINS": str(tmp_path / "bundled")}, cwd=tmp_path, running_version=__version__)
    clash = [line for line in capsys.readouterr().err.splitlines() if "discover: clash:" in line]
    assert len(clash) == 1 and "plugin 'one' (user," in clash[0] and "overrides the bundled plugin" in clash[0]


# --- directories without plugin.yaml, and what is read from __init__.py --------------------------


def test_a_provider_without_plugin_yaml_is_read_by_the_text_rule_with_its_key(make_plugin, hermes_home):
    make_plugin("legacy", PROVIDER_CODE, manifest=False)
    make_plugin("nested", PROVIDER_CODE, manifest=False, category="memory")
    found = _discover(hermes_home)
    legacy, nested = found["legacy"], found["memory/nested"]
    assert (legacy.kind, legacy.manifest.kind_detected, legacy.problems, legacy.path) == ("exclusive", True, [], str(hermes_home / "plugins" / "legacy"))
    assert (legacy.source, legacy.directory) == ("user", hermes_home / "plugins" / "legacy")
    assert (nested.name, nested.manifest.key, nested.kind) == ("nested", "memory/nested", "exclusive")


@pytest.mark.parametrize("source", ["user", "project"])
def test_a_provider_without_plugin_yaml_in_a_loose_directory_is_refused(make_plugin, hermes_home, tmp_path, source):
    directory = make_plugin("loose", PROVIDER_CODE, manifest=False, where=source)
    directory.chmod(0o777)
    found = _discover(hermes_home, env={"HERMES_ENABLE_PROJECT_PLUGINS": "1"}, cwd=tmp_path / "project")
    (problem,) = found["loose"].problems
    assert (problem.plugin, problem.source, problem.path, problem.field) == ("loose", source, str(directory), "")
    assert "world-writable" in problem.cause and problem.fix == f"run 'chmod o-w {directory}'"


def test_manifest_problems_point_at_the_manifest_file(make_plugin, hermes_home):
    directory = make_plugin("badkind", "def register(ctx): pass\n", manifest={"name": "badkind", "provides_hooks": "sideways"})
    (problem,) = _discover(hermes_home)["badkind"].problems
    assert problem.path == str(directory / "plugin.yaml") and problem.field == "provides_hooks"


def test_an_init_file_that_is_not_utf8_is_still_read_for_the_kind(make_plugin, hermes_home):
    directory = make_plugin("latin", None, manifest={"name": "latin"})
    (directory / "__init__.py").write_bytes(b"# caf\xe9 au lait\nfrom hermes_core import MemoryProvider\n")
    candidate = _discover(hermes_home)["latin"]
    assert candidate.kind == "exclusive" and candidate.manifest.kind_detected


def test_an_entry_point_keeps_its_manifest_warnings_and_survives_an_unusable_manifest(site_dir, hermes_home):
    _install(site_dir, "dsx_warned", f"[{ENTRY_POINT_GROUP}]\nwarned = dsx_warned\n", manifest="name: warned\nodd_key: 1\n")
    _install(site_dir, "dsx_listed", f"[{ENTRY_POINT_GROUP}]\nlisted = dsx_listed\n", manifest="- not\n- a mapping\n")
    found = _discover(hermes_home)
    assert any("unknown key(s) 'odd_key'" in w for w in found["warned"].warnings)
    listed = found["listed"]
    assert listed.name == "listed" and listed.manifest is None and "must be a mapping" in listed.problems[0].cause


def test_metadata_without_name_or_version_gives_empty_strings(site_dir, hermes_home):
    package = _install(site_dir, "dsx_nameless", f"[{ENTRY_POINT_GROUP}]\nnameless = dsx_nameless\n", manifest="name: nameless\nversion: 0.3\n")
    (site_dir / "dsx_nameless-2.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\n")
    candidate = _discover(hermes_home)["nameless"]
    assert candidate.entry_point.distribution == "" and candidate.entry_point.version == ""
    assert candidate.version == "0.3" and candidate.path == str(package)


# --- what a directory plugin's candidate carries ------------------------------------------------


def test_an_unreadable_plugin_yaml_is_one_problem_naming_the_file(make_plugin, hermes_home):
    from hermes_core.manifest import MAX_MANIFEST_BYTES

    directory = make_plugin("huge", "def register(ctx): pass\n", manifest="#" * (MAX_MANIFEST_BYTES + 1), category="big")
    candidate = _discover(hermes_home)["big/huge"]
    (problem,) = candidate.problems
    assert (candidate.name, candidate.source, candidate.path, candidate.manifest, candidate.directory) == ("huge", "user", str(directory), None, directory)
    assert (problem.plugin, problem.source, problem.path, problem.field) == ("huge", "user", str(directory / "plugin.yaml"), "")
    assert problem.cause.startswith("plugin.yaml cannot be read: ") and problem.fix == "replace plugin.yaml with a small regular file"


def test_a_directory_plugin_is_named_by_its_manifest_and_keyed_by_name_or_category(make_plugin, hermes_home):
    flat = make_plugin("dir_name", None, manifest={"name": "manifest_name", "odd_key": 1})
    nested = make_plugin("nested_dir", "def register(ctx): pass\n", manifest={"name": "nested_name"}, category="cat")
    flat.chmod(0o777)
    found = _discover(hermes_home)
    candidate = found["manifest_name"]
    assert (candidate.name, candidate.path, candidate.directory) == ("manifest_name", str(flat), flat)
    assert (candidate.manifest.key, candidate.manifest.path) == ("manifest_name", str(flat))
    assert any("unknown key(s) 'odd_key'" in w for w in candidate.warnings)
    no_init, loose = candidate.problems
    assert no_init.as_dict() == {
        "plugin": "manifest_name", "source": "user", "path": str(flat), "field": "",
        "cause": "there is no __init__.py", "fix": "add an __init__.py that defines register(ctx)",
    }
    assert (loose.plugin, loose.source, loose.path, loose.field) == ("manifest_name", "user", str(flat), "")
    assert "world-writable" in loose.cause
    nested_candidate = found["cat/nested_dir"]
    assert (nested_candidate.name, nested_candidate.manifest.key, nested_candidate.manifest.path) == ("nested_name", "cat/nested_dir", str(nested))


def test_the_validation_cache_keeps_twins_and_versions_apart(make_plugin, hermes_home):
    code = "import hermes_core  # written for hermes: requires_hermes speaks of its version\ndef register(ctx): pass\n"
    first = make_plugin("twin", code, manifest="name: twin\nkind: nonsense\nrequires_hermes: '>=0.5'\n", category="a")
    second = make_plugin("twin", code, manifest="name: twin\nkind: nonsense\nrequires_hermes: '>=0.5'\n", category="b")
    for _ in range(2):  # the second round is answered from the cache
        found = {c.key: c for c in discover_plugins(hermes_home, env={}, running_version="0.4.0").candidates}
        assert {p.path for p in found["a/twin"].problems} == {str(first / "plugin.yaml")}
        assert {p.path for p in found["b/twin"].problems} == {str(second / "plugin.yaml")}
        assert any(p.field == "requires_hermes" and "0.4.0" in p.cause for p in found["a/twin"].problems)
    newer = {c.key: c for c in discover_plugins(hermes_home, env={}, running_version="0.5.0").candidates}
    assert not any(p.field == "requires_hermes" for p in newer["a/twin"].problems)


def test_path_safety_names_a_broken_plugin_link_and_an_escaping_one_with_their_fixes(tmp_path):
    from hermes_core.plugin_locations import check_path_safety

    broken = tmp_path / "broken"
    broken.symlink_to(tmp_path / "nowhere")
    ((cause, fix),) = check_path_safety(broken, check_owner=False)
    assert cause.startswith("the plugin directory cannot be resolved (") and fix == "remove the broken link or directory"
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "out.py").symlink_to(tmp_path / "elsewhere.py")
    ((cause, fix),) = check_path_safety(plugin, check_owner=False)
    assert cause == f"out.py is a symlink to {tmp_path / 'elsewhere.py'}, outside the plugin directory"
    assert fix == "copy the file into the plugin instead of linking it"


def test_the_validation_cache_follows_a_change_of_init_alone(make_plugin, hermes_home):
    directory = make_plugin("shifty", "def register(ctx): pass\n", manifest="version: 1\n")  # no name, no kind
    first = _discover(hermes_home)["shifty"]
    assert (first.name, first.kind) == ("shifty", "standalone")  # named after its directory
    (directory / "__init__.py").write_text("from hermes_core import MemoryProvider\n")
    assert _discover(hermes_home)["shifty"].kind == "exclusive"


def test_the_validation_cache_keeps_two_entry_points_of_one_package_apart(site_dir, hermes_home):
    _install(site_dir, "dsx_shared", f"[{ENTRY_POINT_GROUP}]\nfirst = dsx_shared\nsecond = dsx_shared\n", manifest="version: 1.0\n")
    for _ in range(2):  # the second round is answered from the cache
        found = _discover(hermes_home)
        assert (found["first"].name, found["first"].manifest.key) == ("first", "first")
        assert (found["second"].name, found["second"].manifest.key) == ("second", "second")


def test_the_validation_cache_keeps_sources_apart_when_one_directory_is_two_sources(make_plugin, hermes_home):
    make_plugin("both", "def register(ctx): pass\n", manifest={"name": "both", "provides_hooks": "nonsense"})
    env = {"HERMES_BUNDLED_PLUGINS": str(hermes_home / "plugins")}
    for _ in range(2):
        result = discover_plugins(hermes_home, env=env, running_version=__version__)
        (winner,) = [c for c in result.candidates if c.key == "both"]
        assert winner.source == "user" and {p.source for p in winner.problems} == {"user"}


def test_a_flat_plugin_with_an_unusable_manifest_keeps_its_directory_name_as_key(make_plugin, hermes_home):
    from hermes_core.manifest import MAX_MANIFEST_BYTES

    make_plugin("toolarge", "def register(ctx): pass\n", manifest="#" * (MAX_MANIFEST_BYTES + 1))
    make_plugin("badyaml", "def register(ctx): pass\n", manifest="name: [unclosed\n")
    found = _discover(hermes_home)
    assert found["toolarge"].name == "toolarge" and found["toolarge"].manifest is None
    assert found["badyaml"].name == "badyaml" and "not valid YAML" in found["badyaml"].problems[0].cause
