"""Each store's tables carry a version: created when missing, upgraded in order in one
transaction, a newer version refused, and concurrent first starts migrate once."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from agentry import Message, SQLHistoryProvider
from agentry.storage import (
    Schema,
    SchemaVersionError,
    create_engine,
    create_tables,
    ensure_schema,
    read_schema_versions,
)
from agentry.workflows import SQLCheckpointStorage, SQLiteCheckpointStorage
from tests.storage.versions import schema_versions

ROOT = Path(__file__).resolve().parents[2]

notes_v1 = sa.MetaData()
sa.Table(
    "notes",
    notes_v1,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
)


def create_notes(connection: sa.Connection) -> None:
    create_tables(connection, notes_v1)


def add_author(connection: sa.Connection) -> None:
    connection.execute(sa.text("ALTER TABLE notes ADD COLUMN author TEXT"))
    connection.execute(sa.text("UPDATE notes SET author = 'unknown'"))


def add_tags_then_fail(connection: sa.Connection) -> None:
    connection.execute(sa.text("ALTER TABLE notes ADD COLUMN tags TEXT"))
    raise RuntimeError("the migration failed half-way")


NOTES_V1 = Schema("notes", (create_notes,))
NOTES_V2 = Schema("notes", (create_notes, add_author))


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


async def columns(engine: AsyncEngine, table: str) -> list[str]:
    async with engine.connect() as connection:
        found = await connection.run_sync(lambda sync: sa.inspect(sync).get_columns(table))
    return [column["name"] for column in found]


async def test_stores_record_the_version_of_their_tables(database_url: str) -> None:
    history = SQLHistoryProvider(database_url)
    checkpoints = SQLCheckpointStorage(database_url)
    await history.get_messages("s")
    await checkpoints.list_checkpoint_ids(workflow_name="w")
    await history.close()
    await checkpoints.close()
    assert await schema_versions(database_url) == {
        "agentry_messages": 1,
        "agentry_workflow_checkpoints": 1,
    }


async def test_an_older_version_is_migrated_keeping_its_rows(engine: AsyncEngine) -> None:
    assert await ensure_schema(engine, NOTES_V1) == 0
    async with engine.begin() as connection:
        await connection.execute(sa.text("INSERT INTO notes (id, text) VALUES (1, 'kept')"))

    assert await ensure_schema(engine, NOTES_V2) == 1
    assert await ensure_schema(engine, NOTES_V2) == 2  # nothing left to do

    assert await read_schema_versions(engine) == {"notes": 2}
    async with engine.connect() as connection:
        rows = (await connection.execute(sa.text("SELECT id, text, author FROM notes"))).all()
    assert [tuple(row) for row in rows] == [(1, "kept", "unknown")]


async def test_a_failed_migration_leaves_the_database_as_it_was(engine: AsyncEngine) -> None:
    await ensure_schema(engine, NOTES_V1)
    broken = Schema("notes", (create_notes, add_tags_then_fail))
    with pytest.raises(RuntimeError, match="failed half-way"):
        await ensure_schema(engine, broken)
    assert await read_schema_versions(engine) == {"notes": 1}
    assert await columns(engine, "notes") == ["id", "text"]


async def test_a_newer_version_is_refused_and_nothing_is_changed(database_url: str) -> None:
    provider = SQLHistoryProvider(database_url)
    await provider.save_messages("s", [Message("user", ["kept"])])
    await provider.close()
    engine = create_engine(database_url)
    async with engine.begin() as connection:
        await connection.execute(
            sa.text(
                "UPDATE agentry_schema_versions SET version = 7 "
                "WHERE component = 'agentry_messages'"
            )
        )

    newer = SQLHistoryProvider(database_url)
    try:
        with pytest.raises(
            SchemaVersionError,
            match=r"version 7 of 'agentry_messages', written by a newer agentry; this one "
            r"knows version 1 at most\. Upgrade agentry",
        ):
            await newer.get_messages("s")
        with pytest.raises(SchemaVersionError):
            await newer.save_messages("s", [Message("user", ["refused"])])
    finally:
        await newer.close()
    async with engine.connect() as connection:
        rows = (await connection.execute(sa.text("SELECT message FROM agentry_messages"))).all()
    await engine.dispose()
    assert len(rows) == 1


async def test_a_table_written_before_versions_is_adopted(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        await connection.execute(
            sa.text("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        )
        await connection.execute(sa.text("INSERT INTO notes VALUES (1, 'old')"))
    assert await ensure_schema(engine, NOTES_V2) == 0
    async with engine.connect() as connection:
        rows = (await connection.execute(sa.text("SELECT text, author FROM notes"))).all()
    assert [tuple(row) for row in rows] == [("old", "unknown")]
    assert await read_schema_versions(engine) == {"notes": 2}


async def test_a_foreign_table_of_the_stores_name_is_refused(database_url: str) -> None:
    engine = create_engine(database_url)
    async with engine.begin() as connection:
        await connection.execute(sa.text("CREATE TABLE agentry_messages (note TEXT)"))
    await engine.dispose()
    provider = SQLHistoryProvider(database_url)
    try:
        with pytest.raises(
            SchemaVersionError,
            match=r"'agentry_messages' exists but lacks the columns \['id', 'message', "
            r"'session_id'\]",
        ):
            await provider.get_messages("s")
    finally:
        await provider.close()


def test_processes_starting_at_once_migrate_once(database_url: str, tmp_path: Path) -> None:
    go = tmp_path / "go"
    environment = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.storage.first_start", database_url, str(go)],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for process in processes:  # all started, waiting for the word
        assert process.stdout is not None
        assert process.stdout.readline() == "ready\n"
    go.touch()
    outcomes = [process.communicate(timeout=60) for process in processes]
    assert [out for out, _ in outcomes] == ["ok\n"] * 3, [err for _, err in outcomes]
    engine = sa.create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as connection:
        notes = connection.execute(sa.text("SELECT note FROM race_runs")).all()
        version = connection.execute(
            sa.text("SELECT version FROM agentry_schema_versions WHERE component = 'race'")
        ).all()
    engine.dispose()
    assert [tuple(row) for row in notes] == [("created",)]
    assert [tuple(row) for row in version] == [(1,)]


async def test_the_sqlite_checkpoint_file_is_versioned_like_the_sql_stores(tmp_path: Path) -> None:
    database = tmp_path / "checkpoints.sqlite"
    plain = SQLiteCheckpointStorage(database)
    assert await plain.list_checkpoint_ids(workflow_name="w") == []
    await plain.close()
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT * FROM agentry_schema_versions").fetchall() == [
            ("agentry_workflow_checkpoints", 1)
        ]
        connection.execute("UPDATE agentry_schema_versions SET version = 3")
    newer = SQLiteCheckpointStorage(database)
    with pytest.raises(SchemaVersionError, match="version 3 of 'agentry_workflow_checkpoints'"):
        await newer.list_checkpoint_ids(workflow_name="w")
    await newer.close()
    sql = SQLCheckpointStorage(f"sqlite:///{database}")
    with pytest.raises(SchemaVersionError, match="version 3 of 'agentry_workflow_checkpoints'"):
        await sql.list_checkpoint_ids(workflow_name="w")
    await sql.close()
