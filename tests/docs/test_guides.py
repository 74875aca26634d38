"""Every complete ```python block of the guides (docs/*.md and README.md) runs as written.

A block is complete unless the line right before its opening fence is the marker
`<!-- fragment -->` (or `<!-- fragment: why -->`), an HTML comment that rendered Markdown
does not show. Mark a block as a fragment only when it cannot run on its own: it continues
an earlier block, needs a network service or an API key, or serves forever. Complete blocks
that need a model use the scripted client (`agentry.clients.scripted`).

Each complete block runs in a fresh `__main__` namespace, with top-level `await` allowed
(it then runs under `asyncio.run`), in the order of the guide. The blocks of one guide share
one child process, whose working directory is a copy of `examples/`, so the files the
guides refer to (`mcp/weather_server.py`, `skills/...`) are where they say and whatever a
block writes stays out of the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.guide_blocks import GUIDES, ROOT, python_blocks, stray_markers
from tests.docs.run_blocks import run_block

RUNNER = Path(__file__).with_name("run_blocks.py")


GUIDES_WITH_CODE = [g for g in GUIDES if any(not b.fragment for b in python_blocks(g))]


@pytest.mark.parametrize("guide", GUIDES_WITH_CODE, ids=lambda path: path.name)
def test_the_complete_blocks_of_a_guide_run(guide: Path, tmp_path: Path) -> None:
    blocks = [b for b in python_blocks(guide) if not b.fragment]
    workdir = tmp_path / "work"
    shutil.copytree(ROOT / "examples", workdir, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    blocks_file, results_file = tmp_path / "blocks.json", tmp_path / "results.json"
    blocks_file.write_text(json.dumps([{"where": b.where, "source": b.source} for b in blocks]))
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI_", "OTEL_", "AGENTRY_"))
    }
    environment["PYTHONPATH"] = str(ROOT / "src")
    environment["AGENTRY_CACHE_DIR"] = str(tmp_path / "cache")
    completed = subprocess.run(
        [sys.executable, str(RUNNER), str(blocks_file), str(results_file)],
        cwd=workdir,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    results = json.loads(results_file.read_text())
    assert [r["where"] for r in results] == [b.where for b in blocks]
    failures = [f"{r['where']}\n{r['error']}" for r in results if r["error"]]
    assert not failures, "\n".join(failures)


def test_every_guide_has_blocks_and_markers_only_mark_python_blocks() -> None:
    for guide in GUIDES:
        assert stray_markers(guide) == [], f"{guide.name}: a fragment marker not before ```python"
    complete = [b for guide in GUIDES for b in python_blocks(guide) if not b.fragment]
    assert len(complete) >= 30


def test_a_block_runs_as_a_script_would_with_top_level_await_allowed() -> None:
    awaited = "import asyncio\nawait asyncio.sleep(0)\nassert __name__ == '__main__'\n"
    assert run_block("awaits", awaited) is None
    undefined_annotation = "def f(x: Missing) -> None: ...\n"
    assert "NameError: name 'Missing'" in (run_block("annotation", undefined_annotation) or "")
    assert "SystemExit" in (run_block("exits", "raise SystemExit(3)\n") or "")
