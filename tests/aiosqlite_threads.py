"""The worker threads of aiosqlite connections still open.

Each aiosqlite connection runs its SQLite calls on a thread of its own, which ends when
the connection closes. A connection left open past its event loop keeps that thread, and
when the connection is later collected the thread dies with "Event loop is closed" in
whichever test is running then; these helpers find the connection where it is left open.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

__all__ = ["aiosqlite_workers", "open_aiosqlite_connections"]

# Threads are named after their target: "Thread-7 (_connection_worker_thread)".
_WORKER_NAME = "(_connection_worker_thread)"
# Hang guard: a closed connection's thread ends as soon as it has answered the close.
_STOP_WAIT = 5.0


def aiosqlite_workers() -> set[threading.Thread]:
    """The worker threads of aiosqlite connections now alive."""
    return {thread for thread in threading.enumerate() if thread.name.endswith(_WORKER_NAME)}


def open_aiosqlite_connections(
    already_open: Collection[threading.Thread] = (),
) -> list[threading.Thread]:
    """The worker threads, other than `already_open`, of connections that stay open: a
    thread still finishing the close it has just answered is waited for."""
    left: list[threading.Thread] = []
    for thread in aiosqlite_workers().difference(already_open):
        thread.join(_STOP_WAIT)
        if thread.is_alive():
            left.append(thread)
    return left
