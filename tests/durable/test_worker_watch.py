"""Workers' heartbeats: many workers starting together on one fresh database."""

from __future__ import annotations

import threading

import sqlalchemy as sa

from agentry.durable._takeover import WORKERS_TABLE, WorkerWatch, sync_url

HANG_GUARD = 60  # seconds; only reached when the behaviour under test is broken


def test_workers_starting_together_on_a_fresh_postgresql_all_start(postgres_url: str) -> None:
    watches = [WorkerWatch(postgres_url, f"worker-{n}", takeover_after=60) for n in range(8)]
    all_ready = threading.Barrier(len(watches), timeout=HANG_GUARD)
    failures: list[BaseException] = []

    def start(watch: WorkerWatch) -> None:
        all_ready.wait()
        try:
            watch.start()
        except BaseException as error:  # collected for the assertion below
            failures.append(error)

    threads = [threading.Thread(target=start, args=(watch,)) for watch in watches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=HANG_GUARD)
    try:
        assert failures == []
        engine = sa.create_engine(sync_url(postgres_url))
        with engine.connect() as connection:
            seen = connection.execute(sa.text(f"SELECT worker_id FROM {WORKERS_TABLE}")).all()
        engine.dispose()
        assert sorted(row[0] for row in seen) == sorted(watch.worker_id for watch in watches)
    finally:
        for watch in watches:
            watch.stop()
