"""The parts of a request that the calls so far leave open.

"Where does flight BA283 land, and what's the weather there?" asks two things. After the
flight's status comes back, a small model tends to answer at once; the reminder that follows
the results names the part still open and the tools it speaks of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentry.local._decision import ToolSpec
from agentry.local._facts import content_words

__all__ = ["OpenPart", "open_parts"]

_PART_BREAK = re.compile(r",?\s+and\s+|[,;]\s+|[?!.]\s+", re.IGNORECASE)


@dataclass(frozen=True)
class OpenPart:
    """A part of the request that no call has served yet, and the tools that could."""

    text: str
    tools: tuple[str, ...]


def open_parts(request: str, done: Sequence[str], tools: Sequence[ToolSpec]) -> list[OpenPart]:
    """The parts of `request` that share no word with `done` (the calls made for it, with
    their results) and share one with a tool not called yet (its name, description or
    arguments).

    Args:
        request: The user's message.
        done: One text per call made for it: the call (tool name and arguments) and its result.
        tools: The tools on offer.
    """
    parts = [part.strip(" ?!.") for part in _PART_BREAK.split(request)]
    parts = [part for part in parts if content_words(part)]
    if len(parts) < 2 or not done:
        return []
    served = content_words(" ".join(done))
    unused = [spec for spec in tools if not any(text.startswith(spec.name) for text in done)]
    found: list[OpenPart] = []
    for part in parts:
        words = content_words(part)
        if words & served:
            continue
        matching = tuple(spec.name for spec in unused if words & spec.words)
        if matching:
            found.append(OpenPart(part, matching))
    return found
