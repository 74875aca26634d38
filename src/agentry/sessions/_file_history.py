"""`FileHistoryProvider`: one JSON Lines file per session, one message per line."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from agentry.errors import HistoryStoreError, SerializationError
from agentry.observability import get_logger
from agentry.sessions._providers import HistoryProvider, message_json
from agentry.types import Message, load_json

if TYPE_CHECKING:
    from agentry.sessions._compaction import CompactionStrategy

__all__ = ["FileHistoryProvider"]

logger = get_logger("agentry.sessions")

_SAFE_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# One lock per file for the whole process: runs on several event loops or threads append
# to the same file without interleaving.
_file_locks: dict[Path, threading.Lock] = {}
_file_locks_guard = threading.Lock()
_BATCH = "_batch"  # marks the lines of one save of several messages


class FileHistoryProvider(HistoryProvider):
    """Keeps each session's history in `<directory>/<session_id>.jsonl`.

    Each message is one line: its JSON record. The lines of messages saved together carry a
    `_batch` marker (the save's id, the line's index and the batch size), and a batch is
    read back only when all its lines are there, so a save that a crash interrupts is read
    back whole or not at all, never as half a turn. A save is written in one call under a
    lock (and `flock` across processes), then flushed to disk, so earlier lines survive a
    crash mid-write. A truncated or corrupt line is skipped with a warning when reading and
    left in place (with the rest of its batch); the next append starts on a fresh line.

    Args:
        directory: Where the files live (created when missing).
        source_id: Attribution of its messages in the session context.
        fsync: Flush every append to the disk (safer, slower).
        compaction: What of the conversation each model request sends (see
            :class:`HistoryProvider`); the file keeps every message.

    Example:
        >>> provider = FileHistoryProvider("./history")
    """

    DEFAULT_SOURCE_ID = "file_history"

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        source_id: str | None = None,
        fsync: bool = True,
        load_messages: bool = True,
        store_inputs: bool = True,
        store_outputs: bool = True,
        store_context_messages: bool = False,
        compaction: CompactionStrategy | None = None,
    ) -> None:
        super().__init__(
            source_id,
            load_messages=load_messages,
            store_inputs=store_inputs,
            store_outputs=store_outputs,
            store_context_messages=store_context_messages,
            compaction=compaction,
        )
        self.directory = Path(directory)
        self.fsync = fsync

    def path_for(self, session_id: str) -> Path:
        """The file of a session.

        Raises:
            HistoryStoreError: The session id could name a path outside the directory.
        """
        if not _SAFE_SESSION_ID.match(session_id):
            raise HistoryStoreError(
                f"session id {session_id!r} cannot name a history file: use letters, digits, "
                "'.', '_' and '-' (up to 128 characters, not starting with '.')"
            )
        return self.directory / f"{session_id}.jsonl"

    async def get_messages(
        self, session_id: str, *, state: dict[str, object] | None = None
    ) -> list[Message]:
        path = self.path_for(session_id)
        return await asyncio.to_thread(_read_messages, path)

    async def save_messages(
        self,
        session_id: str,
        messages: Sequence[Message],
        *,
        state: dict[str, object] | None = None,
    ) -> None:
        if not messages:
            return
        path = self.path_for(session_id)
        lines = [message_json(m) for m in messages]
        if len(lines) > 1:
            batch = uuid.uuid4().hex[:12]
            size = len(lines)
            lines = [
                f'{line[:-1]},"{_BATCH}":["{batch}",{index},{size}]}}'
                for index, line in enumerate(lines)
            ]
        data = "".join(f"{line}\n" for line in lines).encode("utf-8")
        await asyncio.to_thread(_append, path, data, self.fsync)


def _lock_for(path: Path) -> threading.Lock:
    with _file_locks_guard:
        return _file_locks.setdefault(path.resolve(), threading.Lock())


def _append(path: Path, data: bytes, fsync: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock_for(path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            _flock(fd)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # isolate a line a crash left unfinished
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)


def _flock(fd: int) -> None:
    if sys.platform != "win32":
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


def _read_messages(path: Path) -> list[Message]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as error:
        raise HistoryStoreError(f"cannot read history file {path}: {error}") from error
    reader = _BatchReader(path)
    lines = data.split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = load_json(line, kind="history line")
            if not isinstance(record, dict):
                raise SerializationError("the history line is not a JSON object")
            record = cast("dict[str, object]", record)
            batch = record.pop(_BATCH, None)
            reader.add(number, Message.from_dict(record), batch)
        except SerializationError as error:
            unfinished = number == len(lines)
            logger.warning(
                "skipping %s line %d of %s: %s",
                "unfinished" if unfinished else "corrupt",
                number,
                path,
                error,
            )
            reader.break_batch()
    reader.break_batch()
    return reader.messages


class _BatchReader:
    """Collects messages, holding back each batch's until all its lines have been read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.messages: list[Message] = []
        self._batch_id: str | None = None
        self._pending: list[Message] = []
        self._first_line = 0

    def add(self, number: int, message: Message, batch: object) -> None:
        if batch is None:
            self.break_batch()
            self.messages.append(message)
            return
        batch_id, index, size = _batch_marker(batch)
        if batch_id != self._batch_id or index != len(self._pending):
            self.break_batch()
            if index != 0:
                raise SerializationError(f"line {index + 1} of a batch of {size} without its start")
            self._batch_id, self._first_line = batch_id, number
        self._pending.append(message)
        if len(self._pending) == size:
            self.messages.extend(self._pending)
            self._batch_id, self._pending = None, []

    def break_batch(self) -> None:
        """Drop a batch whose remaining lines never came (a save a crash cut short)."""
        if self._pending:
            logger.warning(
                "skipping %d message(s) from line %d of %s: the rest of their save is missing",
                len(self._pending),
                self._first_line,
                self.path,
            )
        self._batch_id, self._pending = None, []


def _batch_marker(batch: object) -> tuple[str, int, int]:
    if isinstance(batch, list):
        parts = cast("list[object]", batch)
        if len(parts) == 3:
            batch_id, index, size = parts
            if (
                isinstance(batch_id, str)
                and type(index) is int
                and type(size) is int
                and 0 <= index < size
            ):
                return batch_id, index, size
    raise SerializationError(f"the {_BATCH!r} marker {batch!r} is not [id, index, size]")
