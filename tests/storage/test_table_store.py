"""The bases of a store of one's own: `SQLTableStore` gets its table versioned on first
use or `prepare()`, its own open error, and `close()` that leaves a shared engine open;
`open_sqlite_store` opens a plain `sqlite3` file at its store's version."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry import SQLHistoryProvider
from agentry.storage import (
    DATABASE_URL_ENV,
    SchemaVersionError,
    SQLTableStore,
    StorageConfigError,
    StorageError,
    create_engine,
    open_sqlite_store,
)
from agentry.workflows import SQLCheckpointStorage
from tests.storage.versions import schema_versions


class NoteStoreError(Exception):
    """The note store's own error."""


class NoteStore(SQLTableStore):
    def __init__(
        self, url: str | os.PathLike[str] | None = None, *, engine: AsyncEngine | None = None
    ) -> None:
        super().__init__(
            sa.Table(
                "notes",
                sa.MetaData(),
                sa.Column("id", sa.Integer, primary_key=True),
                sa.Column("text", sa.Text, nullable=False),
            ),
            url=url,
            engine=engine,
            open_error=lambda error: NoteStoreError(f"notes unavailable: {error}"),
        )

    async def add(self, text: str) -> None:
        engine = await self._engine()
        async with engine.begin() as connection:
            await connection.execute(self.table.insert().values(text=text))

    async def texts(self) -> list[str]:
        engine = await self._engine()
        async with engine.connect() as connection:
            rows = await connection.execute(sa.select(self.table.c.text).order_by(self.table.c.id))
            return [text for (text,) in rows]


async def test_a_store_of_ones_own_versions_its_table_on_first_use(database_url: str) -> None:
    store = NoteStore(database_url)
    await store.add("first")
    await store.add("second")
    assert await store.texts() == ["first", "second"]
    await store.close()
    assert await schema_versions(database_url) == {"notes": 1}
    reopened = NoteStore(database_url)
    assert await reopened.texts() == ["first", "second"]
    await reopened.close()


async def prepared(url: str) -> None:
    store = NoteStore(url)
    await store.prepare()
    await store.close()


async def test_prepare_creates_the_table_ahead_of_use(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'notes.sqlite'}"
    await prepared(url)
    assert await schema_versions(url) == {"notes": 1}


async def test_close_leaves_a_shared_engine_open(tmp_path: Path) -> None:
    engine = create_engine(tmp_path / "shared.sqlite")
    notes = NoteStore(engine=engine)
    history = SQLHistoryProvider(engine=engine)
    await notes.add("kept")
    await notes.close()
    await history.close()
    async with engine.connect() as connection:
        assert (await connection.execute(sa.text("SELECT text FROM notes"))).scalar() == "kept"
    await engine.dispose()


async def test_a_database_it_cannot_open_raises_the_stores_own_error(tmp_path: Path) -> None:
    not_a_database = tmp_path / "notes.sqlite"
    not_a_database.write_bytes(b"these bytes are no SQLite database" * 100)
    store = NoteStore(not_a_database)
    with pytest.raises(NoteStoreError, match="notes unavailable") as raised:
        await store.prepare()
    assert isinstance(raised.value.__cause__, StorageError)
    await store.close()


async def test_a_newer_table_is_refused_whatever_the_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'notes.sqlite'}"
    await prepared(url)
    engine = create_engine(url)
    async with engine.begin() as connection:
        await connection.execute(
            sa.text("UPDATE agentry_schema_versions SET version = 9 WHERE component = 'notes'")
        )
    await engine.dispose()
    store = NoteStore(url)
    with pytest.raises(SchemaVersionError):
        await store.add("refused")
    await store.close()


def test_url_and_engine_together_are_refused(tmp_path: Path) -> None:
    engine = create_engine(tmp_path / "notes.sqlite")
    with pytest.raises(StorageConfigError, match="NoteStore takes url= or engine="):
        NoteStore(tmp_path / "notes.sqlite", engine=engine)


def test_without_a_database_the_store_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    with pytest.raises(
        StorageConfigError, match=r"NoteStore needs a database.*AGENTRY_DATABASE_URL"
    ):
        NoteStore()


def test_agentrys_sql_stores_are_table_stores() -> None:
    assert issubclass(SQLHistoryProvider, SQLTableStore)
    assert issubclass(SQLCheckpointStorage, SQLTableStore)


def create_plain_notes(connection: sqlite3.Connection) -> None:
    connection.execute("CREATE TABLE plain_notes (text TEXT)")


def test_a_sqlite_store_opens_its_file_at_its_version_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "plain.sqlite"
    connection = open_sqlite_store(path, "plain_notes", [create_plain_notes], wal=True)
    connection.execute("INSERT INTO plain_notes VALUES ('kept')")  # autocommit
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    connection.close()
    again = open_sqlite_store(path, "plain_notes", [create_plain_notes])
    assert again.execute("SELECT text FROM plain_notes").fetchall() == [("kept",)]
    assert again.execute(
        "SELECT version FROM agentry_schema_versions WHERE component = 'plain_notes'"
    ).fetchall() == [(1,)]
    again.close()


def add_plain_author(connection: sqlite3.Connection) -> None:
    connection.execute("ALTER TABLE plain_notes ADD COLUMN author TEXT")


def test_a_sqlite_store_refuses_a_newer_version(tmp_path: Path) -> None:
    path = tmp_path / "plain.sqlite"
    open_sqlite_store(path, "plain_notes", [create_plain_notes, add_plain_author]).close()
    with pytest.raises(SchemaVersionError):
        open_sqlite_store(path, "plain_notes", [create_plain_notes])
