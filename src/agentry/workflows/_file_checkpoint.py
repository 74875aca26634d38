"""`FileCheckpointStorage`: one JSON file per checkpoint in a directory."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from agentry.workflows._checkpoint import (
    CheckpointStorage,
    WorkflowCheckpoint,
    read_stored_checkpoint,
)
from agentry.workflows._errors import WorkflowCheckpointException

__all__ = ["FileCheckpointStorage"]

logger = logging.getLogger("agentry.workflows")
_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_TEMP_PREFIX = ".tmp-"
# O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class FileCheckpointStorage(CheckpointStorage):
    """Keeps each checkpoint as `<checkpoint_id>.json` in a directory.

    A save writes a temporary file and renames it over the target, so a crash mid-save
    leaves every earlier checkpoint as it was; the temporary files a killed save leaves
    behind are removed by the first save of the next storage on the directory. Files that
    are not readable checkpoints (stray JSON, FIFOs, damaged files) are skipped with a
    warning when listing.

    Args:
        directory: The directory (created when missing).

    Example:
        >>> storage = FileCheckpointStorage(".agentry/checkpoints")
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._swept = False

    def _path(self, checkpoint_id: str) -> Path:
        if not _SAFE_ID.match(checkpoint_id) or checkpoint_id.startswith("."):
            raise WorkflowCheckpointException(
                f"{checkpoint_id!r} is not a valid checkpoint id (use letters, digits, '_', "
                "'-' and '.')"
            )
        return self.directory / f"{checkpoint_id}.json"

    async def save(self, checkpoint: WorkflowCheckpoint) -> str:
        path = self._path(checkpoint.checkpoint_id)
        text = checkpoint.to_json()
        await asyncio.to_thread(self._write_atomically, path, text)
        return checkpoint.checkpoint_id

    def _write_atomically(self, path: Path, text: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if not self._swept:  # once: only a process that was killed leaves any behind
            _remove_abandoned_temporary_files(self.directory)
            self._swept = True
        fd, temp_name = _locked_temporary_file(self.directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
                os.replace(temp_name, path)  # still locked, so no cleaner can take it
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise

    async def load(self, checkpoint_id: str) -> WorkflowCheckpoint:
        path = self._path(checkpoint_id)
        try:
            data = await asyncio.to_thread(_read_regular_file, path)
        except FileNotFoundError:
            raise WorkflowCheckpointException(
                f"no checkpoint with id {checkpoint_id!r} in {self.directory}"
            ) from None
        except OSError as error:
            raise WorkflowCheckpointException(
                f"cannot read checkpoint {checkpoint_id!r}: {error}"
            ) from error
        return read_stored_checkpoint(checkpoint_id, data)

    async def list_checkpoint_ids(self, *, workflow_name: str) -> list[str]:
        return await asyncio.to_thread(self._scan, workflow_name)

    def _scan(self, workflow_name: str) -> list[str]:
        if not self.directory.is_dir():
            return []
        found: list[tuple[str, int, str]] = []
        for path in self.directory.glob("*.json"):
            if path.name.startswith("."):
                continue
            try:
                checkpoint = read_stored_checkpoint(path.stem, _read_regular_file(path))
            except (OSError, WorkflowCheckpointException) as error:
                logger.warning("skipping unreadable checkpoint file %s: %s", path, error)
                continue
            if checkpoint.workflow_name == workflow_name:
                found.append((checkpoint.timestamp, checkpoint.iteration_count, path.stem))
        found.sort()
        return [checkpoint_id for _, _, checkpoint_id in found]

    async def delete(self, checkpoint_id: str) -> bool:
        path = self._path(checkpoint_id)
        try:
            await asyncio.to_thread(path.unlink)
        except FileNotFoundError:
            return False
        return True


def _read_regular_file(path: Path) -> bytes:
    """The bytes of `path`; anything but a regular file (a FIFO, a device) is refused."""
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise WorkflowCheckpointException(f"{path} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as file:
            return file.read()
    finally:
        os.close(fd)


def _locked_temporary_file(directory: Path) -> tuple[int, str]:
    """A new temporary file, locked for as long as its descriptor is open.

    The lock tells a concurrent save that the file is in use. A cleaner may remove a new
    file between its creation and its locking; then another is made.
    """
    while True:
        fd, name = tempfile.mkstemp(dir=directory, prefix=_TEMP_PREFIX, suffix=".json")
        _try_lock(fd, blocking=True)
        if os.fstat(fd).st_nlink > 0:
            return fd, name
        os.close(fd)


def _remove_abandoned_temporary_files(directory: Path) -> None:
    """Remove the temporary files of saves that were killed (no process holds their lock)."""
    if sys.platform == "win32":  # no flock: a file in use cannot be told from an abandoned one
        return
    for path in directory.glob(f"{_TEMP_PREFIX}*.json"):
        try:
            fd = os.open(path, _READ_FLAGS | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue  # gone already, or not ours to open
        try:
            opened = os.fstat(fd)
            if (
                stat.S_ISREG(opened.st_mode)
                and _try_lock(fd, blocking=False)
                and os.path.samestat(opened, path.stat())
            ):
                path.unlink()
                logger.info("removed %s, left behind by an interrupted save", path)
        except OSError:
            continue
        finally:
            os.close(fd)


def _try_lock(fd: int, *, blocking: bool) -> bool:
    """Take an exclusive `flock` on `fd`; whether it was taken (always False on Windows)."""
    if sys.platform == "win32":
        return False
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True
