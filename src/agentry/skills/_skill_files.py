"""A file skill's own files: listed, opened and read below the skill's directory through
descriptors, one segment at a time with `O_NOFOLLOW`, so a symbolic link (even one swapped
in while a script starts) is refused instead of followed, and a FIFO is never waited on."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator
from pathlib import Path

from agentry.files import (
    FileAccessError,
    MissingFileError,
    normalize_relative_path,
    open_directory,
    open_regular_file,
    read_regular_file,
    walk_files,
)
from agentry.observability import get_logger
from agentry.skills._errors import SkillError

__all__ = [
    "DEFAULT_MAX_RESOURCE_BYTES",
    "list_skill_files",
    "open_skill_file",
    "read_skill_file",
    "skill_file_parts",
]

DEFAULT_MAX_RESOURCE_BYTES = 1024 * 1024
_ROOT_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)

logger = get_logger("agentry.skills")


def skill_file_parts(directory: Path, path: str | Path) -> list[str]:
    """The segments of `path` (relative, or absolute under `directory`) in the skill.

    Raises:
        SkillError: The path leads outside the skill directory, or is not a path a file of
            it can have.
    """
    candidate = Path(path)
    if candidate.is_absolute():
        for base in (directory, directory.resolve()):
            with contextlib.suppress(ValueError):
                candidate = candidate.relative_to(base)
                break
        else:
            raise SkillError(_outside(path, directory))
    if ".." in candidate.parts:
        raise SkillError(_outside(path, directory))
    try:
        return normalize_relative_path(candidate.as_posix()).split("/")
    except FileAccessError as error:
        raise SkillError(str(error)) from None


def open_skill_file(directory: Path, path: str | Path) -> int:
    """A read-only descriptor of the regular file `path` of the skill in `directory`.

    Raises:
        SkillError: The file is missing, outside the skill, a link, or not a regular file.
    """
    parts = skill_file_parts(directory, path)
    shown = "/".join(parts)
    with _folder_of(directory, parts, shown) as folder:
        try:
            return open_regular_file(folder, parts[-1], shown=shown)
        except MissingFileError:
            raise SkillError(_missing(shown, directory)) from None
        except FileAccessError as error:
            raise SkillError(str(error)) from None


def read_skill_file(directory: Path, path: str | Path, *, max_bytes: int) -> bytes:
    """The bytes of the regular file `path` of the skill in `directory`.

    Raises:
        SkillError: As `open_skill_file`, or the file is over `max_bytes`.
    """
    parts = skill_file_parts(directory, path)
    shown = "/".join(parts)
    with _folder_of(directory, parts, shown) as folder:
        try:
            return read_regular_file(folder, parts[-1], max_bytes=max_bytes, shown=shown)
        except MissingFileError:
            raise SkillError(_missing(shown, directory)) from None
        except FileAccessError as error:
            raise SkillError(str(error)) from None


def list_skill_files(directory: Path, folder: str) -> list[str]:
    """The paths of the regular files under `folder` of the skill, in path order.

    Hidden files and folders and `__pycache__` are left out, and so (with a warning on the
    `agentry.skills` logger) are symbolic links and special files. A missing folder has no
    files.
    """
    root = _open_root(directory)
    try:
        return [
            path
            for path, _ in walk_files(
                root,
                folder,
                include=_visible,
                on_skipped=lambda path, reason: _warn_skipped(directory, path, reason),
            )
        ]
    except MissingFileError:
        return []
    except FileAccessError as error:
        logger.warning("skipping the %s folder of the skill in %s: %s", folder, directory, error)
        return []
    finally:
        os.close(root)


@contextlib.contextmanager
def _folder_of(directory: Path, parts: list[str], shown: str) -> Generator[int, None, None]:
    """The open folder holding the file `parts` of the skill."""
    root = _open_root(directory)
    try:
        folder = open_directory(root, parts[:-1], create=False, shown=shown)
    except MissingFileError:
        raise SkillError(_missing(shown, directory)) from None
    except FileAccessError as error:
        raise SkillError(str(error)) from None
    finally:
        os.close(root)
    try:
        yield folder
    finally:
        os.close(folder)


def _open_root(directory: Path) -> int:
    if os.open not in os.supports_dir_fd:
        raise SkillError(
            "file skills need a POSIX system (descriptor-relative, link-refusing opens); "
            "use InlineSkill or ClassSkill elsewhere"
        )
    try:
        return os.open(directory, _ROOT_FLAGS)
    except OSError as error:
        raise SkillError(
            f"cannot open the skill directory {str(directory)!r}: {error.strerror}"
        ) from None


def _visible(name: str) -> bool:
    return not name.startswith(".") and name != "__pycache__"


def _warn_skipped(directory: Path, path: str, reason: str) -> None:
    logger.warning(
        "skipping %s in the skill %s: it is %s; a skill offers only its regular files, "
        "never through a link",
        path,
        directory,
        reason,
    )


def _outside(path: str | Path, directory: Path) -> str:
    return (
        f"{str(path)!r} leads outside the skill directory {str(directory)!r}; skills may "
        "only use their own files"
    )


def _missing(shown: str, directory: Path) -> str:
    return f"{shown!r} is not a file in the skill directory {str(directory)!r}"
