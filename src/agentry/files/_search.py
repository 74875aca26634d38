"""Search results, and the text matching both stores share."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from agentry.files._errors import FileAccessError
from agentry.serialization import SerializationMixin

__all__ = ["FileSearchMatch", "FileSearchResult", "TextQuery"]


@dataclass(frozen=True)
class FileSearchMatch(SerializationMixin):
    """A matching line (to and from dicts and JSON through `SerializationMixin`).

    Attributes:
        line_number: The line's number, counting from 1.
        line: The line's text.
    """

    line_number: int
    line: str


@dataclass(frozen=True)
class FileSearchResult(SerializationMixin):
    """The matches in one file (to and from dicts and JSON through `SerializationMixin`).

    Attributes:
        file_name: The file's path in the store.
        snippet: The first match with a line of context on each side.
        matches: Every matching line, in order.
    """

    file_name: str
    snippet: str
    matches: list[FileSearchMatch] = field(default_factory=list)


class TextQuery:
    """What to look for: text (or a regular expression) in files whose names fit a glob.

    Regular expressions use RE2 syntax and run in time linear in the text, whatever the
    pattern: no pattern can make a search backtrack for ever. RE2 has no backreferences
    (`\\1`) and no look-around (`(?=...)`, `(?<=...)`); such a pattern is refused with a
    `FileAccessError` saying so.

    Raises:
        FileAccessError: The regular expression is invalid or uses what RE2 does not have.
    """

    def __init__(
        self, pattern: str, *, regex: bool, case_sensitive: bool, glob: str | None
    ) -> None:
        self._pattern = _compile(pattern, regex=regex, case_sensitive=case_sensitive)
        self._glob = glob

    def wants(self, path: str) -> bool:
        """Whether a file's path fits the glob (matched against the path and its name)."""
        if not self._glob:
            return True
        name = path.rsplit("/", 1)[-1]
        return fnmatch.fnmatchcase(path, self._glob) or fnmatch.fnmatchcase(name, self._glob)

    def search(self, path: str, text: str) -> FileSearchResult | None:
        """The matches in one file's text, or None."""
        lines = text.splitlines()
        matches = [
            FileSearchMatch(number, line)
            for number, line in enumerate(lines, start=1)
            if self._pattern.search(line) is not None
        ]
        if not matches:
            return None
        first = matches[0].line_number - 1
        snippet = "\n".join(lines[max(0, first - 1) : first + 2])
        return FileSearchResult(file_name=path, snippet=snippet, matches=matches)


class _Pattern(Protocol):
    def search(self, text: str) -> object | None: ...


def _compile(pattern: str, *, regex: bool, case_sensitive: bool) -> _Pattern:
    import re2  # a compiled extension: loaded only when something is searched

    engine: Any = re2  # the bindings carry no types
    options = engine.Options()
    options.log_errors = False
    options.literal = not regex
    options.case_sensitive = case_sensitive
    try:
        return cast("_Pattern", engine.compile(pattern, options))
    except UnicodeEncodeError:
        raise FileAccessError(
            f"the pattern {pattern!r} holds a lone surrogate, which is not text; remove it"
        ) from None
    except engine.error as error:
        reason: object = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", errors="replace")
        raise FileAccessError(
            f"invalid regular expression {pattern!r}: {reason}. Patterns use RE2 syntax, which "
            "has no backreferences (\\1) and no look-around ((?=...), (?!...), (?<=...)); "
            "rewrite the pattern without them, or search for plain text with regex=False"
        ) from None
