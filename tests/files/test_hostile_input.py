"""What a model (or another process) can put in front of a store does not hang it, break
it for everyone, or escape as a raw error: FIFOs, very deep trees, and characters no text
file can hold."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentry.files import (
    AgentFileStore,
    FileAccessError,
    FileSystemAgentFileStore,
    InMemoryAgentFileStore,
    PathEscapeError,
    walk_files,
)
from agentry.files._walk import MAX_OPEN_FOLDERS


@pytest.fixture(params=["memory", "disk"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AgentFileStore]:
    if request.param == "memory":
        yield InMemoryAgentFileStore()
        return
    yield FileSystemAgentFileStore(tmp_path / "root")
    _remove_tree(tmp_path / "root")


def _remove_tree(root: Path) -> None:
    """Remove a tree too deep for the recursive `shutil.rmtree` of Python 3.11 (which
    pytest uses to clean up its temporary folders), deepest folders first."""
    folders = [root]
    pending = [root]
    while pending:
        for entry in os.scandir(pending.pop()):
            if entry.is_dir(follow_symlinks=False):
                folders.append(Path(entry.path))
                pending.append(Path(entry.path))
            else:
                os.unlink(entry.path)
    for folder in reversed(folders):
        os.rmdir(folder)


# region special files and deep trees


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
async def test_a_fifo_in_the_store_is_refused_not_waited_on(tmp_path: Path) -> None:
    store = FileSystemAgentFileStore(tmp_path)
    await store.write_file("real.txt", "needle")
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    try:
        with pytest.raises(FileAccessError, match=r"'pipe\.txt' is not a regular file"):
            await asyncio.wait_for(store.read_file("pipe.txt"), timeout=30)
        assert await store.list_files() == ["real.txt"]
        found = await asyncio.wait_for(store.search_files("needle"), timeout=30)
        assert [r.file_name for r in found] == ["real.txt"]
    finally:
        _release_a_blocked_reader(fifo)


def _release_a_blocked_reader(fifo: Path) -> None:
    """Open the FIFO for writing, which lets a reader stuck opening it go on."""
    with contextlib.suppress(OSError):  # no reader is waiting
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


async def test_a_very_deep_file_does_not_break_listing_or_search(store: AgentFileStore) -> None:
    deep = "d/" * 1100 + "x.txt"
    await store.write_file(deep, "needle")
    await store.write_file("top.txt", "needle")

    assert await store.list_files(recursive=True) == [deep, "top.txt"]
    assert [r.file_name for r in await store.search_files("needle")] == [deep, "top.txt"]
    assert await store.read_file(deep) == "needle"


async def test_a_deep_tree_with_files_at_every_level_is_walked_in_order(
    tmp_path: Path,
) -> None:
    store = FileSystemAgentFileStore(tmp_path)
    depth = MAX_OPEN_FOLDERS * 3
    paths = ["d/" * level + name for level in range(depth) for name in ("a.txt", "z.txt")]
    for path in paths:
        await store.write_file(path, path)
    descriptors = _open_descriptors()

    assert await store.list_files(recursive=True) == sorted(paths)
    found = await store.search_files("z.txt", max_results=depth * 2)
    assert [r.file_name for r in found] == sorted(p for p in paths if p.endswith("z.txt"))
    assert _open_descriptors() == descriptors


def test_a_walk_holds_a_bounded_number_of_folders_open(tmp_path: Path) -> None:
    depth = MAX_OPEN_FOLDERS * 3
    folder = tmp_path
    for _ in range(depth):
        (folder / "z.txt").write_text("z")
        folder = folder / "d"
        folder.mkdir()
    root_fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        before = _open_descriptors()
        most = 0
        walked: list[str] = []
        for path, _ in walk_files(root_fd):
            walked.append(path)
            most = max(most, _open_descriptors() - before)
        assert walked == ["d/" * level + "z.txt" for level in reversed(range(depth))]
        assert most <= MAX_OPEN_FOLDERS + 1
        assert _open_descriptors() == before
    finally:
        os.close(root_fd)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_walk_reports_what_it_skips(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("ok")
    (tmp_path / "link.txt").symlink_to(tmp_path / "ok.txt")
    os.mkfifo(tmp_path / "pipe")
    skipped: list[tuple[str, str]] = []

    def note(path: str, reason: str) -> None:
        skipped.append((path, reason))

    root_fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        walked = [path for path, _ in walk_files(root_fd, on_skipped=note)]
    finally:
        os.close(root_fd)
    assert walked == ["ok.txt"]
    assert skipped == [("link.txt", "a symbolic link"), ("pipe", "not a regular file")]


# endregion

# region characters no text file can hold


async def test_a_lone_surrogate_in_content_is_a_file_access_error(store: AgentFileStore) -> None:
    with pytest.raises(FileAccessError, match=r"lone surrogate \('\\ud800' at character 3\)"):
        await store.write_file("a.txt", "abc\ud800")
    assert not await store.file_exists("a.txt")


@pytest.mark.parametrize("path", ["\udc2e", "notes/\ud800.md", "a\x00b.txt"])
async def test_a_path_no_file_name_can_hold_is_refused(store: AgentFileStore, path: str) -> None:
    with pytest.raises(PathEscapeError):
        await store.read_file(path)
    with pytest.raises(PathEscapeError):
        await store.write_file(path, "x")


async def test_a_lone_surrogate_in_a_pattern_is_a_file_access_error(
    store: AgentFileStore,
) -> None:
    await store.write_file("a.txt", "text")
    for regex in (False, True):
        with pytest.raises(FileAccessError, match="lone surrogate"):
            await store.search_files("\udc80", regex=regex)


async def test_nul_characters_are_text_and_round_trip(store: AgentFileStore) -> None:
    await store.write_file("a.txt", "a\x00b")
    assert await store.read_file("a.txt") == "a\x00b"


# endregion
