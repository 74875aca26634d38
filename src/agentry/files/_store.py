"""`AgentFileStore`: the storage behind the file-access tools."""

from __future__ import annotations

from abc import ABC, abstractmethod

from agentry.files._errors import FileAccessError
from agentry.files._search import FileSearchResult

__all__ = ["AgentFileStore", "encode_content"]


class AgentFileStore(ABC):
    """Files an agent may read and write, addressed by forward-slash relative paths.

    Paths are relative to the store (`notes/today.md`); absolute paths, `..` and other
    ways out are refused with `PathEscapeError`. Contents are text (UTF-8 on disk).
    """

    @abstractmethod
    async def write_file(self, path: str, content: str) -> None:
        """Create or replace a file (making its folders)."""

    @abstractmethod
    async def read_file(self, path: str) -> str:
        """A file's text.

        Raises:
            FileAccessError: There is no such file.
        """

    @abstractmethod
    async def delete_file(self, path: str) -> bool:
        """Delete a file; whether it existed."""

    @abstractmethod
    async def list_files(self, directory: str = "", *, recursive: bool = False) -> list[str]:
        """The paths of the files in `directory` (and below it, if `recursive`), sorted."""

    @abstractmethod
    async def file_exists(self, path: str) -> bool:
        """Whether `path` is a file."""

    @abstractmethod
    async def search_files(
        self,
        pattern: str,
        *,
        directory: str = "",
        glob: str | None = None,
        regex: bool = False,
        case_sensitive: bool = False,
        max_results: int = 50,
    ) -> list[FileSearchResult]:
        """Files under `directory` whose lines contain `pattern`, with the matching lines.

        Args:
            pattern: Text to find (or a regular expression, with `regex=True`).
            directory: Where to look (recursively).
            glob: Only files whose path or name fits this glob (`*.md`).
            regex: Read `pattern` as a regular expression.
            case_sensitive: Match case.
            max_results: The most files to return.
        """

    @abstractmethod
    async def create_directory(self, path: str) -> None:
        """Create a folder (and its parents); nothing happens if it exists."""


def encode_content(path: str, content: str) -> bytes:
    """`content` as UTF-8, or a `FileAccessError` naming a character no text file can hold.

    Args:
        path: The file's path, for the message.
        content: The text to store.
    """
    text = str(content)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise FileAccessError(
            f"the content for {path!r} holds a lone surrogate ({text[error.start]!r} at "
            f"character {error.start}), which is not text a file can hold; remove it"
        ) from None
