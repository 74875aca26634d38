"""The Python code blocks of the guides, and which of them are fragments.

A block is a fragment when the line right before its opening fence is the HTML comment
`<!-- fragment -->` (invisible when the Markdown is rendered), optionally with a reason:
`<!-- fragment: needs an OpenAI API key -->`. Every other block is complete: it runs as
written, on its own, in a fresh namespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]

FRAGMENT_MARKER = re.compile(r"^<!-- fragment(: [^>]*)? -->$")
_FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced ```python block of a guide."""

    guide: str
    line: int
    source: str
    fragment: bool

    @property
    def where(self) -> str:
        return f"{self.guide}:{self.line}"


def python_blocks(path: Path) -> list[Block]:
    """The ```python blocks of `path`, in order, each with the line its code starts on."""
    lines = path.read_text(encoding="utf-8").splitlines()
    name = str(path.relative_to(ROOT))
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if opening.group(1) == "python":
            fragment = index > 0 and FRAGMENT_MARKER.match(lines[index - 1]) is not None
            source = "\n".join(lines[index + 1 : end]) + "\n"
            blocks.append(Block(name, index + 2, source, fragment))
        index = end + 1
    return blocks


def stray_markers(path: Path) -> list[int]:
    """Lines with a fragment marker that is not right before a ```python fence."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        number
        for number, line in enumerate(lines, start=1)
        if FRAGMENT_MARKER.match(line)
        and (number >= len(lines) or lines[number].strip() != "```python")
    ]
