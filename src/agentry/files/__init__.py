"""The file-access harness: a store of files agents share, and tools to use it.

Example:
    >>> from agentry.files import FileAccessProvider, InMemoryAgentFileStore
    >>> provider = FileAccessProvider(InMemoryAgentFileStore())
"""

from agentry.files._containment import (
    normalize_relative_path,
    open_directory,
    open_regular_file,
    read_regular_file,
)
from agentry.files._errors import FileAccessError, MissingFileError, PathEscapeError
from agentry.files._filesystem_store import FileSystemAgentFileStore
from agentry.files._memory_store import InMemoryAgentFileStore
from agentry.files._provider import FileAccessProvider
from agentry.files._search import FileSearchMatch, FileSearchResult
from agentry.files._store import AgentFileStore
from agentry.files._walk import walk_files

__all__ = [
    "AgentFileStore",
    "FileAccessError",
    "FileAccessProvider",
    "FileSearchMatch",
    "FileSearchResult",
    "FileSystemAgentFileStore",
    "InMemoryAgentFileStore",
    "MissingFileError",
    "PathEscapeError",
    "normalize_relative_path",
    "open_directory",
    "open_regular_file",
    "read_regular_file",
    "walk_files",
]
