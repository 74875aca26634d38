"""Reading a database's recorded schema versions, for the stores' tests."""

from __future__ import annotations

from agentry.storage import create_engine, read_schema_versions


async def schema_versions(database_url: str) -> dict[str, int]:
    """The versions `agentry_schema_versions` records in the database at `database_url`."""
    engine = create_engine(database_url)
    try:
        return await read_schema_versions(engine)
    finally:
        await engine.dispose()
