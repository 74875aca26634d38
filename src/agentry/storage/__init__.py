"""The database layer every SQL store shares: URLs, connection pools, versioned schemas.

Session history (`SQLHistoryProvider`), workflow checkpoints (`SQLCheckpointStorage`) and
the A2A server's tasks and sessions keep their tables in any database SQLAlchemy's asyncio
engine reaches: a SQLite file, or PostgreSQL by URL (through psycopg 3). One setting,
`$AGENTRY_DATABASE_URL`, names the database of every store not given one. Each store's
tables carry a version in `agentry_schema_versions`, upgraded in order when a store opens.
"""

from __future__ import annotations

from agentry.storage._database import StoreDatabase
from agentry.storage._errors import SchemaVersionError, StorageConfigError, StorageError
from agentry.storage._pool import PoolSettings, create_engine
from agentry.storage._schema import (
    VERSIONS_TABLE,
    Migration,
    Schema,
    create_tables,
    ensure_schema,
    read_schema_versions,
)
from agentry.storage._urls import (
    DATABASE_URL_ENV,
    async_url,
    database_url,
    default_database_url,
    safe_url,
)

__all__ = [
    "DATABASE_URL_ENV",
    "VERSIONS_TABLE",
    "Migration",
    "PoolSettings",
    "Schema",
    "SchemaVersionError",
    "StorageConfigError",
    "StorageError",
    "StoreDatabase",
    "async_url",
    "create_engine",
    "create_tables",
    "database_url",
    "default_database_url",
    "ensure_schema",
    "read_schema_versions",
    "safe_url",
]
