"""A process that opens a database at the same moment as others (see test_schema_versions).

    python -m tests.storage.first_start URL GO_FILE

It says "ready" once its imports are done, waits for GO_FILE to exist, then brings the component `race` to its version: the
first migration creates a table, takes a while, and notes that it ran. Prints "ok".
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import sqlalchemy as sa

from agentry.storage import Schema, create_engine, ensure_schema

_metadata = sa.MetaData()
runs = sa.Table("race_runs", _metadata, sa.Column("note", sa.String(20), nullable=False))


def create_and_linger(connection: sa.Connection) -> None:
    runs.create(connection)
    time.sleep(0.5)  # widens the window in which an unlocked second process would collide
    connection.execute(runs.insert().values(note="created"))


RACE = Schema("race", (create_and_linger,))


async def main(url: str, go: Path) -> None:
    engine = create_engine(url)
    print("ready", flush=True)
    while not go.exists():
        await asyncio.sleep(0.002)
    try:
        await ensure_schema(engine, RACE)
    finally:
        await engine.dispose()
    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
