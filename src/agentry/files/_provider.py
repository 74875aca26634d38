"""`FileAccessProvider`: file tools over a shared store, for any agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from agentry.files._errors import FileAccessError
from agentry.files._store import AgentFileStore
from agentry.sessions import ContextProvider
from agentry.tools import FunctionTool

if TYPE_CHECKING:
    from agentry.protocols import SupportsAgentRun
    from agentry.sessions import AgentSession, SessionContext

__all__ = ["FileAccessProvider"]

INSTRUCTIONS = """\
You can keep files in a shared file store with the file_access_* tools. Paths are \
relative, with forward slashes (notes/plan.md). List or search before you read, save \
work you want to keep, and do not invent file contents: read them."""

READ_ONLY_INSTRUCTIONS = """\
You can read files in a shared file store with the file_access_* tools. Paths are \
relative, with forward slashes (notes/plan.md). List or search before you read, and do \
not invent file contents: read them."""


class FileAccessProvider(ContextProvider):
    """Adds file tools and instructions for using them to every run.

    The tools are `file_access_save_file`, `file_access_read_file`,
    `file_access_delete_file`, `file_access_list_files` and `file_access_search_files`.
    The store is shared: every session and agent using this provider sees the same files
    (unlike history, which is per session). A refused path or a missing file comes back to
    the model as an error text it can act on.

    Args:
        store: Where the files live.
        read_only: Offer only the listing, reading and searching tools.
        require_approval: Saving and deleting wait for a person's approval.
        instructions: Replace the default instructions.
        source_id: The provider's id in sessions.

    Example:
        >>> from agentry.files import InMemoryAgentFileStore
        >>> provider = FileAccessProvider(InMemoryAgentFileStore())
        >>> [tool.name for tool in provider.tools][:2]
        ['file_access_save_file', 'file_access_read_file']
    """

    DEFAULT_SOURCE_ID = "file_access"

    def __init__(
        self,
        store: AgentFileStore,
        *,
        read_only: bool = False,
        require_approval: bool = False,
        instructions: str | None = None,
        source_id: str | None = None,
    ) -> None:
        super().__init__(source_id or self.DEFAULT_SOURCE_ID)
        self.store = store
        self.read_only = read_only
        self.instructions = instructions or (READ_ONLY_INSTRUCTIONS if read_only else INSTRUCTIONS)
        changes = "always_require" if require_approval else "never_require"
        tools = [
            FunctionTool(func=self.save_file, name="file_access_save_file", approval_mode=changes),
            FunctionTool(func=self.read_file, name="file_access_read_file"),
            FunctionTool(
                func=self.delete_file, name="file_access_delete_file", approval_mode=changes
            ),
            FunctionTool(func=self.list_files, name="file_access_list_files"),
            FunctionTool(func=self.search_files, name="file_access_search_files"),
        ]
        writes = {"file_access_save_file", "file_access_delete_file"}
        self.tools: list[FunctionTool] = [t for t in tools if not (read_only and t.name in writes)]

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, object],
    ) -> None:
        context.extend_instructions(self.source_id, self.instructions)
        context.extend_tools(self.source_id, self.tools)

    # region tools

    async def save_file(
        self,
        path: Annotated[str, "The file's path, relative, with forward slashes."],
        content: Annotated[str, "The whole new content of the file."],
    ) -> str:
        """Save a file (replacing it if it exists)."""
        try:
            await self.store.write_file(path, content)
        except FileAccessError as error:
            return f"Error: {error}"
        return f"Saved {path} ({len(content)} characters)."

    async def read_file(
        self, path: Annotated[str, "The file's path, relative, with forward slashes."]
    ) -> str:
        """Read a file."""
        try:
            return await self.store.read_file(path)
        except FileAccessError as error:
            return f"Error: {error}"

    async def delete_file(
        self, path: Annotated[str, "The file's path, relative, with forward slashes."]
    ) -> str:
        """Delete a file."""
        try:
            deleted = await self.store.delete_file(path)
        except FileAccessError as error:
            return f"Error: {error}"
        return f"Deleted {path}." if deleted else f"There was no file {path}."

    async def list_files(
        self,
        directory: Annotated[str, "The folder to list; empty for the top folder."] = "",
    ) -> str:
        """List the files in a folder and the folders below it."""
        try:
            files = await self.store.list_files(directory, recursive=True)
        except FileAccessError as error:
            return f"Error: {error}"
        return "\n".join(files) if files else "No files."

    async def search_files(
        self,
        pattern: Annotated[str, "The text to find (or a regular expression)."],
        directory: Annotated[str, "Where to look; empty for everywhere."] = "",
        glob: Annotated[str | None, "Only files whose name fits this, like *.md."] = None,
        regex: Annotated[bool, "Read the pattern as a regular expression."] = False,
    ) -> str:
        """Find the files whose lines contain a text, with the matching lines."""
        try:
            results = await self.store.search_files(
                pattern, directory=directory, glob=glob, regex=regex
            )
        except FileAccessError as error:
            return f"Error: {error}"
        if not results:
            return "No matches."
        return "\n".join(
            f"{result.file_name}:{match.line_number}: {match.line}"
            for result in results
            for match in result.matches
        )

    # endregion
