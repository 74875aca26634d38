"""Errors of the file-access harness."""

from __future__ import annotations

from agentry.errors import AgentryError

__all__ = ["FileAccessError", "MissingFileError", "PathEscapeError"]


class FileAccessError(AgentryError):
    """A file operation cannot be done: the message names the path and what to do."""


class PathEscapeError(FileAccessError, ValueError):
    """A path that could reach outside the store's root: absolute, `..`, a link, ..."""


class MissingFileError(FileAccessError, LookupError):
    """The file (or a folder on its path) does not exist."""
