"""Fixtures every test area may use."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.postgres import PostgresServer


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of the machine's own binaries, for the whole test session."""
    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()


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
