"""Path containment: relative paths checked as text, then walked one directory at a time.

A path is accepted only as forward-slash segments with no `..`, no absolute or drive
prefix, no backslashes, no control characters and no lone surrogates. On disk every
directory is opened relative to its parent's descriptor with `O_NOFOLLOW`, and so is the
file at the end, so a symbolic link on any segment, even one created after the check, is
refused instead of followed. Files are opened without blocking, so a FIFO or a device is
refused instead of waited on.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import unicodedata

from agentry.files._errors import FileAccessError, MissingFileError, PathEscapeError

__all__ = [
    "normalize_relative_path",
    "open_directory",
    "open_regular_file",
    "read_regular_file",
    "split_relative_path",
]

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_DRIVE = re.compile(r"^[A-Za-z]:")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0)


def normalize_relative_path(path: str, *, allow_root: bool = False) -> str:
    """`path` as a clean relative path (`a/b.txt`), or a `PathEscapeError` saying why not.

    Empty and `.` segments are dropped. Percent signs and other characters are literal:
    `%2e%2e` names a file called `%2e%2e`.

    Args:
        path: The path, with forward slashes.
        allow_root: Accept a path naming the root itself (`""` or `.`).
    """
    if not isinstance(path, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise PathEscapeError(f"a path must be a string, not {type(path).__name__}")
    if _CONTROL.search(path):
        raise PathEscapeError(f"path {path!r} contains a NUL or control character")
    if surrogate := _SURROGATE.search(path):
        raise PathEscapeError(
            f"path {path!r} contains a lone surrogate ({surrogate.group()!r}), which is not "
            "text a file name can hold; remove it"
        )
    if "\\" in path:
        raise PathEscapeError(f"path {path!r} contains a backslash; use forward slashes")
    if path.startswith("/") or _DRIVE.match(path):
        raise PathEscapeError(f"path {path!r} is absolute; give a path relative to the store")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    for part in parts:
        # NFKC folds look-alikes such as fullwidth dots into `..` on some systems
        if part == ".." or unicodedata.normalize("NFKC", part) in ("..", "."):
            raise PathEscapeError(f"path {path!r} leaves its folder with '..'; remove it")
    if not parts and not allow_root:
        raise PathEscapeError(f"path {path!r} names no file")
    return "/".join(parts)


def split_relative_path(path: str, *, allow_root: bool = False) -> list[str]:
    """The segments of a checked relative path."""
    normalized = normalize_relative_path(path, allow_root=allow_root)
    return normalized.split("/") if normalized else []


def open_directory(root_fd: int, parts: list[str], *, create: bool, shown: str) -> int:
    """A descriptor of the directory `parts` below `root_fd`, never following a link.

    Args:
        root_fd: An open descriptor of the root directory.
        parts: The directory's path segments (checked with `split_relative_path`).
        create: Make missing directories.
        shown: The path as the caller gave it, for error messages.

    Raises:
        PathEscapeError: A segment is a symbolic link.
        FileAccessError: A segment is missing (and `create` is off) or not a directory.
    """
    fd = os.dup(root_fd)
    try:
        for index, part in enumerate(parts):
            try:
                next_fd = os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise MissingFileError(
                        f"no folder {'/'.join(parts[: index + 1])!r} (in {shown!r})"
                    ) from None
                # made meanwhile? opening it below still refuses a link
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
                next_fd = _open_existing(part, fd, parts[: index + 1], shown)
            except OSError as error:
                raise _walk_error(error, part, fd, parts[: index + 1], shown) from None
            os.close(fd)
            fd = next_fd
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_regular_file(folder_fd: int, name: str, *, shown: str) -> int:
    """A read-only descriptor of the regular file `name` in the open folder `folder_fd`.

    The open never follows a symbolic link and never blocks: a FIFO, socket or device is
    refused instead of waited on. Close the descriptor when done.

    Args:
        folder_fd: An open descriptor of the folder (from `open_directory`).
        name: The file's name in that folder (one path segment).
        shown: The path as the caller gave it, for error messages.

    Raises:
        MissingFileError: There is no such file.
        PathEscapeError: The file is a symbolic link.
        FileAccessError: It is not a regular file, or cannot be opened.
    """
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=folder_fd)
    except FileNotFoundError:
        raise MissingFileError(f"no file {shown!r}") from None
    except OSError as error:
        if _refused_link(error, name, folder_fd):
            raise PathEscapeError(f"{shown!r} is a symbolic link; links are not followed") from None
        raise FileAccessError(f"cannot open {shown!r}: {error.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise FileAccessError(f"{shown!r} is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise FileAccessError(
                f"{shown!r} is not a regular file (a FIFO, socket or device); it is not read"
            )
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_file(
    folder_fd: int, name: str, *, max_bytes: int, shown: str, allow_hard_links: bool = True
) -> bytes:
    """The bytes of the regular file `name` in the open folder `folder_fd`, at most `max_bytes`.

    The file is opened as `open_regular_file` does.

    Args:
        folder_fd: An open descriptor of the folder (from `open_directory`).
        name: The file's name in that folder (one path segment).
        max_bytes: The largest file read; a larger one is refused, not cut.
        shown: The path as the caller gave it, for error messages.
        allow_hard_links: Read a file that has other names (which may be outside the folder).

    Raises:
        FileAccessError: As `open_regular_file`, or the file is larger than `max_bytes`
            (or has other hard links, when they are not allowed).
    """
    fd = open_regular_file(folder_fd, name, shown=shown)
    with os.fdopen(fd, "rb") as file:
        status = os.fstat(fd)
        if not allow_hard_links and status.st_nlink > 1:
            raise PathEscapeError(f"{shown!r} has other hard links; it is not read")
        if status.st_size > max_bytes:
            raise FileAccessError(_too_large(shown, f"{status.st_size} bytes", max_bytes))
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise FileAccessError(_too_large(shown, f"more than {max_bytes} bytes", max_bytes))
    return data


def _too_large(shown: str, size: str, max_bytes: int) -> str:
    return f"{shown!r} is {size}, over the limit of {max_bytes}; it cannot be read whole"


def _open_existing(part: str, fd: int, walked: list[str], shown: str) -> int:
    try:
        return os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
    except OSError as error:
        raise _walk_error(error, part, fd, walked, shown) from None


def _walk_error(error: OSError, part: str, fd: int, walked: list[str], shown: str) -> Exception:
    where = "/".join(walked)
    if _refused_link(error, part, fd):
        return PathEscapeError(
            f"{where!r} (in {shown!r}) is a symbolic link; links are not followed"
        )
    if error.errno == errno.ENOTDIR:
        return FileAccessError(f"{where!r} (in {shown!r}) is a file, not a folder")
    return FileAccessError(f"cannot open folder {where!r} (in {shown!r}): {error.strerror}")


def _refused_link(error: OSError, name: str, fd: int) -> bool:
    """Whether an `O_NOFOLLOW` open failed because `name` is (or, a moment ago, was) a link."""
    # ELOOP (EMLINK on FreeBSD) says so even if the link has been swapped away meanwhile
    return error.errno in (errno.ELOOP, errno.EMLINK) or (
        error.errno == errno.ENOTDIR and _is_link(name, fd)
    )


def _is_link(name: str, fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
