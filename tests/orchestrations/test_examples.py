"""The orchestration examples run as scripts and print what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "orchestrations"


def _run(name: str, **extra_env: str) -> list[str]:
    env = {
        **os.environ,
        **extra_env,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip().splitlines()


def test_sequential() -> None:
    assert _run("sequential.py") == [
        "writer: Fresh bread, every single morning.",
        "editor: Fresh bread every morning.",
        "translator: Du pain frais chaque matin.",
        "",
        "final: Du pain frais chaque matin.",
    ]


def test_concurrent_votes() -> None:
    lines = _run("concurrent_votes.py")
    assert lines[:4] == [
        "finance: Yes, the margins work.",
        "legal: No, the contract is unclear.",
        "product: Yes, users asked for it.",
        "2 of 3 say yes",
    ]
    # The timing line is printed, not asserted: the tests prove concurrency without clocks.
    assert lines[4].startswith("three 0.3 s reviews ran ")


def test_group_chat() -> None:
    assert _run("group_chat.py") == [
        "writer: Buy our shoes.",
        "reviewer: Too plain; say what the shoes do.",
        "writer: Walk further in our shoes.",
        "reviewer: APPROVED.",
        "(stopped: the keyword 'APPROVED' was said)",
    ]


def test_magentic() -> None:
    assert _run("magentic.py") == [
        "plan for review: ['searcher finds the menu']",
        "-> searcher: Find the café's menu online.",
        "(no progress)",
        "re-plan: ['analyst estimates from reviews']",
        "-> analyst: Estimate a coffee's price from the reviews.",
        "(task done)",
        "answer: A coffee there costs about 3 euros (estimated from reviews; the website was "
        "down).",
    ]


def test_handoff() -> None:
    assert _run("handoff.py") == [
        "[triage hands over to billing]",
        "billing: Which order is it?",
        "user: Order 42.",
        "billing: Order 42 is refunded.",
        "user: Thanks, bye!",
        "[stopped: the keyword 'bye' was said]",
    ]


def test_local_team_on_the_scripted_model() -> None:
    # With the local model installed the same script runs every agent on it (make demo);
    # here the scripted model plays, so the transcript is known.
    assert _run("local_team.py", AGENTRY_SCRIPTED="1") == [
        "model: scripted",
        "== sequential",
        "writer: Green tea is brewed from unoxidized leaves.",
        "editor: Green tea: unoxidized leaves.",
        "== concurrent",
        "upside: Walking lifts your mood.",
        "downside: Walking in traffic is risky.",
        "== group chat",
        "poet: Rain on the roof, sleep without proof.",
        "critic: Make the rhyme gentler.",
        "poet: Rain on the roof, soft and aloof.",
        "== handoff [('triage', 'math')]",
        "math: 12 times 7 is 84.",
        "== magentic",
        "manager: Three weeks have 21 days.",
    ]
