"""A throwaway PostgreSQL server for the tests, started from the machine's own binaries.

PostgreSQL refuses to run as root, so when the tests run as root the server runs as the
unprivileged system user `postgres` (through `runuser`), in a temporary directory that
user owns. It listens on a free port of 127.0.0.1 and on a Unix socket in that directory,
with trust authentication, and without fsync (the data is thrown away at the end).

    server = PostgresServer.start()
    url = server.create_database("orders")   # postgresql://postgres@127.0.0.1:PORT/orders
    ...
    server.stop()
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PostgresServer", "find_postgres_binaries"]

SERVER_USER = "postgres"
_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "300",
    "shared_buffers": "32MB",
    "log_min_messages": "warning",
}


def find_postgres_binaries() -> Path:
    """The newest `/usr/lib/postgresql/<version>/bin` that holds `initdb`.

    Raises:
        RuntimeError: PostgreSQL is not installed (`make test` installs it).
    """
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parent.parent.name.split(".")[0]),
    )
    if not found:
        raise RuntimeError(
            "PostgreSQL is not installed: no /usr/lib/postgresql/*/bin/initdb; run "
            "`make test` (it installs Debian's postgresql package) or "
            "`apt-get install postgresql`"
        )
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """A running PostgreSQL server in a temporary directory; `stop()` removes it all."""

    def __init__(self, root: Path, binaries: Path, port: int, run_as: str | None) -> None:
        self.root = root
        self.binaries = binaries
        self.port = port
        self.run_as = run_as
        self.data = root / "data"
        self.socket_dir = root / "socket"
        self.log = root / "server.log"

    @classmethod
    def start(cls) -> PostgresServer:
        """Create a cluster in a new temporary directory and start a server on it."""
        binaries = find_postgres_binaries()
        run_as = SERVER_USER if os.geteuid() == 0 else None
        root = Path(tempfile.mkdtemp(prefix="agentry-postgres-"))
        server = cls(root, binaries, _free_port(), run_as)
        try:
            server.socket_dir.mkdir()
            if run_as is not None:
                account = pwd.getpwnam(run_as)
                for path in (root, server.socket_dir):
                    os.chown(path, account.pw_uid, account.pw_gid)
            server._run(
                "initdb",
                "--pgdata",
                str(server.data),
                "--username",
                "postgres",
                "--auth",
                "trust",
                "--encoding",
                "UTF8",
                "--no-sync",
            )
            options = " ".join(f"-c {key}={value}" for key, value in _SETTINGS.items())
            server._run(
                "pg_ctl",
                "start",
                "--pgdata",
                str(server.data),
                "--wait",
                "--timeout",
                "60",
                "--log",
                str(server.log),
                "-o",
                f"-p {server.port} -k {server.socket_dir} {options}",
            )
        except BaseException:
            server._remove()
            raise
        return server

    def _run(self, program: str, *arguments: str) -> None:
        command = [str(self.binaries / program), *arguments]
        if self.run_as is not None:
            command = ["runuser", "-u", self.run_as, "--", *command]
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, cwd=self.root, timeout=120
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(
                f"{program} failed ({done.returncode}): {done.stderr.strip()}\n{log[-2000:]}"
            )

    def url(self, database: str = "postgres", *, driver: str = "postgresql") -> str:
        """The URL of `database` on this server (over 127.0.0.1), for `driver`."""
        return f"{driver}://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database; its `postgresql://` URL."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove its directory."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "stop", "--pgdata", str(self.data), "--mode", "immediate")
        finally:
            self._remove()

    def _remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
