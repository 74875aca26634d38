"""The store contract, for the in-memory and the file-system store alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentry.files import (
    AgentFileStore,
    FileAccessError,
    FileSearchResult,
    FileSystemAgentFileStore,
    InMemoryAgentFileStore,
    MissingFileError,
    PathEscapeError,
)


@pytest.fixture(params=["memory", "disk"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> AgentFileStore:
    if request.param == "memory":
        return InMemoryAgentFileStore()
    return FileSystemAgentFileStore(tmp_path / "root")


async def test_write_read_replace_and_delete(store: AgentFileStore) -> None:
    await store.write_file("notes/today.md", "Buy bread.")
    assert await store.read_file("notes/today.md") == "Buy bread."
    await store.write_file("notes/today.md", "Buy milk.")
    assert await store.read_file("./notes//today.md") == "Buy milk."
    assert await store.file_exists("notes/today.md")
    assert await store.delete_file("notes/today.md")
    assert not await store.delete_file("notes/today.md")
    assert not await store.file_exists("notes/today.md")


async def test_listing_is_sorted_and_recursive_only_when_asked(store: AgentFileStore) -> None:
    for path in ["b.txt", "a.txt", "docs/x.md", "docs/deep/y.md"]:
        await store.write_file(path, path)
    await store.create_directory("empty/inside")

    assert await store.list_files() == ["a.txt", "b.txt"]
    assert await store.list_files("docs") == ["docs/x.md"]
    assert await store.list_files("docs", recursive=True) == ["docs/deep/y.md", "docs/x.md"]
    assert await store.list_files("empty", recursive=True) == []
    assert await store.list_files("missing") == []


async def test_search_finds_lines_with_numbers_and_a_snippet(store: AgentFileStore) -> None:
    await store.write_file("a.md", "one\ntwo Bread\nthree\nfour bread")
    await store.write_file("b.txt", "bread too")
    await store.write_file("c.md", "nothing here")

    (result,) = await store.search_files("bread", glob="*.md")
    assert result.file_name == "a.md"
    assert [(m.line_number, m.line) for m in result.matches] == [
        (2, "two Bread"),
        (4, "four bread"),
    ]
    assert result.snippet == "one\ntwo Bread\nthree"
    assert FileSearchResult.from_dict(result.to_dict()) == result

    assert [r.file_name for r in await store.search_files("bread")] == ["a.md", "b.txt"]
    assert await store.search_files("bread", case_sensitive=True, glob="a.md") != []
    assert [r.file_name for r in await store.search_files(r"^t\w+ B", regex=True)] == ["a.md"]
    assert len(await store.search_files("e", max_results=1)) == 1


async def test_search_goes_through_folders_in_path_order(store: AgentFileStore) -> None:
    for path in ["a/b.txt", "a.txt", "a-b.txt", "a/c/d.txt", "z.txt"]:
        await store.write_file(path, "needle")

    found = [r.file_name for r in await store.search_files("needle")]
    assert found == ["a-b.txt", "a.txt", "a/b.txt", "a/c/d.txt", "z.txt"]
    assert found == sorted(found)
    assert [r.file_name for r in await store.search_files("needle", max_results=2)] == [
        "a-b.txt",
        "a.txt",
    ]


async def test_a_search_stopped_early_leaves_no_folder_open(tmp_path: Path) -> None:
    import os

    store = FileSystemAgentFileStore(tmp_path / "root")
    for folder in ["p", "p/q", "p/q/r"]:
        await store.write_file(f"{folder}/hit.txt", "needle")
    descriptors = len(os.listdir("/proc/self/fd"))

    (result,) = await store.search_files("needle", max_results=1)

    assert result.file_name == "p/hit.txt"
    assert len(os.listdir("/proc/self/fd")) == descriptors


async def test_bad_requests_are_clear_errors(store: AgentFileStore) -> None:
    with pytest.raises(MissingFileError, match=r"no file 'ghost\.txt'"):
        await store.read_file("ghost.txt")
    with pytest.raises(FileAccessError, match="invalid regular expression"):
        await store.search_files("(", regex=True)
    await store.write_file("file.txt", "x")
    with pytest.raises(FileAccessError, match="is a file, not a folder"):
        await store.write_file("file.txt/inner.txt", "y")
    await store.create_directory("folder")
    with pytest.raises(FileAccessError, match="is a folder"):
        await store.write_file("folder", "y")
    with pytest.raises(PathEscapeError):
        await store.read_file("../outside.txt")


async def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    store = FileSystemAgentFileStore(tmp_path, max_file_bytes=10)
    with pytest.raises(FileAccessError, match="over the store's limit of 10"):
        await store.write_file("big.txt", "x" * 11)
    (tmp_path / "big.txt").write_text("y" * 50)
    with pytest.raises(FileAccessError, match="over the limit of 10"):
        await store.read_file("big.txt")


async def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    store = FileSystemAgentFileStore(tmp_path)
    await store.write_file("a.txt", "first")
    await store.write_file("a.txt", "second")

    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "second"


async def test_text_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "binary.bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(FileAccessError, match="not UTF-8 text"):
        await FileSystemAgentFileStore(tmp_path).read_file("binary.bin")
