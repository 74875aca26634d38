"""`InMemoryAgentFileStore`: files in a dict, for tests and short-lived agents."""

from __future__ import annotations

import asyncio

from agentry.files._containment import normalize_relative_path
from agentry.files._errors import FileAccessError, MissingFileError
from agentry.files._search import FileSearchResult, TextQuery
from agentry.files._store import AgentFileStore, encode_content

__all__ = ["InMemoryAgentFileStore"]


class InMemoryAgentFileStore(AgentFileStore):
    """An `AgentFileStore` kept in memory, with the same path rules as the others.

    Searches run in a worker thread (on a snapshot of the files), so a long search does
    not hold up the event loop.

    Example:
        >>> import asyncio
        >>> store = InMemoryAgentFileStore()
        >>> asyncio.run(store.write_file("notes/a.md", "hello"))
        >>> asyncio.run(store.list_files("notes"))
        ['notes/a.md']
    """

    def __init__(self) -> None:
        self._files: dict[str, str] = {}
        self._directories: set[str] = set()

    async def write_file(self, path: str, content: str) -> None:
        name = normalize_relative_path(path)
        if name in self._directories:
            raise FileAccessError(f"{path!r} is a folder; choose a file name")
        encode_content(path, content)  # the same text rule as a store on disk
        self._check_parents(name, path)
        self._add_parents(name)
        self._files[name] = str(content)

    async def read_file(self, path: str) -> str:
        name = normalize_relative_path(path)
        try:
            return self._files[name]
        except KeyError:
            raise MissingFileError(f"no file {path!r}; list the files to see what exists") from None

    async def delete_file(self, path: str) -> bool:
        return self._files.pop(normalize_relative_path(path), None) is not None

    async def list_files(self, directory: str = "", *, recursive: bool = False) -> list[str]:
        folder = normalize_relative_path(directory, allow_root=True)
        prefix = f"{folder}/" if folder else ""
        if folder and folder not in self._directories:
            return []
        return sorted(
            name
            for name in self._files
            if name.startswith(prefix) and (recursive or "/" not in name[len(prefix) :])
        )

    async def file_exists(self, path: str) -> bool:
        return normalize_relative_path(path) in self._files

    async def search_files(
        self,
        pattern: str,
        *,
        directory: str = "",
        glob: str | None = None,
        regex: bool = False,
        case_sensitive: bool = False,
        max_results: int = 50,
    ) -> list[FileSearchResult]:
        query = TextQuery(pattern, regex=regex, case_sensitive=case_sensitive, glob=glob)
        names = await self.list_files(directory, recursive=True)
        files = [(name, self._files[name]) for name in names if query.wants(name)]
        return await asyncio.to_thread(_search, query, files, max_results)

    async def create_directory(self, path: str) -> None:
        name = normalize_relative_path(path)
        if name in self._files:
            raise FileAccessError(f"{path!r} is a file, not a folder")
        self._check_parents(name, path)
        self._add_parents(name)
        self._directories.add(name)

    def _check_parents(self, name: str, shown: str) -> None:
        parts = name.split("/")
        for end in range(1, len(parts)):
            parent = "/".join(parts[:end])
            if parent in self._files:
                raise FileAccessError(f"{parent!r} (in {shown!r}) is a file, not a folder")

    def _add_parents(self, name: str) -> None:
        parts = name.split("/")
        for end in range(1, len(parts)):
            self._directories.add("/".join(parts[:end]))


def _search(
    query: TextQuery, files: list[tuple[str, str]], max_results: int
) -> list[FileSearchResult]:
    results: list[FileSearchResult] = []
    for name, text in files:
        if len(results) >= max_results:
            break
        if found := query.search(name, text):
            results.append(found)
    return results
