"""The file-access example searches, reads and saves real files."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_file_access_example() -> None:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "file_access.py")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "Your shopping list is in shopping.md.",
        "['recipes/bread.md', 'shopping.md']",
        "- flour",
        "- salt",
        "- yeast",
    ]
