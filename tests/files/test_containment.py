"""Every way out of a FileSystemAgentFileStore we can think of is refused, and nothing
outside its root is ever touched."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentry.files import (
    FileAccessError,
    FileSystemAgentFileStore,
    PathEscapeError,
    normalize_relative_path,
)

ESCAPES = [
    "../outside.txt",
    "a/../../outside.txt",
    "./../outside.txt",
    "a/b/../../../outside.txt",
    "..",
    "/etc/passwd",
    "//server/share/file",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "\\\\server\\share\\file",
    "..\\outside.txt",
    "a\\..\\..\\outside.txt",
    "file\x00.txt",
    "line\nbreak.txt",
    "\uff0e\uff0e/outside.txt",  # fullwidth dots
    "\u2025/outside.txt",  # two-dot leader, NFKC ".."
    "",
    "/",
    ".",
]


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[FileSystemAgentFileStore, Path]:
    """A store under tmp_path/root, with a sentinel file beside the root."""
    (tmp_path / "outside.txt").write_text("sentinel")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "key.txt").write_text("secret")
    return FileSystemAgentFileStore(tmp_path / "root"), tmp_path


def outside_untouched(tmp_path: Path) -> bool:
    names = sorted(p.name for p in tmp_path.iterdir())
    return (
        names == ["outside.txt", "root", "secret"]
        and (tmp_path / "outside.txt").read_text() == "sentinel"
        and sorted(p.name for p in (tmp_path / "secret").iterdir()) == ["key.txt"]
        and (tmp_path / "secret" / "key.txt").read_text() == "secret"
    )


@pytest.mark.parametrize("path", ESCAPES)
async def test_escaping_paths_are_refused_for_every_operation(
    sandbox: tuple[FileSystemAgentFileStore, Path], path: str
) -> None:
    store, tmp_path = sandbox
    for operation in (
        store.write_file(path, "pwned"),
        store.read_file(path),
        store.delete_file(path),
        store.file_exists(path),
        store.create_directory(path),
    ):
        with pytest.raises(PathEscapeError):
            await operation
    assert outside_untouched(tmp_path)


async def test_percent_encoding_is_a_literal_name_inside_the_root(
    sandbox: tuple[FileSystemAgentFileStore, Path],
) -> None:
    store, tmp_path = sandbox
    await store.write_file("%2e%2e/outside.txt", "inside")
    assert (tmp_path / "root" / "%2e%2e" / "outside.txt").read_text() == "inside"
    assert outside_untouched(tmp_path)


async def test_links_made_after_the_store_are_not_followed(
    sandbox: tuple[FileSystemAgentFileStore, Path],
) -> None:
    store, tmp_path = sandbox
    root = tmp_path / "root"
    (root / "linked_dir").symlink_to(tmp_path / "secret")
    (root / "linked_file.txt").symlink_to(tmp_path / "outside.txt")
    (root / "real").mkdir()
    (root / "real" / "deeper").symlink_to(tmp_path / "secret")

    for path in ("linked_dir/key.txt", "linked_file.txt", "real/deeper/key.txt"):
        with pytest.raises(PathEscapeError, match="symbolic link"):
            await store.read_file(path)
        with pytest.raises(PathEscapeError, match="symbolic link"):
            await store.write_file(path, "pwned")
        with pytest.raises(PathEscapeError, match="symbolic link"):
            await store.delete_file(path)
    with pytest.raises(PathEscapeError):
        await store.create_directory("linked_dir/new")
    with pytest.raises(PathEscapeError):
        await store.search_files("secret", directory="linked_dir")
    assert await store.list_files(recursive=True) == []
    assert await store.search_files("secret") == []
    assert outside_untouched(tmp_path)


async def test_a_hard_link_to_a_file_outside_is_not_read(
    sandbox: tuple[FileSystemAgentFileStore, Path],
) -> None:
    store, tmp_path = sandbox
    os.link(tmp_path / "secret" / "key.txt", tmp_path / "root" / "alias.txt")
    with pytest.raises(PathEscapeError, match="other hard links"):
        await store.read_file("alias.txt")


async def test_a_folder_swapped_for_a_link_while_writing_never_lets_a_write_out(
    sandbox: tuple[FileSystemAgentFileStore, Path],
) -> None:
    """A thread keeps replacing root/swap (a folder) with a link to the secret folder and
    back while the store writes into it: every write lands inside or is refused."""
    store, tmp_path = sandbox
    swap = tmp_path / "root" / "swap"
    swap.mkdir()
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            try:
                shutil.rmtree(swap, ignore_errors=True)
                if swap.is_symlink():
                    swap.unlink()
                swap.symlink_to(tmp_path / "secret")
                swap.unlink()
                swap.mkdir()
            except OSError:
                continue

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    refused = written = 0
    try:
        for index in range(300):
            try:
                await store.write_file(f"swap/key.txt{index % 3}", "pwned")
                written += 1
            except FileAccessError:
                refused += 1
    finally:
        stop.set()
        flipper.join(10)

    assert refused + written == 300
    assert outside_untouched(tmp_path)


async def test_the_check_and_the_use_cannot_be_split_by_a_link(
    sandbox: tuple[FileSystemAgentFileStore, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link appears right after the path was checked: the walk still refuses it."""
    store, tmp_path = sandbox
    (tmp_path / "root" / "later").mkdir()
    import agentry.files._filesystem_store as module

    checked = module.split_relative_path

    def check_then_swap(path: str, **options: bool) -> list[str]:
        parts = checked(path, **options)
        later = tmp_path / "root" / "later"
        if later.is_dir() and not later.is_symlink():
            later.rmdir()
            later.symlink_to(tmp_path / "secret")
        return parts

    monkeypatch.setattr(module, "split_relative_path", check_then_swap)
    with pytest.raises(PathEscapeError, match="symbolic link"):
        await store.write_file("later/key.txt", "pwned")
    assert outside_untouched(tmp_path)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=st.text(alphabet=st.sampled_from(list("ab./\\:%\x00\uff0e ~")), max_size=14))
def test_any_accepted_path_stays_inside_the_root(tmp_path: Path, path: str) -> None:
    root = tmp_path / "prop" / "root"
    root.mkdir(parents=True, exist_ok=True)
    (tmp_path / "prop" / "outside.txt").write_text("sentinel")
    store = FileSystemAgentFileStore(root)
    try:
        normalized = normalize_relative_path(path)
    except PathEscapeError:
        normalized = None
    try:
        asyncio.run(store.write_file(path, "data"))
    except FileAccessError:
        pass
    else:
        assert normalized is not None
        written = (root / normalized).resolve()
        assert written.is_relative_to(root.resolve())
        assert written.read_text() == "data"
    assert sorted(p.name for p in (tmp_path / "prop").iterdir()) == ["outside.txt", "root"]
    assert (tmp_path / "prop" / "outside.txt").read_text() == "sentinel"
    for dirpath, _, filenames in os.walk(tmp_path / "prop"):
        for name in filenames:
            assert Path(dirpath, name).resolve().is_relative_to(tmp_path.resolve())


@given(path=st.text(max_size=30))
def test_normalized_paths_are_clean(path: str) -> None:
    try:
        normalized = normalize_relative_path(path)
    except PathEscapeError:
        return
    parts = normalized.split("/")
    assert all(part not in ("", ".", "..") for part in parts)
    assert not normalized.startswith("/")
    assert "\\" not in normalized
    assert "\x00" not in normalized
