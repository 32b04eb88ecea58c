"""`hermes memory switch` to a provider that is not available: one cause, one fix, in text and in --json."""

from __future__ import annotations


def test_a_provider_whose_reason_names_its_own_fix_reads_as_one_cause_and_one_fix(run_hermes, hermes_home, monkeypatch):
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)
    monkeypatch.delenv("HONCHO_BASE_URL", raising=False)
    result = run_hermes("memory", "switch", "honcho", "--json")
    assert result.exit_code == 1
    error = result.json()
    assert error["error"].count(" -> ") == 1
    # Honcho's own reason ('not configured -> run hermes honcho setup') is split between the two halves
    assert error["cause"] == ("memory provider 'honcho' is not available: Honcho is not configured: no apiKey or baseUrl; "
                              "not set: HONCHO_API_KEY")
    assert error["fix"].startswith("run 'hermes honcho setup'")
    assert error["fix"].endswith("; or run 'hermes memory setup honcho', then 'hermes memory status'; nothing was changed")
    assert not (hermes_home / "config.yaml").exists()
