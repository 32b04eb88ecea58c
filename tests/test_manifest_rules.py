"""plugin.yaml rules one edit would break: the fix offered per kind of error, kind detection limits,
env entries, version checks, the fallbacks for odd values, and problems as JSON."""

from __future__ import annotations

import pytest

from hermes_core.manifest import (
    MAX_MANIFEST_BYTES,
    PluginProblem,
    RequiredEnv,
    build_manifest,
    check_requires_hermes,
    detect_kind,
    find_manifest_file,
    read_manifest_file,
    read_manifest_text,
    validate_manifest_data,
)


def _read(text, init_text="", version="0.1.0"):
    return read_manifest_text(text, default_name="dirname", source="user", path="/p/plugin.yaml", key=None, init_text=init_text, running_version=version)


def _problem(text: str, field: str) -> PluginProblem:
    (problem,) = [p for p in _read(text).problems if p.field == field]
    return problem


@pytest.mark.parametrize(
    ("text", "field", "fix"),
    [
        ("name: x\nkind: memory\n", "kind", "set 'kind' to one of 'standalone', 'backend', 'exclusive', 'platform', 'model-provider'"),
        ("name: x\nauthor: [a, b]\n", "author", "make 'author' a string"),
        ("name: x\nmanifest_version: '2'\n", "manifest_version", "make 'manifest_version' an integer"),
        ("name: x\nversion: [1]\n", "version", "make 'version' a string or number"),
        ("name: x\nprovides_tools: [1]\n", "provides_tools.0", "make 'provides_tools.0' a string"),
        ("name: 'bad/name'\n", "name", "rename 'name' to one plain path component: no '/', '\\', control or text-direction characters, not '.' or '..', no spaces at either end"),
        ("name: x\nrequires_env: [{description: no name}]\n", "requires_env.0", "write 'requires_env.0' as a string or as a mapping with a 'name' key"),
        ("name: x\nmanifest_version: 0\n", "manifest_version", "give 'manifest_version' a larger value"),
        ("name: x\nrequires_hermes: ''\n", "requires_hermes", "give 'requires_hermes' a larger value"),
        ("name: x\nname: " + "n" * 129 + "\n", "name", "correct 'name' in plugin.yaml"),
    ],
)
def test_each_kind_of_schema_error_gets_its_own_fix(text, field, fix):
    problem = _problem(text, field)
    assert problem.fix == fix
    assert (problem.plugin, problem.source, problem.path) == (problem.plugin, "user", "/p/plugin.yaml")


def test_a_required_key_error_names_the_missing_key():
    # The shipped schema only requires keys inside oneOf alternatives; a schema change could surface one.
    from jsonschema import Draft202012Validator

    from hermes_core.manifest import _field_of, _fix_for

    (error,) = Draft202012Validator({"type": "object", "required": ["name"]}).iter_errors({})
    assert _field_of(error) == "name"
    assert _fix_for(error, "name") == "add 'name' to plugin.yaml"
    (nested,) = Draft202012Validator({"properties": {"hooks": {"type": "object", "required": ["on"]}}}).iter_errors({"hooks": {}})
    assert _field_of(nested) == "hooks.on"
    (other,) = Draft202012Validator({"maxLength": 1}).iter_errors("ab")
    assert _field_of(other) == "" and _fix_for(other, "") == "correct 'the manifest' in plugin.yaml"


def test_problems_are_reported_in_field_order_and_as_dicts():
    # the schema checks version before author before manifest_version; the report sorts by field
    report = _read("name: x\nversion: [1]\nmanifest_version: x\nauthor: 1\n")
    assert [p.field for p in report.problems] == ["author", "manifest_version", "version"]
    assert report.problems[0].as_dict() == {
        "plugin": "x",
        "source": "user",
        "path": "/p/plugin.yaml",
        "field": "author",
        "cause": "1 is not of type 'string'",
        "fix": "make 'author' a string",
    }
    assert str(PluginProblem("p", "user", "/d", "", "it broke", "fix it")) == "plugin 'p' (user, /d): it broke -> fix it"


def test_kind_detection_reads_only_the_start_of_init_and_needs_both_model_provider_names():
    assert detect_kind("x" * (8192 - 14) + "MemoryProvider") == "exclusive"  # ends exactly at the limit
    assert detect_kind("x" * (8192 - 13) + "MemoryProvider") is None
    assert detect_kind("ctx.register_memory_provider(p)") == "exclusive"
    assert detect_kind("ctx.register_provider(x)") is None
    assert detect_kind("ProviderProfile") is None
    assert detect_kind("ctx.register_provider(ProviderProfile())") == "model-provider"
    assert detect_kind("MemoryProvider register_provider ProviderProfile") == "exclusive"


def test_env_entries_accept_names_and_mappings_and_skip_the_rest():
    report = _read(
        "name: x\nrequires_env:\n  - PLAIN\n  - {name: FULL, description: the key, url: https://k.example, secret: true}\n"
        "  - {name: BARE}\n  - {description: nameless}\n  - 5\noptional_env: [OPT]\n"
    )
    manifest = report.manifest
    assert manifest.requires_env == [
        RequiredEnv("PLAIN"),
        RequiredEnv("FULL", "the key", "https://k.example", True),
        RequiredEnv("BARE", "", "", False),
    ]
    assert manifest.optional_env == [RequiredEnv("OPT")]
    assert _read("name: x\nrequires_env: 42\n").manifest.requires_env == []


def test_string_lists_are_read_and_odd_values_fall_back():
    manifest = _read("name: x\nprovides_tools: [a, 2]\nprovides_hooks: [on_session_start]\nprovides_cli_commands: [c]\n").manifest
    assert (manifest.provides_tools, manifest.provides_hooks, manifest.provides_cli_commands) == (["a", "2"], ["on_session_start"], ["c"])
    odd = _read("name: x\nversion: null\ndescription: null\nauthor: null\nprovides_tools: nope\nmanifest_version: two\nrequires_hermes: null\n").manifest
    assert (odd.version, odd.description, odd.author, odd.provides_tools, odd.manifest_version, odd.requires_hermes) == ("", "", "", [], 1, "")
    full = _read("name: x\nversion: 1.5\ndescription: d\nauthor: a\nmanifest_version: 2\nrequires_hermes: '>=0'\n").manifest
    assert (full.version, full.description, full.author, full.manifest_version, full.requires_hermes) == ("1.5", "d", "a", 2, ">=0")


def test_a_manifest_that_cannot_be_built_is_a_problem_not_a_crash():
    # init_text is typed str; None stands for any failure inside build_manifest, which must stay this plugin's problem
    broken = read_manifest_text("name: x\nodd: 1\n", default_name="d", source="user", path="/p", key=None, init_text=None, running_version="0.1.0")  # type: ignore[arg-type]
    assert broken.manifest is None
    (problem,) = broken.problems
    assert (problem.plugin, problem.source, problem.path, problem.field, problem.fix) == ("x", "user", "/p", "", "correct plugin.yaml against the manifest schema")
    assert problem.cause.startswith("plugin.yaml cannot be read as a manifest (TypeError:")
    assert len(broken.warnings) == 1 and "'odd'" in broken.warnings[0]  # what was found before still counts


def test_keys_that_are_not_strings_are_warned_about_not_crashed_on():
    report = _read("name: x\n1: one\nfoo: 2\n2020-01-01: d\n")
    assert report.manifest is not None
    (warning,) = report.warnings
    assert "unknown key(s) 1, datetime.date(2020, 1, 1), 'foo' in plugin.yaml" in warning


def test_the_name_is_stripped_and_a_blank_name_falls_back_with_a_warning():
    assert _read("name: '  spaced  '\n").manifest.name == "spaced"
    blank = _read("name: '   '\n")
    assert blank.manifest.name == "dirname"
    assert not any("has no 'name'" in w for w in blank.warnings)  # a name is written, just blank (the schema says so)
    missing = _read("version: 1\n")
    assert missing.warnings == ["plugin 'dirname' (user, /p/plugin.yaml): plugin.yaml has no 'name'; using 'dirname'"]
    assert missing.manifest.key == "dirname"
    keyed = read_manifest_text("name: n\n", default_name="d", source="entrypoint", path="/p", key="ep", init_text="", running_version="0.1.0")
    assert keyed.manifest.key == "ep" and keyed.manifest.source == "entrypoint" and keyed.manifest.path == "/p"


def test_the_detected_kind_warning_says_how_to_opt_out():
    report = _read("name: mem\n", init_text="class P(MemoryProvider): pass\ndef register(ctx):\n    ctx.register_tool(name='t')\n")
    assert report.warnings == [
        "plugin 'mem' (user, /p/plugin.yaml): no 'kind' in plugin.yaml; treated as kind 'exclusive' because __init__.py "
        "mentions a memory/model provider (write 'kind: standalone' to load it as a general plugin)"
    ]


def test_a_plugin_that_is_only_a_memory_provider_is_not_warned_about_its_guessed_kind():
    report = _read("name: mem\n", init_text="class P(MemoryProvider): pass\ndef register(ctx):\n    ctx.register_memory_provider(P())\n")
    assert report.manifest.kind == "exclusive" and report.warnings == []


def test_malformed_yaml_is_one_problem_naming_the_plugin_and_the_fix():
    report = _read("name: x\nkind: [unclosed\n")
    (problem,) = report.problems
    assert (report.manifest, report.warnings) == (None, [])
    assert (problem.plugin, problem.source, problem.path, problem.field, problem.fix) == ("dirname", "user", "/p/plugin.yaml", "", "fix the YAML syntax of plugin.yaml")


def test_the_top_level_must_be_a_mapping():
    (empty,) = _read("").problems
    assert empty.cause == "the top level of plugin.yaml must be a mapping of keys, but it is empty"
    assert empty.fix == "start the file with 'name: <plugin name>'" and empty.plugin == "dirname" and empty.field == ""
    (listed,) = _read("- a\n").problems
    assert listed.cause.endswith("but it is a list") and _read("- a\n").warnings == []
    assert validate_manifest_data("text", plugin="p", source="s", path="/p", running_version="0.1.0")[0][0].cause.endswith("it is a str")


def test_unknown_keys_are_listed_sorted_in_one_warning():
    (warning,) = _read("name: x\nzeta: 1\nalpha: 2\n").warnings
    assert warning == "plugin 'x' (user, /p/plugin.yaml): unknown key(s) 'alpha', 'zeta' in plugin.yaml are ignored"


def test_manifest_version_warns_only_above_the_supported_one():
    assert _read("name: x\nmanifest_version: 2\n").warnings == []
    (warning,) = _read("name: x\nmanifest_version: 3\n").warnings
    assert warning == "plugin 'x' (user, /p/plugin.yaml): manifest_version 3 is newer than 2, the newest this hermes knows; loading it anyway"


def test_requires_hermes_counts_prereleases_and_ignores_blank_specs():
    assert check_requires_hermes(">=0.1", "0.2.0.dev1") is None
    assert check_requires_hermes(">=0.3", "0.2.0") == "needs hermes >=0.3, this is hermes 0.2.0"
    assert check_requires_hermes("~~1", "0.2.0") == "'~~1' is not a version specifier (write e.g. '>=0.1,<1')"
    assert _read("name: x\nrequires_hermes: '   '\n", version="0.1.0").problems == []
    (problem,) = _read("name: x\nrequires_hermes: '>=5'\n").problems
    assert (problem.field, problem.fix) == ("requires_hermes", "upgrade hermes, or install a version of the plugin made for this one")


def test_build_manifest_keeps_what_it_was_given():
    manifest = build_manifest({"name": "n", "kind": "backend"}, name="given", source="bundled", path="/d", key="cat/n", init_text="MemoryProvider")
    assert (manifest.name, manifest.kind, manifest.kind_detected, manifest.source, manifest.path, manifest.key) == ("given", "backend", False, "bundled", "/d", "cat/n")
    assert manifest.raw == {"name": "n", "kind": "backend"}
    bare = build_manifest({}, name="n", source="user", path="/d", key="n", init_text="")
    assert (bare.kind, bare.version, bare.manifest_version, bare.description) == ("standalone", "", 1, "")


def test_plugin_yaml_is_preferred_over_plugin_yml_and_a_regular_file_over_anything_else(tmp_path):
    assert find_manifest_file(tmp_path) is None
    (tmp_path / "plugin.yml").write_text("name: yml\n")
    assert find_manifest_file(tmp_path) == tmp_path / "plugin.yml"
    (tmp_path / "plugin.yaml").write_text("name: yaml\n")
    assert find_manifest_file(tmp_path) == tmp_path / "plugin.yaml"
    # a directory of the name is found (and reported unreadable), unless a regular plugin.yml is there
    other = tmp_path / "other"
    (other / "plugin.yaml").mkdir(parents=True)
    assert find_manifest_file(other) == other / "plugin.yaml"
    (other / "plugin.yml").write_text("name: yml\n")
    assert find_manifest_file(other) == other / "plugin.yml"


def test_a_manifest_file_is_read_up_to_the_limit_and_bad_bytes_are_refused_by_offset(tmp_path):
    from hermes_core.files import UnreadableFileError
    from hermes_core.manifest import ManifestNotUtf8

    manifest = tmp_path / "plugin.yaml"
    manifest.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(ManifestNotUtf8, match="byte 0xe9 at offset 9") as refused:
        read_manifest_file(manifest)
    assert refused.value.offset == 9
    manifest.write_bytes("name: café\n".encode())
    assert read_manifest_file(manifest) == "name: café\n"
    manifest.write_bytes(b"#" * MAX_MANIFEST_BYTES)
    assert len(read_manifest_file(manifest)) == MAX_MANIFEST_BYTES
    manifest.write_bytes(b"#" * (MAX_MANIFEST_BYTES + 1))
    with pytest.raises(UnreadableFileError, match="plugin.yaml"):
        read_manifest_file(manifest)
    other_name = tmp_path / "manifest.yml"
    other_name.mkdir()
    with pytest.raises(UnreadableFileError, match="the plugin.yaml is a directory"):
        read_manifest_file(other_name)
