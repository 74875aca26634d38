"""Workers' heartbeats, and taking over the runs of a worker that stopped beating.

DBOS resumes a worker's unfinished runs when that worker starts again. When it does not
(its machine is gone), the other workers take its runs over: every launched worker notes
the time in a table of the database every few seconds, and a worker that finds another
silent for longer than `takeover_after` hands that worker's pending runs and calls back
to the queue, where exactly one live worker takes each.
"""

from __future__ import annotations

import logging
import threading
import time

import sqlalchemy as sa
from dbos import DBOS

from agentry.storage import lock_schema_changes

__all__ = ["WORKERS_TABLE", "WorkerWatch", "sync_url"]

logger = logging.getLogger("agentry.durable")

WORKERS_TABLE = "agentry_workers"
"""The table of worker heartbeats, next to DBOS's own tables."""


def sync_url(database_url: str) -> sa.URL:
    """`database_url` for SQLAlchemy's synchronous engine (PostgreSQL through psycopg)."""
    url = sa.make_url(database_url)
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    return url


class WorkerWatch:
    """A thread that keeps one worker's heartbeat and takes over silent workers' runs.

    Args:
        database_url: The durable database.
        worker_id: This worker's id.
        takeover_after: Seconds of silence after which a worker's runs are taken over.
    """

    def __init__(self, database_url: str, worker_id: str, takeover_after: float) -> None:
        self.worker_id = worker_id
        self.takeover_after = takeover_after
        self._engine = sa.create_engine(sync_url(database_url))
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._watch, name=f"agentry-worker-watch-{worker_id}", daemon=True
        )
        self._table = sa.Table(
            WORKERS_TABLE,
            sa.MetaData(),
            sa.Column("worker_id", sa.Text, primary_key=True),
            sa.Column("seen_at", sa.Float, nullable=False),
        )

    def start(self) -> None:
        """Create the table if needed, beat once, and watch until `stop`."""
        with self._engine.begin() as connection:
            lock_schema_changes(connection)  # workers starting together race to create it
            self._table.create(connection, checkfirst=True)
        self._beat()
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (the worker's row stays: its silence starts now)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
        self._engine.dispose()

    def _watch(self) -> None:
        period = self.takeover_after / 3
        while not self._stop.wait(period):
            try:
                self._beat()
                for silent in self._silent_workers():
                    self._take_over(silent)
            except Exception:  # a database hiccup: try again next beat
                logger.warning(
                    "worker %s could not watch the others", self.worker_id, exc_info=True
                )

    def _beat(self) -> None:
        table = self._table
        with self._engine.begin() as connection:
            updated = connection.execute(
                table.update()
                .where(table.c.worker_id == self.worker_id)
                .values(seen_at=time.time())
            )
            if updated.rowcount == 0:
                connection.execute(
                    table.insert().values(worker_id=self.worker_id, seen_at=time.time())
                )

    def _silent_workers(self) -> list[str]:
        table = self._table
        deadline = time.time() - self.takeover_after
        with self._engine.connect() as connection:
            rows = connection.execute(
                sa.select(table.c.worker_id).where(
                    table.c.seen_at < deadline, table.c.worker_id != self.worker_id
                )
            )
            return [str(row[0]) for row in rows]

    def _take_over(self, silent: str) -> None:
        # DBOS's own recovery of another executor's runs (what its Conductor service calls):
        # it re-queues them, and the queue's dequeue admits exactly one worker per run.
        handles = DBOS._recover_pending_workflows([silent])  # pyright: ignore[reportPrivateUsage]
        table = self._table
        with self._engine.begin() as connection:
            connection.execute(table.delete().where(table.c.worker_id == silent))
        if handles:
            logger.warning(
                "worker %s took over %d runs and calls of silent worker %s",
                self.worker_id,
                len(handles),
                silent,
            )
