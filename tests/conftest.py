"""Shared test setup: every test gets its own HERMES_HOME, and pip can never reach an index."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _isolated_home(hermes_home):
    """No test may read or write the real ~/.hermes."""
    return hermes_home


@pytest.fixture(autouse=True)
def _no_package_index(monkeypatch):
    """Point pip at a dead local port so no test installs from the internet by accident."""
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")


@pytest.fixture(autouse=True)
def _environment_left_as_found():
    """hermes exports ``$HERMES_HOME/.env`` and plugin settings into the process that runs it: a test running the CLI
    in-process would otherwise hand its tokens (and its server's URLs) to every later test of the same worker."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)


def _sigint_state() -> tuple[object, ...]:
    return signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, [])


@pytest.fixture(autouse=True)
def _sigint_left_as_found():
    """A test that leaves SIGINT ignored, handled or blocked in the worker changes every later test's Ctrl-C.

    Children inherit a blocked or ignored SIGINT, so the tests of what a Ctrl-C does would fail far from the
    cause (or the worker itself would stop on a SIGINT left pending). The test that changed it fails instead.
    """
    before = _sigint_state()
    yield
    after = _sigint_state()
    assert after == before, f"this test left SIGINT's handler or mask changed: {before} -> {after}"


def pytest_configure(config):
    # The scanner's meaning stage costs tens of milliseconds a note, and the suite scans tens of thousands of notes to
    # test the other detectors: tests of the stage itself (test_scanner_meaning.py) turn it on where they need it.
    os.environ["HERMES_SCANNER_MODEL"] = "off"
    # The suite already runs a worker process per core (pytest-xdist): the encoder's OpenMP threads on top of that
    # (one per core in every worker, and in the subprocesses tests start) outnumber the cores and spin at every
    # barrier waiting for each other, which made the meaning-stage tests several times slower on a shared 2-core
    # machine. One thread per process computes the same embeddings bit for bit. An explicit setting still wins.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import sys
    from pathlib import Path

    # A machine whose environment sets PYTHONDONTWRITEBYTECODE keeps no bytecode: every hermes command a test starts
    # (hundreds of them) then compiles each module it imports again, half of a CLI call's time (0.9 s against 0.47 s
    # for `hermes memory status`). The suite lets Python keep bytecode in the gitignored __pycache__ directories, so each
    # module is compiled once per run; what the tests check does not depend on it.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    # The tests of Ctrl-C send SIGINT as a terminal does, to hermes commands they start and to this process. A shell
    # starts a background job (`.ci/run &`, nohup, some CI runners) with SIGINT ignored, and every child inherits
    # that, so those commands would never see the Ctrl-C. The suite takes SIGINT back as an interactive run has it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # tests/venv_support.py is imported by name from the packaging tests.
    sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def build_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], object]], Path]:
    """``build_once(name, produce)``: a directory that ``produce(directory)`` filled, once per test run.

    Serially that is a fresh directory per session. Under pytest-xdist every worker is its own
    session, so the directory lives in the run's shared base temp directory instead and a file
    lock lets the first worker build it while the others wait and reuse it: wheels and venvs are
    built once per run, not once per worker. The result must only be read (copy it to change it).
    """
    from filelock import FileLock

    def build(name: str, produce: Callable[[Path], object]) -> Path:
        if not os.environ.get("PYTEST_XDIST_WORKER"):
            directory = tmp_path_factory.mktemp(name, numbered=True)
            produce(directory)
            return directory
        shared = tmp_path_factory.getbasetemp().parent  # this run's pytest-N, shared by its workers
        directory, done = shared / name, shared / f"{name}.done"
        with FileLock(str(shared / f"{name}.lock")):
            if not done.exists():
                shutil.rmtree(directory, ignore_errors=True)  # a worker that failed half-way
                directory.mkdir()
                produce(directory)
                done.touch()
        return directory

    return build


@pytest.fixture(scope="session")
def hermes_wheel(build_once: Callable[[str, Callable[[Path], object]], Path]) -> Path:
    """The wheel of this checkout, built once per run for every test that installs hermes."""
    from venv_support import REPO_ROOT, build_wheel

    (wheel,) = build_once("hermes-wheel", lambda out: build_wheel(REPO_ROOT, out)).glob("*.whl")
    return wheel
