"""Checks of a clarifying question against the request and the tools on offer.

A small model asks for what it was already given ("Schedule a team lunch on 2026-12-02."
answered with "Which date?"), and asks the user for a value that another tool can look up
("What is Tom's email address?" with an address book on offer). The client turns the first
into a move that uses the given value, and the second into a call of the look-up tool.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from agentry.local._decision import ToolSpec, argument_words
from agentry.local._facts import content_words

__all__ = ["AskedArgument", "address_form", "asked_argument", "given_value", "lookup_tool"]


@dataclass(frozen=True)
class AskedArgument:
    """A tool's argument that a question asks the user for, or that a call made up."""

    tool: ToolSpec
    name: str

    @property
    def schema(self) -> dict[str, object]:
        """The argument's JSON schema."""
        schema = self.tool.properties.get(self.name)
        return cast("dict[str, object]", schema) if isinstance(schema, dict) else {}

    @property
    def words(self) -> set[str]:
        """The words of the argument's name and description."""
        return argument_words(self.name, self.schema)

    @property
    def described(self) -> str:
        """The argument as a prompt names it: "the to (The recipient's email address)"."""
        return self.tool.describe(self.name)


def asked_argument(question: str, tools: Sequence[ToolSpec]) -> AskedArgument | None:
    """The argument whose name and description share the most words with `question`."""
    asked = content_words(question)
    best: AskedArgument | None = None
    best_shared = 0
    for spec in tools:
        for name, schema in spec.properties.items():
            shared = len(asked & argument_words(name, schema))
            if shared > best_shared:
                best, best_shared = AskedArgument(spec, name), shared
    return best


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|"
    rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}\b|\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})? ?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_LINK = re.compile(r"https?://\S+")

# The kinds of value that can be told in a text by their form, and the words (or JSON schema
# formats) by which an argument says it takes one.
_KINDS: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = (
    (frozenset({"date", "day", "date-time"}), _DATE),
    (frozenset({"time"}), _TIME),
    (frozenset({"email"}), _EMAIL),
    (frozenset({"url", "link", "uri", "website"}), _LINK),
)


def address_form(asked: AskedArgument) -> re.Pattern[str] | None:
    """The form every value of `asked` must have, when it takes an email address or a link."""
    format_word = str(asked.schema.get("format") or "")
    for words, pattern in _KINDS:
        if pattern in (_EMAIL, _LINK) and (asked.words & words or format_word in words):
            return pattern
    return None


def given_value(asked: AskedArgument, request: str) -> str | None:
    """The value of `asked`'s kind (a date, a time, an email address, a link) that `request`
    holds, if the argument takes such a value and the request gives one."""
    format_word = str(asked.schema.get("format") or "")
    for words, pattern in _KINDS:
        if asked.words & words or format_word in words:
            found = pattern.search(request)
            if found:
                return found.group(0)
    return None


def lookup_tool(
    asked: AskedArgument, mention: str, request: str, tools: Sequence[ToolSpec]
) -> ToolSpec | None:
    """Another tool that can find `asked` for something the request names.

    `mention` (a question for the value, or a value made up for it) must speak of something
    the request names that no tool does (a person, a place: "Tom" in "Send Tom an email ..."
    and "What is Tom's email address?"), and the tool's description must mention the argument
    ("Look up a person: their email address and home city" for "the recipient's email
    address"). A mention of nothing named ("Who should I send it to?") has no look-up.
    """
    named = _named_words(request) & content_words(mention)
    tool_words = set[str]().union(*(spec.words for spec in tools))
    if not named - tool_words:
        return None
    best: ToolSpec | None = None
    best_shared = 0
    for spec in tools:
        if spec.name == asked.tool.name:
            continue
        shared = len(asked.words & content_words(spec.description))
        if shared > best_shared:
            best, best_shared = spec, shared
    return best


_CAPITALISED = re.compile(r"(?<=[\s(\"'])[A-Z][\w-]*")


def _named_words(text: str) -> set[str]:
    """Capitalised words but the first, as names of people, places and things are written."""
    return content_words(" ".join(_CAPITALISED.findall(text)))
