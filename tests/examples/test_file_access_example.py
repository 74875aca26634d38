"""The file-access example searches, reads and saves real files."""

from .running import run_example


def test_file_access_example() -> None:
    completed = run_example("file_access.py")
    assert completed.stdout.splitlines() == [
        "Your shopping list is in shopping.md.",
        "['recipes/bread.md', 'shopping.md']",
        "- flour",
        "- salt",
        "- yeast",
    ]
