"""The parts of a JSON move that are certain, written for the model rather than by it.

Every move starts with `{"action": "`; once the model has named its action, the key that
follows is fixed (`"text"` after "answer", `"question"` after "ask", `"arguments"` after a
tool); once an answer's or a question's text is closed, only `}` can follow. On a CPU each
token the model writes costs a full decoding step, while text given to it is evaluated in
one batch, as the prompt is: so these parts are given. They are the text the model writes
itself in the examples it is shown, split into the same tokens.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from agentry.local._prompt import PromptMode

__all__ = ["MOVE_START", "move_continuation"]

MOVE_START = '{"action": "'
"""How every move begins."""


def move_continuation(mode: PromptMode) -> Callable[[str], str]:
    """For a move being written under `mode`: the text that must come next after `output`
    ("" when the model has a choice to make)."""
    string_answer = mode.answer_schema is None
    follows = {spec.name: '"arguments":' for spec in mode.tools}
    follows["answer"] = '"text": "' if string_answer else '"text":'
    follows["ask"] = '"question": "'
    closes_with_text = {"ask", "answer"} if string_answer else {"ask"}

    def continuation(output: str) -> str:
        if not output.startswith(MOVE_START):
            return ""
        name, quote, tail = output[len(MOVE_START) :].partition('"')
        if not quote or name not in follows:
            return ""
        if tail in ("", ","):
            return ("" if tail else ",") + " " + follows[name]
        if name in closes_with_text and output.endswith('"') and _closes(output + "}"):
            return "}"
        return ""

    return continuation


def _closes(text: str) -> bool:
    """Whether `text` is a whole JSON object."""
    try:
        json.loads(text, strict=False)
    except json.JSONDecodeError:
        return False
    return True
