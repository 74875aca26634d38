"""Fixtures every test area may use."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.aiosqlite_threads import aiosqlite_workers, open_aiosqlite_connections
from tests.postgres import PostgresServer


@pytest.fixture(autouse=True)
def _no_sqlite_connection_left_open() -> Iterator[None]:
    """Fails a test that leaves an aiosqlite connection open: its thread would outlive the
    test's event loop and fail a later test with "Event loop is closed"."""
    before = aiosqlite_workers()
    yield
    left = open_aiosqlite_connections(before)
    if left:
        pytest.fail(
            f"{len(left)} aiosqlite connection(s) left open: close the store, provider "
            "or engine (`await store.close()`, `await engine.dispose()`) the test opened",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of the machine's own binaries, for the whole test session."""
    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def llama_server() -> Iterator[str]:
    """The base URL (without `/v1`) of llama.cpp's `llama-server` running the default local
    model, started on first use and shared by the whole session (the provider suites, the
    CLI and the examples). Its key is `tests.providers.llama_server.API_KEY`."""
    from tests.providers.llama_server import running_llama_server

    with running_llama_server() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The `postgresql://` URL of a new, empty database for one test."""
    return postgres_server.create_database(f"test_{uuid.uuid4().hex[:12]}")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A new, empty database for one test: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('database') / 'agentry.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))
