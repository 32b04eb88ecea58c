"""httpx loads only when a client is used: never for `hermes --help`, `hermes plugins list` or the result types."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHECK = """
import sys
{body}
loaded = sorted(name for name in ("httpx", "httpcore", "hermes_core.models.clients.transport") if name in sys.modules)
print("LOADED=" + ",".join(loaded))
"""


def _loaded(body: str, env_home) -> str:
    result = subprocess.run(
        [sys.executable, "-c", CHECK.format(body=body)],
        capture_output=True, text=True, timeout=60, env={"HERMES_HOME": str(env_home), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("body", [
    "import hermes_core.models.clients as c; c.ModelResponse; c.ModelAPIError; c.client_from_config",
    "import hermes_core.runtime.clients as c; c.ModelResponse; c.ModelAPIError; c.client_from_config",
    "import hermes_core.testing_servers",
    "from hermes_core.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
    "from hermes_core.cli.main import main\nmain(['plugins', 'list'])",
])
def test_httpx_is_not_imported(body, hermes_home):
    assert _loaded(body, hermes_home) == "LOADED="


def test_a_client_does_import_it(hermes_home):
    # The control for the test above: the check really detects httpx.
    assert "httpx" in _loaded("from hermes_core.models.clients import OpenAIChatClient", hermes_home)
