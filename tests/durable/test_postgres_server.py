"""The test suite's own PostgreSQL server: real, unprivileged, and one database per test."""

from __future__ import annotations

import os
from typing import Any, cast

import asyncpg  # pyright: ignore[reportMissingTypeStubs]
import psycopg

from tests.postgres import SERVER_USER, PostgresServer


def test_the_server_accepts_connections_and_keeps_data(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE notes (id serial PRIMARY KEY, body text)")
        connection.execute("INSERT INTO notes (body) VALUES ('kept')")
        row = connection.execute("SELECT body FROM notes").fetchone()
    assert row == ("kept",)


def test_each_test_gets_an_empty_database_of_its_own(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as connection:
        tables = connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    assert tables == (0,)


async def test_asyncpg_reaches_the_server_too(postgres_url: str) -> None:
    connection = cast("Any", await asyncpg.connect(postgres_url))  # pyright: ignore[reportUnknownMemberType]
    try:
        assert await connection.fetchval("SELECT 1 + 1") == 2
    finally:
        await connection.close()


def test_the_server_runs_as_an_unprivileged_user(postgres_server: PostgresServer) -> None:
    with psycopg.connect(postgres_server.url()) as connection:
        row = connection.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        owner = os.stat(f"/proc/{row[0]}").st_uid  # while the backend serves this connection
    assert owner != 0
    if os.geteuid() == 0:
        import pwd

        assert pwd.getpwuid(owner).pw_name == SERVER_USER


def test_stop_shuts_the_server_down_and_removes_its_directory() -> None:
    server = PostgresServer.start()
    root = server.root
    server.stop()
    assert not root.exists()
    try:
        psycopg.connect(server.url(), connect_timeout=5).close()
    except psycopg.OperationalError:
        pass
    else:
        raise AssertionError("the stopped server still accepts connections")
