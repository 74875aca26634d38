"""Versioned schemas: each store's tables carry a version, and stores upgrade them in order.

The table `agentry_schema_versions(component, version)` holds one row per component (a
store's table, such as `agentry_messages`). A component's schema is an ordered list of
migrations; migration `n` takes the component from version `n` to `n + 1`, and the first
one creates it. When a store opens its database it brings its component to the version it
knows, in one transaction, under a lock (an advisory transaction lock on PostgreSQL, the
file's write lock on SQLite), so two processes starting at once do not both migrate. A
database whose version is newer than the store knows is refused, and nothing is changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from agentry.storage._errors import SchemaVersionError, StorageError, newer_version_error
from agentry.storage._sqlite_versions import VERSIONS_TABLE
from agentry.storage._urls import safe_url

__all__ = [
    "Migration",
    "Schema",
    "create_tables",
    "ensure_schema",
    "lock_schema_changes",
    "read_schema_versions",
]

# A fixed key for pg_advisory_xact_lock: every agentry schema change in a database
# takes it ("agentry" in ASCII, as a number).
_LOCK_KEY = 0x6167656E747279

Migration = Callable[[sa.Connection], None]
"""One step of a component's schema: it runs in the upgrade's transaction."""

_versions = sa.Table(
    VERSIONS_TABLE,
    sa.MetaData(),
    sa.Column("component", sa.String(200), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
)


@dataclass(frozen=True)
class Schema:
    """The versioned layout of one component (a store's tables) in a database.

    Attributes:
        component: The component's name in the versions table (stores use their table's).
        migrations: Migration `n` takes the component from version `n` to `n + 1`; the
            first creates it. Never change a released migration: append one.

    Example:
        >>> import sqlalchemy as sa
        >>> notes = sa.MetaData()
        >>> _ = sa.Table("notes", notes, sa.Column("id", sa.Integer, primary_key=True))
        >>> schema = Schema("notes", (lambda connection: create_tables(connection, notes),))
        >>> schema.version
        1
    """

    component: str
    migrations: Sequence[Migration]

    @property
    def version(self) -> int:
        """The version this code writes: the number of migrations."""
        return len(self.migrations)


def lock_schema_changes(connection: sa.Connection) -> None:
    """On PostgreSQL, hold agentry's schema lock until `connection`'s transaction ends, so
    processes starting together do not race to create the same table (elsewhere a no-op)."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_LOCK_KEY)))


def create_tables(connection: sa.Connection, metadata: sa.MetaData) -> None:
    """Create `metadata`'s tables; a table that exists already is adopted when it has every
    column, so databases written before versions were recorded keep their data.

    Raises:
        SchemaVersionError: A table of that name exists without the expected columns.
    """
    inspector = sa.inspect(connection)
    for table in metadata.sorted_tables:
        if not inspector.has_table(table.name):
            table.create(connection)
            continue
        found = {column["name"] for column in inspector.get_columns(table.name)}
        missing = sorted(column.name for column in table.columns if column.name not in found)
        if missing:
            raise SchemaVersionError(
                f"the table {table.name!r} exists but lacks the columns {missing}: it is "
                "not the store's table; give the store another table name or database"
            )


async def ensure_schema(engine: AsyncEngine, schema: Schema) -> int:
    """Bring `schema.component` in `engine`'s database to `schema.version`; the version
    found before (0 when the component was missing).

    The migrations needed run in one transaction under the database's schema lock: a
    failed migration leaves the database as it was, and concurrent callers wait, then find
    the work done.

    Raises:
        SchemaVersionError: The database holds a newer version than `schema` knows, or a
            table of the component's name that is not the component's.
        StorageError: The database cannot be reached or changed.
    """
    try:
        async with engine.connect() as connection:
            return await _upgrade_locked(connection, schema)
    except SQLAlchemyError as error:
        raise StorageError(
            f"cannot prepare the tables of {schema.component!r} in {safe_url(engine.url)}: {error}"
        ) from error


async def _upgrade_locked(connection: AsyncConnection, schema: Schema) -> int:
    if connection.dialect.name == "sqlite":
        # pysqlite would begin lazily, at the first write; take the file's write lock
        # before reading the version, so a second process waits here.
        connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
        await connection.exec_driver_sql("BEGIN IMMEDIATE")
        try:
            found = await connection.run_sync(_upgrade, schema)
        except BaseException:
            await connection.exec_driver_sql("ROLLBACK")
            raise
        await connection.exec_driver_sql("COMMIT")
        return found
    async with connection.begin():
        if connection.dialect.name == "postgresql":
            await connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_LOCK_KEY)))
        return await connection.run_sync(_upgrade, schema)


def _upgrade(connection: sa.Connection, schema: Schema) -> int:
    _versions.create(connection, checkfirst=True)
    row = connection.execute(
        sa.select(_versions.c.version).where(_versions.c.component == schema.component)
    ).first()
    found = 0 if row is None else int(row[0])
    if found > schema.version:
        raise newer_version_error(schema.component, found, schema.version)
    for migration in schema.migrations[found:]:
        migration(connection)
    if found == 0:
        connection.execute(
            _versions.insert().values(component=schema.component, version=schema.version)
        )
    elif found < schema.version:
        connection.execute(
            _versions.update()
            .where(_versions.c.component == schema.component)
            .values(version=schema.version)
        )
    return found


async def read_schema_versions(engine: AsyncEngine) -> dict[str, int]:
    """The recorded version of every component in `engine`'s database (empty when none).

    Raises:
        StorageError: The database cannot be read.
    """

    def read(connection: sa.Connection) -> dict[str, int]:
        if not sa.inspect(connection).has_table(VERSIONS_TABLE):
            return {}
        rows = connection.execute(sa.select(_versions.c.component, _versions.c.version))
        return {str(component): int(version) for component, version in rows}

    try:
        async with engine.connect() as connection:
            return await connection.run_sync(read)
    except SQLAlchemyError as error:
        raise StorageError(
            f"cannot read the schema versions of {safe_url(engine.url)}: {error}"
        ) from error
