"""A throwaway PostgreSQL server in a temporary directory, for tests and benchmarks.

The server binaries come from the ``pgserver`` wheel (a dev dependency, so the test
suite needs no system install) or, failing that, from a PostgreSQL installed on the
machine (``pg_ctl`` on PATH or Debian's /usr/lib/postgresql/<version>/bin). The
cluster is initialised with a UTF-8 locale and password authentication over TCP on
127.0.0.1 and a free port; PostgreSQL refuses to run as root, so under root the
server runs as an unprivileged system user created for it.

Standard library only: importing this module costs nothing.
"""
from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

SERVER_USER = "hermes-pgtest"
SUPERUSER = "postgres"
#: How often a server is started on a new port when its free port was taken meanwhile.
_START_ATTEMPTS = 3


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries were found on this machine."""


def find_bin_dir() -> Path:
    """The directory holding initdb, pg_ctl and postgres."""
    spec = importlib.util.find_spec("pgserver")  # located, not imported: its import has side effects
    if spec and spec.origin:
        candidate = Path(spec.origin).parent / "pginstall" / "bin"
        if (candidate / "pg_ctl").exists():
            return candidate
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "pg_ctl").exists():
            return candidate
    raise PostgresUnavailable("no PostgreSQL server binaries found -> pip install pgserver "
                              "(part of the dev extra), or install PostgreSQL")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_user() -> pwd.struct_passwd | None:
    """None when not root; otherwise the unprivileged user the server runs as (created once)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        pass
    # Parallel test workers each start a server: only one may run useradd (a second one fails
    # with "user already exists" or on /etc/passwd's lock), the others wait and find the user.
    lock_path = Path(tempfile.gettempdir()) / f"{SERVER_USER}-useradd.lock"
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return pwd.getpwnam(SERVER_USER)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVER_USER],
                           check=True, capture_output=True)
            return pwd.getpwnam(SERVER_USER)


def _make_reachable(path: Path) -> None:
    # the unprivileged server user must be able to traverse to the binaries' libraries
    for part in [path, *path.parents]:
        mode = part.stat().st_mode
        if mode & 0o005 != 0o005:
            part.chmod(mode | 0o005)


@dataclass
class PostgresServer:
    """One running cluster; ``url(db)`` gives a connection URL, ``stop()`` / ``start()`` restart it."""

    root: Path
    port: int
    password: str
    bin_dir: Path
    user: pwd.struct_passwd | None
    _counter: int = field(default=0)

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres", *, password: str | None = None, port: int | None = None) -> str:
        pw = self.password if password is None else password
        return f"postgresql://{SUPERUSER}:{pw}@127.0.0.1:{port or self.port}/{database}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        kwargs: dict = {}
        if self.user is not None:
            kwargs.update(user=self.user.pw_uid, group=self.user.pw_gid, extra_groups=[])
        env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        return subprocess.run([str(self.bin_dir / args[0]), *args[1:]], check=check, capture_output=True,
                              text=True, env=env, cwd=self.root, **kwargs)

    def init(self) -> None:
        pwfile = self.root / "pwfile"
        pwfile.write_text(self.password + "\n")
        self._chown(pwfile)
        self._run("initdb", "-D", str(self.data_dir), "-U", SUPERUSER, "--pwfile", str(pwfile),
                  "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8")
        pwfile.unlink()

    def start(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories='{self.root}' "
                   "-c fsync=on -c max_connections=200 -c shared_buffers=64MB")
        result = self._run("pg_ctl", "-D", str(self.data_dir), "-l", str(self.root / "server.log"),
                           "-o", options, "-w", "-t", "60", "start", check=False)
        if result.returncode != 0:
            log = (self.root / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"PostgreSQL did not start: {result.stderr.strip()}\n{log}")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data_dir), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop()
        self.start()

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its name."""
        import psycopg  # only the tests that need a database pay for the driver

        if name is None:
            self._counter += 1
            name = f"t{os.getpid()}_{self._counter}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        """Drop the database ``name``, ending any session still connected to it."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _chown(self, path: Path) -> None:
        if self.user is not None:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)


@contextlib.contextmanager
def running_server(password: str = "hermes-test-secret", *, parent: Path | None = None) -> Iterator[PostgresServer]:
    """Start a fresh cluster in a temporary directory (in ``parent``, default the system's temporary directory);
    stop and delete it afterwards."""
    bin_dir = find_bin_dir()
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="hermes-pg-", dir=parent))
    if user is not None:
        _make_reachable(bin_dir.parent / "lib")
        _make_reachable(bin_dir.parent / "share")
        _make_reachable(bin_dir)
        root.chmod(0o700)
        os.chown(root, user.pw_uid, user.pw_gid)
    server = PostgresServer(root=root, port=free_port(), password=password, bin_dir=bin_dir, user=user)
    try:
        server.init()
        started = time.monotonic()
        for attempt in range(_START_ATTEMPTS):
            try:
                server.start()
                break
            except RuntimeError as error:
                # The free port can be taken before the server binds it (another test run starting
                # its own server, say): pick another one rather than fail the whole run.
                if "Address already in use" not in str(error) or attempt == _START_ATTEMPTS - 1:
                    raise
                server.port = free_port()
        server.startup_seconds = time.monotonic() - started  # type: ignore[attr-defined]
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)
