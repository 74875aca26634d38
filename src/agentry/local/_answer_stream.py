"""Streaming the answer out of a JSON move while the model is still writing it.

When tools are on offer the model answers through a JSON move; the user should see the
answer's words as they come, not the JSON around them. A question is short and may still be
refused (when it only repeats the request), so it is not streamed. The extractor follows
the growing output and hands out the decoded answer text as far as it is certain. An answer
that only says the request back is refused too, so the text is held back until it has a word
the request does not.
"""

from __future__ import annotations

import json
import re

__all__ = ["AnswerTextExtractor"]

_WORD = re.compile(r"\w+")
_COMPLETE_WORD = re.compile(r"\w+(?=\W)")
_ANSWER_START = re.compile(r'\s*\{\s*"action"\s*:\s*"answer"\s*,\s*"text"\s*:\s*"')
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}


class AnswerTextExtractor:
    """Feed it the model's output piece by piece; it returns the new answer text each time.

    Only a string answer is streamed; a question, a tool call or a structured answer yields
    nothing here and is read from the whole output at the end.

    Example:
        >>> extractor = AnswerTextExtractor()
        >>> start = '{"action": "answer", "text": "Hel'
        >>> extractor.feed(start), extractor.feed('lo\\\\n"}')
        ('Hel', 'lo\\n')
    """

    def __init__(self, request: str = "") -> None:
        self._output = ""
        self._start: int | None = None
        self._position = 0
        self._finished = False
        self._request_words = set(_WORD.findall(request.lower()))
        self._held = ""
        self._holding = bool(self._request_words)
        self.streamed = ""
        """The answer text handed out so far."""

    def feed(self, piece: str) -> str:
        """Add `piece` of output; return the answer text that became certain."""
        self._output += piece
        if self._finished:
            return ""
        if self._start is None:
            match = _ANSWER_START.match(self._output)
            if match is None:
                return ""
            self._start = self._position = match.end()
        text, self._position, self._finished = _decode(self._output, self._position)
        if self._holding:
            # An answer that only says the request back is refused, so it is held back
            # until a word of its own shows it is not that.
            self._held += text
            pattern = _WORD if self._finished else _COMPLETE_WORD
            if not set(pattern.findall(self._held.lower())) - self._request_words:
                return ""
            text, self._held, self._holding = self._held, "", False
        self.streamed += text
        return text


def _decode(output: str, position: int) -> tuple[str, int, bool]:
    """Decode a JSON string body from `position`: (text, next position, whether it ended)."""
    pieces: list[str] = []
    index = position
    while index < len(output):
        char = output[index]
        if char == '"':
            return "".join(pieces), index + 1, True
        if char != "\\":
            pieces.append(char)
            index += 1
            continue
        if index + 1 >= len(output):
            break  # the escape is not complete yet
        code = output[index + 1]
        if code in _SIMPLE_ESCAPES:
            pieces.append(_SIMPLE_ESCAPES[code])
            index += 2
            continue
        if code != "u":
            pieces.append(code)
            index += 2
            continue
        decoded, used = _unicode_escape(output, index)
        if used == 0:
            break
        pieces.append(decoded)
        index += used
    return "".join(pieces), index, False


def _unicode_escape(output: str, index: int) -> tuple[str, int]:
    """A `\\uXXXX` escape (with its surrogate pair) at `index`: (text, characters used)."""
    if index + 6 > len(output):
        return "", 0
    high = output[index : index + 6]
    if not 0xD800 <= int(high[2:], 16) <= 0xDBFF:
        return json.loads(f'"{high}"'), 6
    if index + 12 > len(output):
        return "", 0
    pair = output[index : index + 12]
    return json.loads(f'"{pair}"'), 12
