"""The core scenarios on this checkout against an earlier commit, in one run.

`python -m benchmarks.against_ref REF` checks REF out into a temporary git worktree and
times the scenarios of `_core_scenarios` on both checkouts, in processes that take turns
(this, REF, this, REF, ...), so that both meet the same load; it prints the best time per
run of each and their ratio. Run it on a quiet machine: a busy one slows both, but not
always alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["main"]

_ROOT = Path(__file__).resolve().parent.parent


def _time_checkout(src: Path, rounds: int) -> dict[str, float]:
    """The scenarios' times with the `agentry` of `src` (this checkout's benchmarks)."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join((str(src), str(_ROOT)))}
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks._core_scenarios", str(rounds)],
        cwd=_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def _compare(this_src: Path, ref_src: Path, ref: str, *, turns: int, rounds: int) -> None:
    best: dict[str, dict[str, float]] = {"this": {}, ref: {}}
    for _ in range(turns):
        for side, src in (("this", this_src), (ref, ref_src)):
            for name, seconds in _time_checkout(src, rounds).items():
                best[side][name] = min(best[side].get(name, float("inf")), seconds)
    print(f"== core scenarios: this checkout against {ref} (best of {turns} turns) ==")
    for name, now in best["this"].items():
        then = best[ref][name]
        print(
            f"{name:<34} this {now * 1e6:8.1f} us   {ref} {then * 1e6:8.1f} us   "
            f"this / {ref} {now / then:5.2f}"
        )


def main(argv: list[str] | None = None) -> None:
    """Time this checkout's core scenarios against those of the commit given."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.against_ref")
    parser.add_argument("ref", help="the commit (or branch, or tag) to compare with")
    parser.add_argument("--turns", type=int, default=4, help="processes per checkout")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per process")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentry-ref-") as parent:
        tree = Path(parent) / "tree"
        subprocess.run(
            ["git", "-C", str(_ROOT), "worktree", "add", "--detach", str(tree), arguments.ref],
            check=True,
            capture_output=True,
        )
        try:
            _compare(
                _ROOT / "src",
                tree / "src",
                arguments.ref,
                turns=arguments.turns,
                rounds=arguments.rounds,
            )
        finally:
            subprocess.run(
                ["git", "-C", str(_ROOT), "worktree", "remove", "--force", str(tree)],
                check=True,
                capture_output=True,
            )


if __name__ == "__main__":
    main()
