"""Outside input, fuzzed: any honcho.json is a config or one clear error; any tool arguments give a JSON answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_bundled_plugins.memory.honcho.config import KEYS, HonchoConfigError, load_config
from hermes_bundled_plugins.memory.honcho.writer import CONTINUED, chunk_message

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
settings_dicts = st.dictionaries(st.sampled_from([*KEYS, "hosts", "unknownKey"]), json_values, max_size=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(root=settings_dicts, host=settings_dicts)
def test_any_honcho_json_is_a_config_or_a_clear_error(hermes_home: Path, root: dict[str, Any], host: dict[str, Any]) -> None:
    path = hermes_home / "honcho.json"
    path.write_text(json.dumps({**root, "hosts": {"hermes": host}}))
    try:
        config = load_config(hermes_home, {})
    except HonchoConfigError as exc:
        assert str(path) in str(exc) and "->" in str(exc)
        return
    assert 1 <= config.dialecticDepth <= 3 and config.recallMode in ("hybrid", "context", "tools")
    assert isinstance(config.enabled, bool) and config.workspace


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=400), limit=st.integers(20, 200))
def test_chunks_keep_every_word_within_the_limit(text: str, limit: int) -> None:
    pieces = chunk_message(text, limit)
    assert all(len(p) <= limit for p in pieces)
    assert all(p.startswith(CONTINUED) for p in pieces[1:])
    # Nothing lost, nothing added: a cut drops only the whitespace it was made at.
    body = pieces[0] + "".join(p.removeprefix(CONTINUED) for p in pieces[1:])
    assert "".join(body.split()) == "".join(text.split())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["honcho_profile", "honcho_search", "honcho_context", "honcho_reasoning", "honcho_conclude", "honcho_nope"]), args=st.dictionaries(st.sampled_from(["peer", "query", "conclusion", "delete_id", "max_tokens", "reasoning_level", "x"]), json_values, max_size=4))
def test_any_tool_arguments_get_a_json_answer(provider_for_fuzz: Any, name: str, args: dict[str, Any]) -> None:
    answer = json.loads(provider_for_fuzz.handle_tool_call(name, args))
    assert isinstance(answer, dict)
