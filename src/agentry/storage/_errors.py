"""Errors of the stores' shared database layer."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = ["SchemaVersionError", "StorageConfigError", "StorageError", "StorageWriteError"]


class StorageError(AgentryError):
    """A store could not open or prepare its database."""


class StorageConfigError(StorageError, ValueError):
    """A database URL or pool setting is malformed or missing."""


class SchemaVersionError(StorageError):
    """A database holds a schema this agentry cannot use: one written by a newer agentry,
    or a table of a store's name whose columns are not the store's."""


def newer_version_error(component: str, found: int, known: int) -> SchemaVersionError:
    """The refusal of a database whose `component` is newer than this agentry knows."""
    return SchemaVersionError(
        f"the database has version {found} of {component!r}, written by a newer agentry; "
        f"this one knows version {known} at most. Upgrade agentry here too (nothing was "
        "changed)"
    )


class StorageWriteError(StorageError):
    """A store could not write: the database refused the write, or stayed busy. Nothing
    of the write was stored, and what was stored before is kept."""
