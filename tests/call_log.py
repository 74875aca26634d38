"""A log of the calls test apps make, with the process that made each, in a SQLite file:
how a test tells which process (a killed one, or the one after it) called what."""

from __future__ import annotations

import os
import sqlite3

__all__ = ["note_call", "read_calls"]


def note_call(path: str, kind: str) -> None:
    """Note a call of `kind` made by this process in the log at `path`."""
    with sqlite3.connect(path) as calls:
        calls.execute("CREATE TABLE IF NOT EXISTS calls (kind TEXT, pid INTEGER)")
        calls.execute("INSERT INTO calls VALUES (?, ?)", (kind, os.getpid()))


def read_calls(path: str) -> list[tuple[str, int]]:
    """The calls noted in the log at `path`, in order: (kind, process id)."""
    with sqlite3.connect(path) as calls:
        calls.execute("CREATE TABLE IF NOT EXISTS calls (kind TEXT, pid INTEGER)")
        return [(str(k), int(p)) for k, p in calls.execute("SELECT kind, pid FROM calls")]
