"""plugins.lock read and written as real files: damaged locks named with their fix, the defaults of
fields an older or hand-edited lock leaves out, a stable file format, and finding an entry by name."""

from __future__ import annotations

import json

import pytest

from hermes_core.distribution.lockfile import (
    LockEntry,
    find_entry,
    install_info,
    lock_path,
    looks_like_lock,
    parse_lock,
    read_lock,
    write_lock,
)
from hermes_core.errors import HermesError


def refusal(path, text: str) -> str:
    path.write_text(text)
    with pytest.raises(HermesError) as raised:
        read_lock(path)
    return str(raised.value)


@pytest.mark.parametrize("text", ["[]", '"plugins"', '{"lock_version": 1}', '{"plugins": ["weather"]}', '{"plugins": null}'])
def test_a_lock_without_a_plugins_mapping_is_refused_with_the_fix(tmp_path, text):
    path = tmp_path / "plugins.lock"
    assert refusal(path, text) == f"{path}: not a plugins.lock (no 'plugins' mapping) -> restore it from a backup or delete it"


def test_a_lock_of_a_newer_version_asks_for_a_newer_hermes(tmp_path):
    path = tmp_path / "plugins.lock"
    message = refusal(path, '{"lock_version": 2, "plugins": {}}')
    assert message == f"{path}: lock_version 2 is newer than this hermes understands (1) -> upgrade hermes"


@pytest.mark.parametrize(("version", "shown"), [('"1"', "'1'"), ("1.0", "1.0"), ("null", "None"), ("true", "True")])
def test_a_lock_version_that_is_not_a_whole_number_is_damage_not_news(tmp_path, version, shown):
    path = tmp_path / "plugins.lock"
    message = refusal(path, f'{{"lock_version": {version}, "plugins": {{}}}}')
    assert message == f"{path}: lock_version {shown} is not a whole number -> restore it from a backup or delete it"


def test_a_lock_without_lock_version_is_read_as_version_1(tmp_path):
    path = tmp_path / "plugins.lock"
    path.write_text('{"plugins": {"weather": {"spec": "hermes-weather"}}}')
    assert list(read_lock(path)) == ["weather"]
    path.write_text('{"lock_version": 1, "plugins": {}}')
    assert read_lock(path) == {}


@pytest.mark.parametrize("raw", ['"hermes-weather"', "null", "{}", '{"spec": 3}', '{"spec": null, "source": "index"}'])
def test_an_entry_without_a_spec_is_named(tmp_path, raw):
    path = tmp_path / "plugins.lock"
    message = refusal(path, f'{{"plugins": {{"ok": {{"spec": "x"}}, "weather": {raw}}}}}')
    assert message == f"{path}: the entry 'weather' has no 'spec' -> remove the entry, or install the plugin again"


def test_fields_an_entry_leaves_out_get_their_defaults(tmp_path):
    entries = parse_lock('{"plugins": {"weather": {"spec": "hermes-weather"}}}', tmp_path / "plugins.lock")
    assert entries == {"weather": LockEntry("weather", "hermes-weather", "index", "package", plugins=["weather"])}


def test_recorded_fields_are_kept_and_unknown_ones_ignored(tmp_path):
    raw = {
        "spec": "./memo", "source": "path", "layout": "directory", "version": "2", "location": "/src/memo",
        "plugins": ["memo", 7], "key": "not-the-key", "installed_by": "a newer hermes",
    }
    entries = parse_lock(json.dumps({"plugins": {"memo": raw}}), tmp_path / "plugins.lock")
    # the mapping's key names the entry; a 'key' field inside it cannot rename it
    assert entries == {"memo": LockEntry("memo", "./memo", "path", "directory", "2", location="/src/memo", plugins=["memo", "7"])}


@pytest.mark.parametrize("plugins", ["[]", "null"])
def test_an_entry_with_no_plugins_listed_provides_its_key(tmp_path, plugins):
    entries = parse_lock(f'{{"plugins": {{"weather": {{"spec": "w", "plugins": {plugins}}}}}}}', tmp_path / "plugins.lock")
    assert entries["weather"].plugins == ["weather"]


def test_the_lock_is_written_in_a_stable_reviewable_form(tmp_path):
    path = lock_path(tmp_path)
    notes = LockEntry("notes", "file:///r", "git", "directory", "1.0", location="file:///r", commit="c0ffee", plugins=["notes"])
    weather = LockEntry("weather", "hermes-weather", "index", "package", "0.3.1", "hermes-weather", plugins=["weather"])
    write_lock(path, {"weather": weather, "notes": notes})
    fields = lambda e: {k: v for k, v in sorted(e.as_dict().items())}  # noqa: E731
    expected = {"lock_version": 1, "plugins": {"notes": fields(notes), "weather": fields(weather)}}
    # sorted keys and a two-space indent: the same plugins always give the same bytes, and a diff shows one line a field
    assert path.read_text() == json.dumps(expected, indent=2) + "\n"
    assert path.read_text().splitlines()[:3] == ["{", '  "lock_version": 1,', '  "plugins": {']
    assert read_lock(path) == {"notes": notes, "weather": weather}


def test_an_oversized_lock_is_refused_by_its_size_with_both_fixes(tmp_path):
    path = tmp_path / "plugins.lock"
    with path.open("wb") as file:
        file.truncate((16 << 20) + 1)  # sparse: costs no disk
    with pytest.raises(HermesError) as raised:
        read_lock(path)
    assert str(raised.value) == (
        f"{path}: the plugins.lock is 16,777,217 bytes, over the limit of 16,777,216 -> use a smaller file, or restore plugins.lock from a backup"
    )
    with path.open("r+b") as file:
        file.truncate(16 << 20)  # at the limit it is read (and then found not to be JSON)
    with pytest.raises(HermesError, match=r"not a plugins.lock \(invalid JSON"):
        read_lock(path)


def test_a_lock_that_is_not_utf8_names_the_byte(tmp_path):
    path = tmp_path / "plugins.lock"
    path.write_bytes(b'{"plugins": {}}\n\xff')
    with pytest.raises(HermesError) as raised:
        read_lock(path)
    assert str(raised.value) == (
        f"{path}:2: the plugins.lock is not UTF-8 text (byte 0xff at offset 16) -> convert it to UTF-8 (e.g. with iconv), or restore plugins.lock from a backup"
    )


def test_a_missing_lock_is_empty(tmp_path):
    assert read_lock(tmp_path / "plugins.lock") == {}


def test_pinned_shows_the_short_commit_or_the_version():
    assert LockEntry("n", "s", "git", "directory", "1.0", commit="0123456789abcdef").pinned() == "@0123456"
    assert LockEntry("w", "s", "index", "package", "0.3.1").pinned() == "==0.3.1"
    assert LockEntry("w", "s", "path", "directory").pinned() == ""


def test_an_entry_provides_its_key_its_plugins_and_its_distribution_in_any_spelling():
    entry = LockEntry("weather", "s", "index", "package", "1", "hermes-weather", plugins=["weather", "forecast"])
    assert entry.provides("weather") and entry.provides("forecast")
    assert entry.provides("Hermes_Weather") and entry.provides("hermes.weather")
    assert not entry.provides("hermes-other") and not entry.provides("")
    directory = LockEntry("memo", "s", "path", "directory", plugins=["memo"])
    assert not directory.provides("") and not directory.provides("other")
    assert LockEntry("memo", "s", "path", "directory", plugins=[]).provides("memo")


def test_find_entry_by_key_plugin_or_distribution_and_never_a_guess():
    weather = LockEntry("weather", "s", "index", "package", "1", "hermes-weather", plugins=["weather", "forecast"])
    notes = LockEntry("notes", "s", "index", "package", "1", "hermes-notes", plugins=["notes", "shared"])
    other = LockEntry("other", "s", "index", "package", "1", "hermes-other", plugins=["other", "shared"])
    entries = {"weather": weather, "notes": notes, "other": other}
    assert find_entry(entries, "weather") is weather
    assert find_entry(entries, "forecast") is weather
    assert find_entry(entries, "Hermes_Notes") is notes
    assert find_entry(entries, "shared") is None  # two entries provide it: ambiguous, so none
    assert find_entry(entries, "nothing") is None


def test_every_plugin_of_an_entry_is_listed_with_where_it_came_from(tmp_path):
    multi = LockEntry("multi", "hermes-multi", "index", "package", "2.0", "hermes-multi", plugins=["multi", "extra"])
    write_lock(lock_path(tmp_path), {"multi": multi})
    summary = {"source": "index", "spec": "hermes-multi", "version": "2.0", "commit": "", "pinned": "==2.0"}
    assert install_info(tmp_path) == {"multi": summary, "extra": summary}


def test_install_info_goes_on_without_a_damaged_lock(tmp_path, capsys):
    lock_path(tmp_path).write_text("{not json")
    assert install_info(tmp_path) == {}
    assert capsys.readouterr().err.startswith(f"warning: {lock_path(tmp_path)}: not a plugins.lock (invalid JSON")


@pytest.mark.parametrize(("text", "is_lock"), [('{"plugins": {}}', True), ('\n  \t{"plugins": {}}\n', True), ("hermes-weather\n", False), ("# {x}\n", False), ("", False)])
def test_a_file_given_to_r_is_a_lock_when_it_starts_with_a_brace(text, is_lock):
    assert looks_like_lock(text) is is_lock
