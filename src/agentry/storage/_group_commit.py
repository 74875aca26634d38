"""`GroupCommitWriter`: the writes queued at one moment, committed in one transaction.

A store under load sends many small writes at once. Each in its own transaction, they
queue for the database (for SQLite's one writer, or for a pool's connections) and every
statement is a round trip. The writer instead takes every write queued while the previous
batch was being committed and commits them together, with one hop to a thread of its
own that holds one connection: a burst of N writes costs a few transactions, not N.

A batch that fails is rolled back and its writes are made again one by one, each in a
transaction of its own, so that a write the database refuses fails alone (with a
`StorageWriteError` naming it) and the others land. A write that meets contention (a
locked database, a deadlock, a lost connection) goes into a later batch, a few times,
before it fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError

from agentry.storage._errors import StorageConfigError, StorageWriteError

__all__ = ["GroupCommitWriter"]

W = TypeVar("W")
R = TypeVar("R")

_RETRY_DELAY = 0.02
"""Seconds before writes that met contention are made again (times their attempts)."""
# PostgreSQL's deadlock and serialization failure: safe to make again.
_TRANSIENT_SQLSTATES = frozenset({"40P01", "40001"})


def _is_transient(error: DBAPIError) -> bool:
    return isinstance(error, OperationalError) or (
        getattr(error.orig, "sqlstate", None) in _TRANSIENT_SQLSTATES
    )


@dataclass(eq=False)
class _Queued(Generic[W, R]):
    item: W
    future: asyncio.Future[R]
    attempts: int = 0


class GroupCommitWriter(Generic[W, R]):
    """Commits the writes queued at one moment in one transaction, on a thread of its own.

    Args:
        engine: A synchronous engine; the writer keeps one of its connections.
        write_one: Makes one write on a connection, inside a transaction the writer opens.
        write_many: Makes several writes at once (`executemany` where the statements
            match) and returns their results in order; any error sends the batch to
            `write_one`, write by write. Without it, every write goes through `write_one`
            (still in one transaction per batch).
        key: The writes of one key are made in the order they came, at most one per
            batch (default: every write its own key).
        describe: Names a write in error messages (default: `str`).
        max_batch: The most writes in one transaction.
        attempts: How many times a write that met contention is made before it fails.
        thread_of: Another writer whose thread to share, so that the two never write at
            the same time (SQLite has one writer: two writers on one thread never wait
            for each other's lock).

    Raises:
        StorageConfigError: `max_batch` or `attempts` is less than 1.

    Example:
        >>> import tempfile
        >>> engine = sa.create_engine(f"sqlite:///{tempfile.mkdtemp()}/notes.sqlite")
        >>> notes = sa.Table("notes", sa.MetaData(), sa.Column("text", sa.Text))
        >>> notes.create(engine)
        >>> def add(connection: sa.Connection, text: str) -> None:
        ...     connection.execute(notes.insert().values(text=text))
        >>> writer = GroupCommitWriter(engine, write_one=add)
        >>> async def main() -> None:
        ...     await asyncio.gather(*(writer.write(f"note {n}") for n in range(100)))
        ...     await writer.close()
        >>> asyncio.run(main())
    """

    def __init__(
        self,
        engine: sa.Engine,
        *,
        write_one: Callable[[sa.Connection, W], R],
        write_many: Callable[[sa.Connection, Sequence[W]], list[R]] | None = None,
        key: Callable[[W], Hashable] | None = None,
        describe: Callable[[W], str] = str,
        max_batch: int = 500,
        attempts: int = 5,
        thread_of: GroupCommitWriter[Any, Any] | None = None,
    ) -> None:
        if max_batch < 1 or attempts < 1:
            raise StorageConfigError(
                f"max_batch and attempts must be at least 1, got {max_batch} and {attempts}"
            )
        self.engine = engine
        self.batches = 0
        """How many batches were committed (or tried) so far."""
        self._write_one = write_one
        self._write_many = write_many
        self._key = key
        self._describe = describe
        self._max_batch = max_batch
        self._attempts = attempts
        self._queue: list[_Queued[W, R]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._owns_thread = thread_of is None
        self._thread = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="group-commit")
            if thread_of is None
            else thread_of._thread
        )
        self._connection: sa.Connection | None = None

    async def write(self, item: W) -> R:
        """Queue `item` and wait until its batch is committed.

        Returns:
            What `write_one` or `write_many` returned for it.

        Raises:
            StorageWriteError: The database refused the write, or it met contention
                `attempts` times; nothing of it was stored.
            Exception: What `write_one` raised for it, when that is not a database error.
        """
        queued = _Queued[W, R](item, asyncio.get_running_loop().create_future())
        self._queue.append(queued)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return await queued.future

    async def close(self) -> None:
        """Wait for the queued writes, then release the connection and the thread."""
        if self._flusher is not None:
            await asyncio.shield(self._flusher)
        await asyncio.get_running_loop().run_in_executor(self._thread, self._disconnect)
        if self._owns_thread:
            self._thread.shutdown(wait=True)

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queue:
            batch = self._take_batch()
            self.batches += 1
            results = await loop.run_in_executor(self._thread, self._commit, batch)
            retry: list[_Queued[W, R]] = []
            for queued, result in zip(batch, results, strict=True):
                if queued.future.done():
                    continue  # its caller gave up waiting
                if isinstance(result, BaseException):
                    if self._should_retry(queued, result):
                        retry.append(queued)
                    else:
                        queued.future.set_exception(self._refusal(queued, result))
                else:
                    queued.future.set_result(result)
            if retry:
                await asyncio.sleep(_RETRY_DELAY * max(queued.attempts for queued in retry))
                self._queue[:0] = retry

    def _take_batch(self) -> list[_Queued[W, R]]:
        """The first writes queued, at most one per key, at most `max_batch`."""
        batch: list[_Queued[W, R]] = []
        left: list[_Queued[W, R]] = []
        keys: set[Hashable] = set()
        for queued in self._queue:
            key = self._key(queued.item) if self._key is not None else id(queued)
            if len(batch) >= self._max_batch or key in keys:
                left.append(queued)
            else:
                keys.add(key)
                batch.append(queued)
        self._queue = left
        return batch

    def _should_retry(self, queued: _Queued[W, R], error: BaseException) -> bool:
        queued.attempts += 1
        return (
            isinstance(error, DBAPIError)
            and _is_transient(error)
            and queued.attempts < self._attempts
        )

    def _refusal(self, queued: _Queued[W, R], error: BaseException) -> BaseException:
        if not isinstance(error, SQLAlchemyError):
            return error
        reason = str(error.orig) if isinstance(error, DBAPIError) else str(error)
        refusal = StorageWriteError(
            f"the database refused {self._describe(queued.item)}: {reason.strip()}. Nothing "
            "of it was stored (what was stored before is kept), and the writes committed "
            "with it are not affected"
        )
        refusal.__cause__ = error
        return refusal

    # On the writer's thread.

    def _commit(self, batch: Sequence[_Queued[W, R]]) -> list[R | BaseException]:
        items = [queued.item for queued in batch]
        if len(items) > 1:
            try:
                with self._connect().begin() as transaction:
                    if self._write_many is not None:
                        results = self._write_many(transaction.connection, items)
                    else:
                        results = [self._write_one(transaction.connection, i) for i in items]
                return list(results)
            except Exception:  # some write failed: find which, write by write
                self._reconnect_if_invalid()
        return [self._write_alone(item) for item in items]

    def _write_alone(self, item: W) -> R | BaseException:
        try:
            with self._connect().begin() as transaction:
                return self._write_one(transaction.connection, item)
        except Exception as error:
            self._reconnect_if_invalid()
            return error

    def _connect(self) -> sa.Connection:
        if self._connection is None:
            self._connection = self.engine.connect()
        return self._connection

    def _reconnect_if_invalid(self) -> None:
        if self._connection is not None and self._connection.invalidated:
            self._disconnect()

    def _disconnect(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
