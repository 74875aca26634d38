"""A skill folder that another process tampers with, or that holds odd files, never makes
a skill read or run a file outside it, hang the event loop, or stop other skills loading."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Generator
from pathlib import Path

import pytest

from agentry.skills import FileSkill, SkillError, SkillsProvider

from ..files.helpers import GatedExecutor, until
from .helpers import write_skill

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2, FIFOs")

# Swaps two names again and again, atomically (renameat2 with RENAME_EXCHANGE).
SWAPPER = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
first, second = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    if libc.renameat2(-100, first, -100, second, 2) != 0:
        sys.exit(f"renameat2 failed: errno {ctypes.get_errno()}")
"""


@contextlib.contextmanager
def swapping(first: Path, second: Path) -> Generator[subprocess.Popen[bytes], None, None]:
    """`first` and `second` trade places as fast as another process can make them."""
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(first), str(second)])
    try:
        yield swapper
    finally:
        swapper.kill()
        swapper.wait()


# region files swapped for links while in use


def test_a_script_swapped_for_a_link_never_runs_the_file_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text("echo OUTSIDE\n", encoding="utf-8")
    directory = write_skill(tmp_path / "skills", "racy", files={"scripts/run.sh": "echo inside\n"})
    provider = SkillsProvider(tmp_path / "skills", require_script_approval=False)
    (directory / "scripts/run.sh.swap").symlink_to(outside)

    outcomes: set[str] = set()

    async def run_many() -> None:
        for _ in range(200):
            result = await provider.run_skill_script("racy", "scripts/run.sh")
            outcomes.add(result if isinstance(result, str) else result.stdout)

    with swapping(directory / "scripts/run.sh", directory / "scripts/run.sh.swap") as swapper:
        asyncio.run(run_many())
        assert swapper.poll() is None  # it swapped all along

    refused = (
        "Error: refusing script 'scripts/run.sh': 'scripts/run.sh' is a symbolic link; "
        "links are not followed"
    )
    assert outcomes <= {"inside\n", refused}


def test_a_resource_swapped_for_a_link_is_never_read_through_it(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password", encoding="utf-8")
    directory = write_skill(tmp_path / "skills", "racy", files={"references/a.md": "fine"})
    provider = SkillsProvider(tmp_path / "skills")
    (directory / "references/a.md.swap").symlink_to(secret)

    outcomes: set[str] = set()

    async def read_many() -> None:
        for _ in range(2000):
            outcomes.add(await provider.read_skill_resource("racy", "references/a.md"))

    with swapping(directory / "references/a.md", directory / "references/a.md.swap") as swapper:
        asyncio.run(read_many())
        assert swapper.poll() is None

    refused = (
        "Error: cannot read resource 'references/a.md': 'references/a.md' is a symbolic "
        "link; links are not followed"
    )
    assert outcomes <= {"fine", refused}


# endregion

# region resources that are not plain small files


async def test_a_resource_that_became_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    directory = write_skill(tmp_path, "pipes", files={"references/a.md": "text"})
    provider = SkillsProvider(tmp_path)
    fifo = directory / "references/a.md"
    fifo.unlink()
    os.mkfifo(fifo)
    try:
        result = await asyncio.wait_for(
            provider.read_skill_resource("pipes", "references/a.md"), timeout=30
        )
    finally:
        with contextlib.suppress(OSError):  # lets a reader stuck opening the FIFO go on
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert result == (
        "Error: cannot read resource 'references/a.md': 'references/a.md' is not a regular "
        "file (a FIFO, socket or device); it is not read"
    )


async def test_a_resource_is_read_off_the_event_loop(tmp_path: Path) -> None:
    write_skill(tmp_path, "slow", files={"references/a.md": "text"})
    provider = SkillsProvider(tmp_path)
    executor = GatedExecutor()
    asyncio.get_running_loop().set_default_executor(executor)

    read = asyncio.create_task(provider.read_skill_resource("slow", "references/a.md"))
    # The read waits in a worker thread while the loop goes on running this coroutine.
    await asyncio.wait_for(until(executor.started.is_set), timeout=30)
    assert not read.done()
    executor.gate.set()

    assert await asyncio.wait_for(read, timeout=30) == "text"


async def test_a_resource_over_the_size_limit_is_refused_naming_the_limit(
    tmp_path: Path,
) -> None:
    write_skill(tmp_path, "big", files={"references/big.md": "x" * 11, "references/ok.md": "y"})
    provider = SkillsProvider(tmp_path, max_resource_bytes=10)

    assert await provider.read_skill_resource("big", "references/ok.md") == "y"
    assert await provider.read_skill_resource("big", "references/big.md") == (
        "Error: cannot read resource 'references/big.md': 'references/big.md' is 11 bytes, "
        "over the limit of 10; it cannot be read whole"
    )


def test_the_resource_limit_is_one_mebibyte_by_default(tmp_path: Path) -> None:
    skill = FileSkill(write_skill(tmp_path, "units"))
    assert skill.max_resource_bytes == 1024 * 1024
    with pytest.raises(ValueError, match="max_resource_bytes"):
        FileSkill(tmp_path / "units", max_resource_bytes=0)


# endregion

# region one broken skill among good ones


def test_a_symbolic_link_loop_in_a_skill_is_left_out_and_every_skill_loads(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(tmp_path, "good")
    looped = write_skill(tmp_path, "looped", files={"references/ok.md": "ok"})
    (looped / "references/loop").symlink_to("loop")
    with caplog.at_level("WARNING", logger="agentry.skills"):
        provider = SkillsProvider(tmp_path)
    assert sorted(provider.skills) == ["good", "looped"]
    assert [r.name for r in provider.skills["looped"].resources] == ["references/ok.md"]
    assert "references/loop" in caplog.text
    assert "it is a symbolic link" in caplog.text


def test_a_skill_with_deeply_nested_frontmatter_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(tmp_path, "good")
    write_skill(
        tmp_path, "deep", header="name: deep\ndescription: " + "[" * 5000 + "]" * 5000 + "\n"
    )
    with caplog.at_level("WARNING", logger="agentry.skills"):
        provider = SkillsProvider(tmp_path)
    assert sorted(provider.skills) == ["good"]
    assert str(tmp_path / "deep" / "SKILL.md") in caplog.text
    assert "nested too deeply" in caplog.text


def test_a_skill_md_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    directory = write_skill(tmp_path, "odd")
    (directory / "SKILL.md").unlink()
    os.mkfifo(directory / "SKILL.md")
    with pytest.raises(SkillError, match="is not a regular file"):
        FileSkill(directory)


# endregion
