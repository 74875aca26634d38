"""Searches with patterns a model writes: none runs for ever or holds up the event loop,
and what the engine cannot do is refused saying what to do instead."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from agentry.files import (
    AgentFileStore,
    FileAccessError,
    FileSystemAgentFileStore,
    InMemoryAgentFileStore,
)

from .helpers import GatedExecutor, until


@pytest.fixture(params=["memory", "disk"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> AgentFileStore:
    if request.param == "memory":
        return InMemoryAgentFileStore()
    return FileSystemAgentFileStore(tmp_path / "root")


BACKTRACKING_SEARCH = """
import asyncio, sys
from agentry.files import FileSystemAgentFileStore, InMemoryAgentFileStore

async def main():
    if sys.argv[1] == "memory":
        store = InMemoryAgentFileStore()
    else:
        store = FileSystemAgentFileStore(sys.argv[2])
    await store.write_file("a.txt", "a" * 40 + "!\\n" + "a" * 40)
    (found,) = await store.search_files("(a+)+$", regex=True)
    print([match.line_number for match in found.matches])

asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["memory", "disk"])
def test_a_pattern_that_backtracks_exponentially_in_re_finishes(kind: str, tmp_path: Path) -> None:
    # In a child process: a search that never ends would hold the GIL and freeze this one.
    completed = subprocess.run(
        [sys.executable, "-c", BACKTRACKING_SEARCH, kind, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,  # a hang guard
        check=False,
    )
    assert completed.stderr == ""
    assert completed.stdout == "[2]\n"


async def test_the_in_memory_store_searches_off_the_event_loop() -> None:
    store = InMemoryAgentFileStore()
    await store.write_file("notes.md", "one\nneedle")
    executor = GatedExecutor()
    asyncio.get_running_loop().set_default_executor(executor)

    search = asyncio.create_task(store.search_files("needle"))
    # The search waits in a worker thread while the loop goes on running this coroutine.
    await asyncio.wait_for(until(executor.started.is_set), timeout=30)
    assert not search.done()
    executor.gate.set()

    (found,) = await asyncio.wait_for(search, timeout=30)
    assert (found.file_name, found.matches[0].line_number) == ("notes.md", 2)


@pytest.mark.parametrize(
    "pattern",
    [r"(\w)\1", r"foo(?=bar)", r"(?<!x)y", r"(?!a)b"],
)
async def test_patterns_re2_has_no_syntax_for_are_refused_saying_what_to_do(
    store: AgentFileStore, pattern: str
) -> None:
    await store.write_file("a.txt", "foobar")
    with pytest.raises(FileAccessError, match=r"invalid regular expression.*no backreferences"):
        await store.search_files(pattern, regex=True)


async def test_plain_text_is_found_literally_and_regex_flags_still_apply(
    store: AgentFileStore,
) -> None:
    await store.write_file("a.txt", "cost: (a+b)*2\nCOST: 3")
    assert [m.line for r in await store.search_files("(a+b)*") for m in r.matches] == [
        "cost: (a+b)*2"
    ]
    found = await store.search_files(r"^cost: \d$", regex=True)
    assert [m.line for r in found for m in r.matches] == ["COST: 3"]
    assert await store.search_files(r"^cost: \d$", regex=True, case_sensitive=True) == []
