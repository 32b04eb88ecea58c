"""A start of a session id shorter than 6 characters is refused with the reason, not as 'no session'."""

from __future__ import annotations

from hermes_plugins_builtin.state import SessionStore


def _one_session(hermes_home) -> str:
    with SessionStore(hermes_home / "state.db") as store:
        session = store.create_session(source="cli", title="tea")
        store.append_messages(session, [{"role": "user", "content": "green or black tea?"}])
    return session


def test_a_short_start_that_matches_says_it_is_too_short(run_hermes, hermes_home):
    session = _one_session(hermes_home)
    result = run_hermes("sessions", "show", session[:3])
    assert result.exit_code == 1
    assert "too short" in result.stderr and "6 characters" in result.stderr and "-> give more of the id" in result.stderr


def test_six_characters_are_enough_and_a_short_miss_is_no_session(run_hermes, hermes_home):
    session = _one_session(hermes_home)
    assert run_hermes("sessions", "show", session[:6]).exit_code == 0
    other = "0" if session[0] != "0" else "1"
    missing = run_hermes("sessions", "show", other + "z")
    assert missing.exit_code == 1 and f"no session '{other}z'" in missing.stderr
