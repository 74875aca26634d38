"""One `agentry serve a2a` process on the default SQLite store holds hundreds of
concurrent streaming tasks (the benchmark, `benchmarks/a2a_load.py`, runs thousands)."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.a2a_load import run_load

from .processes import free_port

pytestmark = pytest.mark.timeout(600)

STREAMS = 200


async def test_the_default_sqlite_store_holds_hundreds_of_concurrent_streams(
    tmp_path: Path,
) -> None:
    port = free_port()
    command = [
        "-m", "agentry.cli", "serve", "a2a", "benchmarks.a2a_load:agent",
        "--port", str(port), "--log-level", "warning",
        "--database", str(tmp_path / "tasks.sqlite"),
    ]  # fmt: skip

    result = await run_load(command, port, STREAMS)

    assert result.errors == []
    assert result.completed == STREAMS
