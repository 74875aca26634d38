"""The database layer every SQL store shares: URLs, connection pools, versioned schemas.

Session history (`SQLHistoryProvider`), workflow checkpoints (`SQLCheckpointStorage`) and
the A2A server's tasks and sessions keep their tables in any database SQLAlchemy's asyncio
engine reaches: a SQLite file, or PostgreSQL by URL (through psycopg 3). One setting,
`$AGENTRY_DATABASE_URL`, names the database of every store not given one. Each store's
tables carry a version in `agentry_schema_versions`, upgraded in order when a store opens.
Every SQL store of one table is a `SQLTableStore`, and so can a store of your own be.
Names load on first use: the errors and settings need no SQLAlchemy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from agentry.storage._errors import (
    SchemaVersionError,
    StorageConfigError,
    StorageError,
    StorageWriteError,
)

_EXPORTS: dict[str, str] = {
    "DATABASE_URL_ENV": "agentry.storage._urls",
    "GroupCommitWriter": "agentry.storage._group_commit",
    "VERSIONS_TABLE": "agentry.storage._sqlite_versions",
    "Migration": "agentry.storage._schema",
    "PoolSettings": "agentry.storage._settings",
    "SQLTableStore": "agentry.storage._table_store",
    "Schema": "agentry.storage._schema",
    "StoreDatabase": "agentry.storage._database",
    "async_url": "agentry.storage._urls",
    "create_engine": "agentry.storage._pool",
    "create_tables": "agentry.storage._schema",
    "database_url": "agentry.storage._urls",
    "default_database_url": "agentry.storage._urls",
    "ensure_schema": "agentry.storage._schema",
    "ensure_sqlite_schema": "agentry.storage._sqlite_versions",
    "lock_schema_changes": "agentry.storage._schema",
    "open_sqlite_store": "agentry.storage._sqlite_versions",
    "read_schema_versions": "agentry.storage._schema",
    "safe_url": "agentry.storage._urls",
    "table_schema": "agentry.storage._database",
}

__all__ = [
    "DATABASE_URL_ENV",
    "VERSIONS_TABLE",
    "GroupCommitWriter",
    "Migration",
    "PoolSettings",
    "SQLTableStore",
    "Schema",
    "SchemaVersionError",
    "StorageConfigError",
    "StorageError",
    "StorageWriteError",
    "StoreDatabase",
    "async_url",
    "create_engine",
    "create_tables",
    "database_url",
    "default_database_url",
    "ensure_schema",
    "ensure_sqlite_schema",
    "lock_schema_changes",
    "open_sqlite_store",
    "read_schema_versions",
    "safe_url",
    "table_schema",
]


def __getattr__(name: str) -> object:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agentry.storage' has no attribute {name!r}")
    value = getattr(import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from agentry.storage._database import StoreDatabase, table_schema
    from agentry.storage._group_commit import GroupCommitWriter
    from agentry.storage._pool import create_engine
    from agentry.storage._schema import (
        Migration,
        Schema,
        create_tables,
        ensure_schema,
        lock_schema_changes,
        read_schema_versions,
    )
    from agentry.storage._settings import PoolSettings
    from agentry.storage._sqlite_versions import (
        VERSIONS_TABLE,
        ensure_sqlite_schema,
        open_sqlite_store,
    )
    from agentry.storage._table_store import SQLTableStore
    from agentry.storage._urls import (
        DATABASE_URL_ENV,
        async_url,
        database_url,
        default_database_url,
        safe_url,
    )
