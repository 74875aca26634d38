"""`FileSystemAgentFileStore`: files on disk under one root folder, and nowhere else."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import uuid
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TypeVar

from agentry.files._containment import open_directory, read_regular_file, split_relative_path
from agentry.files._errors import FileAccessError, MissingFileError, PathEscapeError
from agentry.files._search import FileSearchResult, TextQuery
from agentry.files._store import AgentFileStore, encode_content
from agentry.files._walk import walk_files

__all__ = ["FileSystemAgentFileStore"]

T = TypeVar("T")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024


class FileSystemAgentFileStore(AgentFileStore):
    """An `AgentFileStore` on disk, contained in `root`.

    Every operation walks the path one folder at a time from the root with `O_NOFOLLOW`,
    so no symbolic link is ever followed, including links swapped in after a check; a
    path through a link is refused with `PathEscapeError`. Writes are atomic (a temporary
    file in the same folder, flushed, then renamed over the target), and reads and writes
    larger than `max_file_bytes` are refused. Blocking calls run in a worker thread.

    Args:
        root: The folder the store lives in (created if missing).
        max_file_bytes: The largest file it reads or writes.

    Example:
        >>> store = FileSystemAgentFileStore("agent-files")  # doctest: +SKIP
    """

    def __init__(self, root: str | Path, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        if os.name != "posix":
            raise FileAccessError(
                "FileSystemAgentFileStore needs a POSIX system (descriptor-relative, "
                "link-refusing opens); use InMemoryAgentFileStore elsewhere"
            )
        self.root = Path(root).absolute()
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_file_bytes = max_file_bytes

    # region operations

    async def write_file(self, path: str, content: str) -> None:
        data = encode_content(path, content)
        if len(data) > self.max_file_bytes:
            raise FileAccessError(
                f"{path!r} would be {len(data)} bytes, over the store's limit of "
                f"{self.max_file_bytes}; write a smaller file"
            )
        await self._run(self._write, path, data)

    async def read_file(self, path: str) -> str:
        return await self._run(self._read, path)

    async def delete_file(self, path: str) -> bool:
        return await self._run(self._delete, path)

    async def list_files(self, directory: str = "", *, recursive: bool = False) -> list[str]:
        return await self._run(self._list, directory, recursive)

    async def file_exists(self, path: str) -> bool:
        return await self._run(self._exists, path)

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
        return await self._run(self._search, query, directory, max_results)

    async def create_directory(self, path: str) -> None:
        await self._run(self._make_directory, path)

    # endregion

    # region blocking work

    async def _run(self, work: Callable[..., T], *arguments: object) -> T:
        try:
            return await asyncio.to_thread(work, *arguments)
        except OSError as error:  # the disk changed under us, or refused
            raise FileAccessError(
                f"file operation failed: {error.strerror or error}; if the folder changed "
                "meanwhile, try again"
            ) from error

    def _open_folder(self, parts: list[str], *, create: bool, shown: str) -> int:
        """A descriptor of the folder `parts` below the root (see `open_directory`)."""
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
        try:
            return open_directory(root_fd, parts, create=create, shown=shown)
        finally:
            os.close(root_fd)

    @contextlib.contextmanager
    def _parent(self, path: str, *, create: bool) -> Generator[tuple[int, str], None, None]:
        """The open folder holding `path`, and the file's name in it."""
        parts = split_relative_path(path)
        parent_fd = self._open_folder(parts[:-1], create=create, shown=path)
        try:
            yield parent_fd, parts[-1]
        finally:
            os.close(parent_fd)

    def _write(self, path: str, data: bytes) -> None:
        with self._parent(path, create=True) as (folder, name):
            existing = _lstat(name, folder)
            if existing is not None and stat.S_ISDIR(existing.st_mode):
                raise FileAccessError(f"{path!r} is a folder; choose a file name")
            if existing is not None and stat.S_ISLNK(existing.st_mode):
                raise PathEscapeError(f"{path!r} is a symbolic link; links are not followed")
            temporary = f".{name}.{uuid.uuid4().hex}.tmp"
            fd = os.open(
                temporary,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                0o644,
                dir_fd=folder,
            )
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(data)
                    file.flush()
                    os.fsync(file.fileno())
                os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=folder)
                raise

    def _read(self, path: str) -> str:
        try:
            with self._parent(path, create=False) as (folder, name):
                return self._read_in(folder, name, path)
        except MissingFileError:
            raise MissingFileError(f"no file {path!r}; list the files to see what exists") from None

    def _read_in(self, folder: int, name: str, path: str) -> str:
        """The text of the file `name` in the open `folder` (`path` is for messages)."""
        try:
            data = read_regular_file(
                folder, name, max_bytes=self.max_file_bytes, shown=path, allow_hard_links=False
            )
        except MissingFileError:
            raise MissingFileError(f"no file {path!r}; list the files to see what exists") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise FileAccessError(f"{path!r} is not UTF-8 text") from None

    def _delete(self, path: str) -> bool:
        try:
            with self._parent(path, create=False) as (folder, name):
                existing = _lstat(name, folder)
                if existing is None:
                    return False
                if stat.S_ISLNK(existing.st_mode):
                    raise PathEscapeError(f"{path!r} is a symbolic link; links are not followed")
                if not stat.S_ISREG(existing.st_mode):
                    raise FileAccessError(f"{path!r} is not a file")
                os.unlink(name, dir_fd=folder)
                return True
        except MissingFileError:
            return False

    def _exists(self, path: str) -> bool:
        try:
            with self._parent(path, create=False) as (folder, name):
                existing = _lstat(name, folder)
        except MissingFileError:
            return False
        return existing is not None and stat.S_ISREG(existing.st_mode)

    def _make_directory(self, path: str) -> None:
        os.close(self._open_folder(split_relative_path(path), create=True, shown=path))

    def _list(self, directory: str, recursive: bool) -> list[str]:
        return sorted(path for path, _ in self._walk(directory, recursive))

    def _walk(self, directory: str, recursive: bool) -> Generator[tuple[str, int], None, None]:
        """(path, folder descriptor) of each regular file; links are skipped."""
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
        try:
            yield from walk_files(root_fd, directory, recursive=recursive, include=_not_temporary)
        except MissingFileError:
            return
        finally:
            os.close(root_fd)

    def _search(self, query: TextQuery, directory: str, max_results: int) -> list[FileSearchResult]:
        results: list[FileSearchResult] = []
        # Each file is read in the folder the walk holds open; closing the walk closes them.
        with contextlib.closing(self._walk(directory, recursive=True)) as walk:
            for path, folder in walk:
                if len(results) >= max_results:
                    break
                if not query.wants(path):
                    continue
                try:
                    text = self._read_in(folder, path.rsplit("/", 1)[-1], path)
                except FileAccessError:
                    continue  # too large, not text, or changed meanwhile
                found = query.search(path, text)
                if found is not None:
                    results.append(found)
        return results

    # endregion


def _not_temporary(name: str) -> bool:
    """Whether a name is not one of the store's own temporary files (`.name.hex.tmp`)."""
    return not (name.startswith(".") and name.endswith(".tmp"))


def _lstat(name: str, folder: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
