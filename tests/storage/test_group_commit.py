"""The group-commit writer: a burst of writes in one transaction, a refused write alone."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import sqlalchemy as sa

from agentry.storage import GroupCommitWriter, StorageConfigError, StorageWriteError

pytestmark = pytest.mark.timeout(60)

NOTES = sa.Table(
    "notes",
    sa.MetaData(),
    sa.Column("text", sa.String(40), primary_key=True),
    sa.CheckConstraint("length(text) < 10", name="short_notes"),
)


def add_note(connection: sa.Connection, text: str) -> str:
    connection.execute(NOTES.insert(), {"text": text})
    return text.upper()


def add_notes(connection: sa.Connection, texts: Sequence[str]) -> list[str]:
    connection.execute(NOTES.insert(), [{"text": text} for text in texts])
    return [text.upper() for text in texts]


def sync_engine(url: str, **options: object) -> sa.Engine:
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    engine = sa.create_engine(parsed, poolclass=sa.pool.NullPool, **options)  # pyright: ignore[reportArgumentType]
    NOTES.metadata.create_all(engine)
    return engine


def stored_notes(engine: sa.Engine) -> set[str]:
    with engine.connect() as connection:
        return set(connection.execute(sa.select(NOTES.c.text)).scalars())


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[sa.Engine]:
    engine = sync_engine(database_url)
    yield engine
    engine.dispose()


async def test_a_burst_of_writes_is_committed_in_one_transaction(engine: sa.Engine) -> None:
    writer = GroupCommitWriter(engine, write_one=add_note, write_many=add_notes)

    results = await asyncio.gather(*(writer.write(f"n{i}") for i in range(300)))
    await writer.close()

    assert results == [f"N{i}" for i in range(300)]
    assert writer.batches == 1
    assert stored_notes(engine) == {f"n{i}" for i in range(300)}


async def test_a_refused_write_fails_alone_and_the_others_of_its_batch_land(
    engine: sa.Engine,
) -> None:
    writer = GroupCommitWriter(
        engine, write_one=add_note, write_many=add_notes, describe=lambda text: f"note {text!r}"
    )

    writes = [writer.write(text) for text in ("first", "far too long a note", "third")]
    results = await asyncio.gather(*writes, return_exceptions=True)
    await writer.close()

    assert results[0] == "FIRST"
    assert results[2] == "THIRD"
    refusal = results[1]
    assert isinstance(refusal, StorageWriteError)
    assert "the database refused note 'far too long a note'" in str(refusal)
    assert "short_notes" in str(refusal) or "CHECK constraint" in str(refusal)
    assert stored_notes(engine) == {"first", "third"}


async def test_writes_of_one_key_go_in_order_one_per_batch(engine: sa.Engine) -> None:
    writer = GroupCommitWriter(
        engine, write_one=add_note, write_many=add_notes, key=lambda text: text[0]
    )

    await asyncio.gather(*(writer.write(text) for text in ("a1", "b1", "a2", "a3", "b2")))
    await writer.close()

    assert writer.batches == 3  # a1 b1, then a2 b2, then a3
    assert stored_notes(engine) == {"a1", "a2", "a3", "b1", "b2"}


async def test_an_error_of_the_write_itself_reaches_its_caller_as_it_is(
    engine: sa.Engine,
) -> None:
    def refuse_odd(connection: sa.Connection, text: str) -> str:
        if text.endswith("odd"):
            raise LookupError(f"{text} is odd")
        return add_note(connection, text)

    writer = GroupCommitWriter(engine, write_one=refuse_odd)

    results = await asyncio.gather(
        writer.write("one-odd"), writer.write("two"), return_exceptions=True
    )
    await writer.close()

    assert isinstance(results[0], LookupError)
    assert results[1] == "TWO"
    assert stored_notes(engine) == {"two"}


async def test_writes_to_a_locked_database_are_made_again_once_it_is_free(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.sqlite"
    engine = sync_engine(f"sqlite:///{path}", connect_args={"timeout": 0.05})
    writer = GroupCommitWriter(engine, write_one=add_note, write_many=add_notes, attempts=100)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock

    writes = asyncio.gather(writer.write("a"), writer.write("b"))
    while writer.batches < 3:  # the lock has turned the writes back twice
        await asyncio.sleep(0.01)
    assert not writes.done()
    other.execute("COMMIT")
    other.close()

    assert await writes == ["A", "B"]
    await writer.close()
    assert stored_notes(engine) == {"a", "b"}
    engine.dispose()


async def test_a_database_locked_past_every_attempt_fails_the_write_and_stores_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.sqlite"
    engine = sync_engine(f"sqlite:///{path}", connect_args={"timeout": 0.01})
    writer = GroupCommitWriter(engine, write_one=add_note, attempts=2)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")

    with pytest.raises(StorageWriteError, match="the database refused locked: database is locked"):
        await writer.write("locked")
    other.execute("COMMIT")
    other.close()
    await writer.close()

    assert stored_notes(engine) == set()
    engine.dispose()


def test_a_batch_size_below_one_is_refused() -> None:
    with pytest.raises(StorageConfigError, match="max_batch and attempts must be at least 1"):
        GroupCommitWriter(sa.create_engine("sqlite://"), write_one=add_note, max_batch=0)
