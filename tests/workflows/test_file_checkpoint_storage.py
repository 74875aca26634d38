"""`FileCheckpointStorage` with what else can end up in its directory."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
from pathlib import Path

import pytest

from agentry.workflows import (
    FileCheckpointStorage,
    WorkflowCheckpoint,
    WorkflowCheckpointException,
)


async def _saved(storage: FileCheckpointStorage, count: int) -> list[str]:
    ids: list[str] = []
    for step in range(count):
        checkpoint = WorkflowCheckpoint(workflow_name="w", graph_signature="g")
        checkpoint.iteration_count = step
        ids.append(await storage.save(checkpoint))
    return ids


def _document(**fields: object) -> str:
    data = WorkflowCheckpoint(workflow_name="w", graph_signature="g", checkpoint_id="junk")
    return json.dumps({**data.to_dict(), **fields})


async def test_stray_json_files_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    storage = FileCheckpointStorage(tmp_path)
    ids = await _saved(storage, 2)
    deep = "[" * 100_000 + "]" * 100_000
    strays = {
        "junk.json": '{"workflow_name": "w", "timestamp": "t", "iteration_count": 1e999}',
        "deep.json": '{"workflow_name": "w", "nested": ' + deep + "}",
        "list.json": "[1, 2]",
        "bad_count.json": _document(checkpoint_id="bad_count", iteration_count=-1),
        "copied.json": _document(checkpoint_id="elsewhere"),
        "notes.json": "not json at all",
    }
    for name, text in strays.items():
        (tmp_path / name).write_text(text)
    with caplog.at_level(logging.WARNING, logger="agentry.workflows"):
        listed = await storage.list_checkpoints(workflow_name="w")
    assert [c.checkpoint_id for c in listed] == ids
    assert await storage.list_checkpoint_ids(workflow_name="w") == ids
    assert (await storage.get_latest(workflow_name="w")).checkpoint_id == ids[-1]  # type: ignore[union-attr]
    warned = " ".join(r.getMessage() for r in caplog.records)
    for name in strays:
        assert f"skipping unreadable checkpoint file {tmp_path / name}" in warned


async def test_a_fifo_named_like_a_checkpoint_does_not_block_listing_or_loading(
    tmp_path: Path,
) -> None:
    storage = FileCheckpointStorage(tmp_path)
    ids = await _saved(storage, 1)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    try:
        listed = await asyncio.wait_for(storage.list_checkpoints(workflow_name="w"), 30)
        assert [c.checkpoint_id for c in listed] == ids
        with pytest.raises(WorkflowCheckpointException, match="is not a regular file"):
            await asyncio.wait_for(storage.load("pipe"), 30)
    finally:
        _release_readers(fifo)


def _release_readers(fifo: Path) -> None:
    """Open the FIFO for writing once, so that a reader blocked on it gets end of file."""
    with contextlib.suppress(OSError):  # no reader waiting: nothing to release
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


async def test_temporary_files_of_killed_saves_are_removed_by_the_next_storage(
    tmp_path: Path,
) -> None:
    await _saved(FileCheckpointStorage(tmp_path), 1)
    # What a save killed between writing and renaming leaves behind.
    abandoned = tmp_path / ".tmp-abandoned.json"
    abandoned.write_text(_document()[:50])
    # A save still in progress in another process holds a lock on its file.
    in_progress = tmp_path / ".tmp-in-progress.json"
    in_progress.write_text("")
    holder = os.open(in_progress, os.O_RDWR)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        storage = FileCheckpointStorage(tmp_path)  # as in the process started next
        assert len(await storage.list_checkpoint_ids(workflow_name="w")) == 1
        await _saved(storage, 1)
        assert not abandoned.exists()
        assert in_progress.exists()
    finally:
        os.close(holder)
    await _saved(FileCheckpointStorage(tmp_path), 1)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert len(await storage.list_checkpoint_ids(workflow_name="w")) == 3
