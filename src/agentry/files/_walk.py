"""Walking a folder tree below an open descriptor: in path order, never through a link.

The walk keeps its own stack instead of recursing, so a tree thousands of folders deep
is walked like any other. It holds at most `MAX_OPEN_FOLDERS` folders open; a folder
closed to stay under that is opened again from the root (again refusing links) when the
walk comes back to it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from typing import Literal

from agentry.files._containment import open_directory, split_relative_path
from agentry.files._errors import FileAccessError

__all__ = ["MAX_OPEN_FOLDERS", "walk_files"]

MAX_OPEN_FOLDERS = 32
_CHILD_FLAGS = (
    os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
_Kind = Literal["file", "folder", "link", "other"]


def walk_files(
    root_fd: int,
    directory: str = "",
    *,
    recursive: bool = True,
    include: Callable[[str], bool] | None = None,
    on_skipped: Callable[[str, str], None] | None = None,
) -> Generator[tuple[str, int], None, None]:
    """The regular files under `directory` of the open folder `root_fd`, in path order.

    Yields `(path, folder_fd)`: the file's path relative to the root, and a descriptor of
    the folder holding it, valid until the next item (read the file with
    `read_regular_file(folder_fd, name, ...)`). A folder `a` sorts as `a/`, so `a.txt`
    comes before `a/b.txt`. Symbolic links, FIFOs, sockets and devices are skipped; a
    folder removed or replaced while it is walked is skipped from then on. Close the
    generator to stop early: it closes every descriptor it opened.

    Args:
        root_fd: An open descriptor of the root folder (left open).
        directory: The folder to walk, relative to the root (`""` for the root itself).
        recursive: Walk the folders below it too.
        include: Whether to walk an entry, given its name (files and folders alike).
        on_skipped: Called with the path and the reason of each link or special file
            skipped.

    Raises:
        FileAccessError: `directory` is missing (`MissingFileError`), a link
            (`PathEscapeError`) or not a folder.

    Example:
        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as root:
        ...     os.makedirs(os.path.join(root, "a"))
        ...     for name in ("a.txt", "a/b.txt"):
        ...         open(os.path.join(root, name), "w").close()
        ...     root_fd = os.open(root, os.O_RDONLY)
        ...     print([path for path, _ in walk_files(root_fd)])
        ...     os.close(root_fd)
        ['a.txt', 'a/b.txt']
    """
    parts = split_relative_path(directory, allow_root=True)
    shown = directory or "."
    top = _Folder("/".join(parts), open_directory(root_fd, parts, create=False, shown=shown))
    stack = [top]
    try:
        try:
            top.list_entries()
        except OSError as error:
            raise FileAccessError(f"cannot list the folder {shown!r}: {error.strerror}") from None
        while stack:
            folder = stack[-1]
            entry = next(folder.entries, None)
            if entry is None:
                stack.pop().close()
                continue
            name, kind = entry
            if include is not None and not include(name):
                continue
            path = f"{folder.path}/{name}" if folder.path else name
            if kind in ("link", "other"):
                if on_skipped is not None:
                    on_skipped(path, "a symbolic link" if kind == "link" else "not a regular file")
                continue
            if kind == "folder" and not recursive:
                continue
            folder_fd = folder.descriptor(root_fd)
            if folder_fd is None:  # it went away meanwhile
                stack.pop()
                continue
            if kind == "file":
                yield path, folder_fd
                continue
            child = _open_child(folder_fd, name, path)
            if child is not None:
                if len(stack) >= MAX_OPEN_FOLDERS:
                    folder.close()
                stack.append(child)
    finally:
        for folder in stack:
            folder.close()


class _Folder:
    """A folder on the walk's stack: its path, the entries left, and (maybe) a descriptor."""

    def __init__(self, path: str, fd: int | None) -> None:
        self.path = path
        self.fd = fd
        self.entries: Iterator[tuple[str, _Kind]] = iter(())

    def list_entries(self) -> None:
        assert self.fd is not None
        with os.scandir(self.fd) as scan:
            found: list[tuple[str, _Kind]] = [(entry.name, _kind(entry)) for entry in scan]
        self.entries = iter(sorted(found, key=_sort_key))

    def descriptor(self, root_fd: int) -> int | None:
        """The folder's descriptor, opened again from the root if it was closed."""
        if self.fd is None:
            try:
                self.fd = open_directory(
                    root_fd,
                    split_relative_path(self.path, allow_root=True),
                    create=False,
                    shown=self.path,
                )
            except FileAccessError:
                return None
        return self.fd

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _open_child(folder_fd: int, name: str, path: str) -> _Folder | None:
    try:
        child = _Folder(path, os.open(name, _CHILD_FLAGS, dir_fd=folder_fd))
    except OSError:
        return None  # replaced by a link or removed meanwhile
    try:
        child.list_entries()
    except OSError:
        child.close()
        return None
    return child


def _kind(entry: os.DirEntry[str]) -> _Kind:
    if entry.is_symlink():
        return "link"
    if entry.is_dir(follow_symlinks=False):
        return "folder"
    if entry.is_file(follow_symlinks=False):
        return "file"
    return "other"


def _sort_key(entry: tuple[str, _Kind]) -> str:
    name, kind = entry
    return f"{name}/" if kind == "folder" else name
