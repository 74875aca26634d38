"""`FileHistoryProvider`: one JSON Lines file per session, one line per save."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from agentry.errors import HistoryStoreError, SerializationError
from agentry.observability import get_logger
from agentry.sessions._providers import HistoryProvider, message_json
from agentry.types import Message
from agentry.types._validation import load_json

__all__ = ["FileHistoryProvider"]

logger = get_logger("agentry.sessions")

_SAFE_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# One lock per file for the whole process: runs on several event loops or threads append
# to the same file without interleaving.
_file_locks: dict[Path, threading.Lock] = {}
_file_locks_guard = threading.Lock()


class FileHistoryProvider(HistoryProvider):
    """Keeps each session's history in `<directory>/<session_id>.jsonl`.

    Each save appends one line: the message as a JSON object, or the messages saved together
    as a JSON array of them, so a save that a crash interrupts is read back whole or not at
    all, never as half a turn. Lines are written in one call under a lock (and `flock`
    across processes), then flushed to disk, so earlier lines survive a crash mid-write. A
    truncated or corrupt line is skipped with a warning when reading and left in place; the
    next append starts on a fresh line.

    Args:
        directory: Where the files live (created when missing).
        source_id: Attribution of its messages in the session context.
        fsync: Flush every append to the disk (safer, slower).

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
    ) -> None:
        super().__init__(
            source_id,
            load_messages=load_messages,
            store_inputs=store_inputs,
            store_outputs=store_outputs,
            store_context_messages=store_context_messages,
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
        self, session_id: str, *, state: dict[str, Any] | None = None
    ) -> list[Message]:
        path = self.path_for(session_id)
        return await asyncio.to_thread(_read_messages, path)

    async def save_messages(
        self,
        session_id: str,
        messages: Sequence[Message],
        *,
        state: dict[str, Any] | None = None,
    ) -> None:
        if not messages:
            return
        path = self.path_for(session_id)
        texts = [message_json(m) for m in messages]
        line = texts[0] if len(texts) == 1 else "[" + ",".join(texts) + "]"
        await asyncio.to_thread(_append, path, (line + "\n").encode("utf-8"), self.fsync)


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
    messages: list[Message] = []
    lines = data.split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            messages.extend(_messages_of_line(line))
        except SerializationError as error:
            unfinished = number == len(lines)
            logger.warning(
                "skipping %s line %d of %s: %s",
                "unfinished" if unfinished else "corrupt",
                number,
                path,
                error,
            )
    return messages


def _messages_of_line(line: bytes) -> list[Message]:
    """The messages of one saved line: one message, or all of a batch (never part of one)."""
    record = load_json(line, kind="history line")
    if isinstance(record, list):
        return [Message.from_dict(item) for item in cast("list[Any]", record)]
    return [Message.from_dict(record)]
