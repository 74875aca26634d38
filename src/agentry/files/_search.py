"""Search results, and the text matching both stores share."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentry.files._errors import FileAccessError

__all__ = ["FileSearchMatch", "FileSearchResult", "TextQuery"]


@dataclass(frozen=True)
class FileSearchMatch:
    """A matching line.

    Attributes:
        line_number: The line's number, counting from 1.
        line: The line's text.
    """

    line_number: int
    line: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"line_number": self.line_number, "line": self.line}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FileSearchMatch:
        """The match a `to_dict` result describes."""
        return cls(line_number=int(data["line_number"]), line=str(data["line"]))


@dataclass(frozen=True)
class FileSearchResult:
    """The matches in one file.

    Attributes:
        file_name: The file's path in the store.
        snippet: The first match with a line of context on each side.
        matches: Every matching line, in order.
    """

    file_name: str
    snippet: str
    matches: list[FileSearchMatch] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "file_name": self.file_name,
            "snippet": self.snippet,
            "matches": [m.to_dict() for m in self.matches],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FileSearchResult:
        """The result a `to_dict` result describes."""
        return cls(
            file_name=str(data["file_name"]),
            snippet=str(data["snippet"]),
            matches=[FileSearchMatch.from_dict(m) for m in data.get("matches", [])],
        )


class TextQuery:
    """What to look for: text (or a regular expression) in files whose names fit a glob.

    Raises:
        FileAccessError: The regular expression is invalid.
    """

    def __init__(
        self, pattern: str, *, regex: bool, case_sensitive: bool, glob: str | None
    ) -> None:
        flags = 0 if case_sensitive else re.IGNORECASE
        try:
            self._pattern = re.compile(pattern if regex else re.escape(pattern), flags)
        except re.error as error:
            raise FileAccessError(f"invalid regular expression {pattern!r}: {error}") from None
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
            if self._pattern.search(line)
        ]
        if not matches:
            return None
        first = matches[0].line_number - 1
        snippet = "\n".join(lines[max(0, first - 1) : first + 2])
        return FileSearchResult(file_name=path, snippet=snippet, matches=matches)
