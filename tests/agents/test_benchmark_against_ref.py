"""`benchmarks.against_ref` times the core scenarios on this checkout and on another
commit (its figures are not asserted: timings belong to benchmarks)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from benchmarks import against_ref

ROOT = Path(__file__).resolve().parents[2]


def test_both_checkouts_are_timed_and_the_temporary_worktree_is_removed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def worktrees() -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "list"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    assert "agentry-ref-" not in worktrees()
    against_ref.main(["HEAD", "--turns", "1", "--rounds", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "== core scenarios: this checkout against HEAD (best of 1 turns) =="
    names = [line[:34].strip() for line in lines[1:]]
    assert names == ["run without tools", "run with one tool round trip", "100-chunk stream"]
    for line in lines[1:]:
        assert re.search(r"this +\d+\.\d us +HEAD +\d+\.\d us +this / HEAD +\d+\.\d\d$", line)
    assert "agentry-ref-" not in worktrees()
