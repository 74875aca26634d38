"""`MemoryContextProvider`: facts the model chooses to remember, kept per session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, cast

from agentry.errors import SessionError
from agentry.middleware import FunctionInvocationContext
from agentry.sessions import ContextProvider
from agentry.tools import FunctionTool

if TYPE_CHECKING:
    from agentry.protocols import SupportsAgentRun
    from agentry.sessions import AgentSession, SessionContext

__all__ = ["MemoryContextProvider"]

INSTRUCTIONS = """\
You have a memory for this conversation. When the user tells you something worth keeping \
(a name, a preference, a decision), save it with memory_remember; drop what is no longer \
true with memory_forget. Do not save secrets."""


class MemoryContextProvider(ContextProvider):
    """Gives the model a memory of its own for each session, with tools to change it.

    Before each run it adds instructions and the session's memories, numbered, and offers
    `memory_remember(text)` and `memory_forget(number)`. Memories live in the session's
    state (plain JSON), so they travel with `session.to_dict()` and a history store, and
    no session sees another's: the contrast to `FileAccessProvider`, whose store every
    session and agent shares. A full memory or an over-long text is refused with an error
    the model can act on; nothing is dropped silently.

    Args:
        max_memories: The most memories a session keeps.
        max_chars: The longest memory, in characters.
        instructions: Replace the default instructions.
        source_id: The provider's id in sessions (its slot in session state).

    Example:
        >>> from agentry import Agent, AgentSession
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> agent = Agent(
        ...     client=ScriptedChatClient(["Noted."]),
        ...     context_providers=[MemoryContextProvider()],
        ... )
    """

    DEFAULT_SOURCE_ID = "memory"

    def __init__(
        self,
        *,
        max_memories: int = 100,
        max_chars: int = 500,
        instructions: str | None = None,
        source_id: str | None = None,
    ) -> None:
        if max_memories < 1:
            raise ValueError(f"max_memories must be at least 1, not {max_memories}")
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, not {max_chars}")
        super().__init__(source_id or self.DEFAULT_SOURCE_ID)
        self.max_memories = max_memories
        self.max_chars = max_chars
        self.instructions = instructions or INSTRUCTIONS
        self.tools: list[FunctionTool] = [
            FunctionTool(func=self.remember, name="memory_remember"),
            FunctionTool(func=self.forget, name="memory_forget"),
        ]

    def memories(self, session: AgentSession) -> list[str]:
        """The memories `session` holds, oldest first."""
        return list(self._memories_of(session.state.get(self.source_id, {})))

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, object],
    ) -> None:
        memories = self._memories_of(state)
        listed = "\n".join(f"{n}. {text}" for n, text in enumerate(memories, 1))
        remembered = f"What you remember:\n{listed}" if memories else "You remember nothing yet."
        context.extend_instructions(self.source_id, f"{self.instructions}\n{remembered}")
        context.extend_tools(self.source_id, self.tools)

    def remember(
        self,
        text: Annotated[str, "The fact to remember, in one short sentence."],
        context: FunctionInvocationContext,
    ) -> str:
        """Remember a fact for the rest of this conversation."""
        memories = self._session_memories(context)
        text = text.strip()
        if not text:
            return "Error: there is nothing to remember in an empty text."
        if len(text) > self.max_chars:
            return f"Error: a memory holds at most {self.max_chars} characters; shorten it."
        if text in memories:
            return f"Already remembered as number {memories.index(text) + 1}."
        if len(memories) >= self.max_memories:
            return (
                f"Error: the memory is full ({self.max_memories} memories); "
                "forget one with memory_forget first."
            )
        memories.append(text)
        return f"Remembered as number {len(memories)}."

    def forget(
        self,
        number: Annotated[int, "The number of the memory to forget, as listed."],
        context: FunctionInvocationContext,
    ) -> str:
        """Forget a memory that is no longer true or useful."""
        memories = self._session_memories(context)
        if not 1 <= number <= len(memories):
            held = f"1 to {len(memories)}" if memories else "none: the memory is empty"
            return f"Error: there is no memory number {number} (numbers: {held})."
        forgotten = memories.pop(number - 1)
        return f"Forgot: {forgotten}"

    def _session_memories(self, context: FunctionInvocationContext) -> list[str]:
        if context.session is None:
            raise RuntimeError("memory tools run only inside an agent run with a session")
        state = context.session.state.setdefault(self.source_id, {})
        return self._memories_of(state)

    @staticmethod
    def _memories_of(state: dict[str, object]) -> list[str]:
        memories: object = state.setdefault("memories", [])
        if not isinstance(memories, list) or not all(
            isinstance(m, str) for m in cast("list[object]", memories)
        ):
            raise SessionError(
                "the session's memory state is not a list of texts; it was changed outside "
                "MemoryContextProvider"
            )
        return cast("list[str]", memories)
