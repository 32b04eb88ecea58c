"""With --json, a failed command still prints JSON on stdout: scripts parse one thing whatever happens."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize(
    ("argv", "exit_code", "named"),
    [
        (("plugins", "info", "no_such_plugin", "--json"), 1, "no_such_plugin"),
        (("plugins", "enable", "no_such_plugin", "--json"), 1, "no_such_plugin"),
        (("memory", "switch", "no_such_provider", "--json"), 1, "no_such_provider"),
        (("sessions", "show", "--json", "zzzzzzzz"), 1, "zzzzzzzz"),
        (("sessions", "list", "--limit", "abc", "--json"), 2, "--limit"),
        (("sessions", "search", "", "--json"), 1, "query is empty"),
    ],
)
def test_an_error_is_json_on_stdout_and_text_on_stderr(run_hermes, argv, exit_code, named):
    result = run_hermes(*argv)
    assert result.exit_code == exit_code
    answer = json.loads(result.stdout)
    assert sorted(answer) == ["cause", "error", "exit_code", "fix"]
    assert answer["exit_code"] == exit_code and named in answer["error"]
    assert answer["error"].startswith(answer["cause"])
    assert f"hermes: error: {answer['error']}" in result.stderr  # people reading a terminal see the same line
    assert "Traceback" not in result.stderr


def test_the_fix_is_split_from_the_cause(run_hermes):
    answer = json.loads(run_hermes("plugins", "info", "no_such_plugin", "--json").stdout)
    assert answer["cause"] == "no plugin named 'no_such_plugin'"
    assert answer["fix"] == "'hermes plugins list' shows every plugin found"


def test_without_json_an_error_leaves_stdout_empty(run_hermes):
    result = run_hermes("plugins", "info", "no_such_plugin")
    assert result.exit_code == 1 and result.stdout == ""


def test_json_after_double_dash_is_a_query_not_the_option(run_hermes):
    result = run_hermes("sessions", "search", "--", "--json")
    assert result.exit_code == 0 and result.stdout.strip() == "no matches"


def test_a_command_that_answers_in_json_on_failure_prints_one_document(run_hermes):
    result = run_hermes("memory", "remove", "--json", "not in any entry")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["success"] is False  # the memory tool's own answer, not a second object


@pytest.mark.parametrize(("message", "cause", "fix"), [
    ("no plugin named 'x' -> 'hermes plugins list' shows every plugin found",
     "no plugin named 'x'", "'hermes plugins list' shows every plugin found"),
    ("plugins.lock: not a plugins.lock (invalid JSON: bad -> worse) -> restore it from a backup",
     "plugins.lock: not a plugins.lock (invalid JSON: bad -> worse)", "restore it from a backup"),
    ("state.db stayed locked [busy -> retry] {a -> b} -> close the other hermes",
     "state.db stayed locked [busy -> retry] {a -> b}", "close the other hermes"),
    ("the query '(' is refused -> give words", "the query '(' is refused", "give words"),  # a lone bracket
    ("the provider failed: timeout -> retry later -> or switch providers",
     "the provider failed: timeout", "retry later -> or switch providers"),
    ("nothing to fix here", "nothing to fix here", ""),
    ("odd ) closing first -> still split", "odd ) closing first", "still split"),
])
def test_the_cause_ends_at_the_first_arrow_outside_brackets(message, cause, fix):
    from hermes_core.errors import split_cause_and_fix

    assert split_cause_and_fix(message) == (cause, fix)



def _strict(text):
    """json.loads as jq or JavaScript read: NaN and Infinity are not JSON."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_figures_a_provider_reports_as_nan_or_infinity_are_null_in_strict_json(run_hermes, make_plugin, hermes_home):
    make_plugin("ratios", """
        from agent.memory_provider import MemoryProvider

        class Ratios(MemoryProvider):
            @property
            def name(self):
                return "ratios"
            def is_available(self):
                return True
            def initialize(self, session_id, **kwargs):
                pass
            def get_tool_schemas(self):
                return []
            def status_details(self):
                return {"hit_rate": float("nan"), "budget": float("inf"), "floor": -float("inf"), "kept": [0.5, float("nan")]}

        def register(ctx):
            ctx.register_memory_provider(Ratios())
    """, manifest={"name": "ratios", "version": "1.0", "kind": "exclusive"})
    assert run_hermes("memory", "setup", "ratios", "--yes").exit_code == 0
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert _strict(result.stdout)["details"] == {"hit_rate": None, "budget": None, "floor": None, "kept": [0.5, None]}
