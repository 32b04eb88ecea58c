"""Mem0 settings from outside input: config.yaml values and a mem0.json written by anyone."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem0_testkit import plugin_module

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3),
    max_leaves=8,
)
KEYS = st.sampled_from(["mode", "user_id", "agent_id", "infer", "rerank", "top_k", "timeout", "prefetch_timeout", "host", "api_key",
                        "user_ids", "llm", "embedder", "vector_store", "store", "breaker", "max_attempts", "telemetry"])


def test_any_mem0_json_gives_settings_or_one_clear_error(open_provider, mem0_home):
    module = plugin_module(open_provider(), "settings")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.dictionaries(KEYS, JSON_VALUES, max_size=6) | JSON_VALUES)
    def check(data):
        (mem0_home / "mem0.json").write_text(json.dumps(data))
        try:
            loaded = module.load_settings(mem0_home)
        except module.SettingsError as exc:
            assert "->" in str(exc) or "must be" in str(exc), exc
            return
        assert loaded.mode in ("local", "platform") and loaded.user_id and loaded.top_k >= 1
        assert loaded.api_key is None, "a key in mem0.json is never used"

    check()


def test_a_bad_setting_makes_status_say_which_and_how_to_fix(run_hermes, mem0_home):
    (mem0_home / "config.yaml").write_text((mem0_home / "config.yaml").read_text() + "    top_k: lots\n")
    result = run_hermes("memory", "status")
    assert result.exit_code == 1 and "Traceback" not in result.stderr + result.stdout
    assert "memory.mem0.top_k is 'lots'" in result.stdout and "hermes config set memory.mem0.top_k" in result.stdout


def test_an_unreadable_mem0_json_is_a_note_not_a_failure(open_provider, mem0_home):
    (mem0_home / "mem0.json").write_text("{not json")
    provider = open_provider()
    assert provider.settings.mode == "local"
    assert any("mem0.json is not readable JSON" in problem for problem in provider.problems())


@pytest.mark.parametrize(("make", "kind"), [
    (lambda path: __import__("os").mkfifo(path), "a FIFO"),
    (lambda path: path.symlink_to("/dev/zero"), "a device or socket"),
])
def test_a_mem0_json_that_is_no_file_is_a_note_not_a_hang(mem0_home, make, kind):
    # reading a FIFO blocked 'hermes memory status' forever; /dev/zero was read until memory ran out:
    # a process of its own, bounded, so that failure fails the test instead of stopping the run
    import subprocess
    import sys

    make(mem0_home / "mem0.json")
    code = ("import sys; from hermes_bundled_plugins.memory.mem0.settings import load_settings; "
            "from pathlib import Path; print(*load_settings(Path(sys.argv[1]), env={}).notes, sep='\\n')")
    result = subprocess.run([sys.executable, "-c", code, str(mem0_home)], capture_output=True, text=True, timeout=60, check=True)
    assert f"{mem0_home / 'mem0.json'}: the mem0.json is {kind}, not a regular file; it is ignored -> fix or delete it" in result.stdout


def test_a_mem0_json_saved_with_a_byte_order_mark_is_read(open_provider, mem0_home):
    (mem0_home / "mem0.json").write_bytes('\ufeff{"top_k": 7}'.encode("utf-8"))
    provider = open_provider()
    assert provider.settings.top_k == 7
    assert not any("mem0.json" in problem for problem in provider.problems())


@pytest.mark.parametrize(("key", "value"), [("top_k", "Infinity"), ("prefetch_timeout", "NaN"), ("prefetch_timeout", "Infinity"), ("max_attempts", "-Infinity")])
def test_numbers_that_are_not_finite_are_refused_with_the_key_and_the_fix(open_provider, mem0_home, key, value):
    module = plugin_module(open_provider(), "settings")
    (mem0_home / "mem0.json").write_text(f'{{"{key}": {value}}}')  # Python's json reads and writes these
    with pytest.raises(module.SettingsError) as refused:
        module.load_settings(mem0_home)
    assert str(refused.value) == (f"memory.mem0.{key} is {float(value)!r}; it must be a number of at least "
                                  f"{0 if key == 'prefetch_timeout' else 1} -> 'hermes config set memory.mem0.{key} <number>'")
