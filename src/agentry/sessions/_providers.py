"""`ContextProvider` and `HistoryProvider`: what shapes a run's context and keeps history."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, cast

from agentry.errors import HistoryStoreError, SessionError
from agentry.types import Message

if TYPE_CHECKING:
    from agentry.protocols import SupportsAgentRun
    from agentry.sessions._compaction import CompactionStrategy
    from agentry.sessions._session import AgentSession, SessionContext

__all__ = ["ContextProvider", "HistoryProvider", "InMemoryHistoryProvider"]


class ContextProvider:
    """Adds instructions, messages and tools before a run and learns from it after.

    Subclass it and override `before_run` and/or `after_run`. `state` is this provider's
    slot in the session state (JSON values, kept with the session).

    Example:
        >>> class TimeProvider(ContextProvider):
        ...     async def before_run(self, *, agent, session, context, state):
        ...         context.extend_instructions(self.source_id, "It is 9 o'clock.")
    """

    DEFAULT_SOURCE_ID: ClassVar[str | None] = None

    def __init__(self, source_id: str | None = None) -> None:
        self.source_id: str = source_id or self.DEFAULT_SOURCE_ID or type(self).__name__

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, object],
    ) -> None:
        """Called before the model sees the run's messages."""

    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, object],
    ) -> None:
        """Called after the run, with `context.response` set."""


class HistoryProvider(ContextProvider, ABC):
    """A context provider that loads a session's messages and stores the new ones.

    Args:
        source_id: Where its messages are attributed in the session context.
        load_messages: Put stored messages ahead of the input.
        store_inputs: Store the run's input messages.
        store_outputs: Store the run's response messages.
        store_context_messages: Also store messages other providers added.
        compaction: What of the conversation each model request of a session run sends
            (a :class:`CompactionStrategy`, such as `TokenBudgetCompaction(4000)`); the
            stored history keeps every message. None sends it all.
    """

    def __init__(
        self,
        source_id: str | None = None,
        *,
        load_messages: bool = True,
        store_inputs: bool = True,
        store_outputs: bool = True,
        store_context_messages: bool = False,
        compaction: CompactionStrategy | None = None,
    ) -> None:
        super().__init__(source_id)
        self.load_messages = load_messages
        self.store_inputs = store_inputs
        self.store_outputs = store_outputs
        self.store_context_messages = store_context_messages
        self.compaction = compaction

    @abstractmethod
    async def get_messages(
        self, session_id: str, *, state: dict[str, object] | None = None
    ) -> list[Message]:
        """All stored messages of a session, oldest first."""

    @abstractmethod
    async def save_messages(
        self,
        session_id: str,
        messages: Sequence[Message],
        *,
        state: dict[str, object] | None = None,
    ) -> None:
        """Append messages to a session's history."""

    async def compact(
        self, messages: Sequence[Message], *, state: dict[str, object]
    ) -> list[Message]:
        """The messages one model request sends, shaped by `compaction` (all without one).

        `state` is this provider's slot in the session state; the strategy keeps what it
        reuses (a summary) under its `"compaction"` key.
        """
        if self.compaction is None:
            return list(messages)
        slot = state.get("compaction")
        if not isinstance(slot, dict):
            slot = state["compaction"] = {}
        return await self.compaction.compact(messages, state=cast("dict[str, object]", slot))

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, object],
    ) -> None:
        if self.load_messages:
            messages = await self.get_messages(session.session_id, state=state)
            if messages:
                context.extend_messages(self.source_id, messages)

    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, object],
    ) -> None:
        to_store: list[Message] = []
        if self.store_context_messages:
            to_store.extend(
                m
                for source, items in context.context_messages.items()
                if source != self.source_id
                for m in items
            )
        if self.store_inputs:
            to_store.extend(context.input_messages)
        if self.store_outputs and context.response is not None:
            to_store.extend(context.response.messages)
        if to_store:
            await self.save_messages(session.session_id, to_store, state=state)


class InMemoryHistoryProvider(HistoryProvider):
    """Keeps history in the session's own state, so it travels with `session.to_dict()`.

    Agents use it by default when they have no other history provider.
    """

    DEFAULT_SOURCE_ID = "in_memory"

    async def get_messages(
        self, session_id: str, *, state: dict[str, object] | None = None
    ) -> list[Message]:
        if state is None:
            return []
        return list(in_memory_history(state, self.source_id))

    async def save_messages(
        self,
        session_id: str,
        messages: Sequence[Message],
        *,
        state: dict[str, object] | None = None,
    ) -> None:
        if state is None:
            return
        history = in_memory_history(state, self.source_id)
        state["messages"] = history
        history.extend(messages)


def message_json(message: Message) -> str:
    """`message` as the JSON text a history store writes.

    Raises:
        HistoryStoreError: The message holds a value JSON cannot represent.
    """
    try:
        return json.dumps(message.to_dict(), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as error:
        raise HistoryStoreError(
            f"cannot store a {message.role!r} message: it is not plain JSON ({error}); keep "
            "additional_properties to JSON values"
        ) from None


def in_memory_history(slot: object, source_id: str) -> list[Message]:
    """The message list an in-memory history keeps in its session-state slot.

    Raises:
        SessionError: The slot holds something else (a damaged or hand-edited session).
    """
    if not isinstance(slot, dict):
        raise SessionError(
            f"the session state {source_id!r} (an in-memory history) must be an object, not "
            f"{type(slot).__name__}; restore the session from to_dict() output"
        )
    messages = cast("dict[str, object]", slot).get("messages", [])
    if not isinstance(messages, list) or not all(
        isinstance(m, Message) for m in cast("list[object]", messages)
    ):
        raise SessionError(
            f"the session state {source_id!r} (an in-memory history) must hold a list of "
            "messages under 'messages'; restore the session from to_dict() output"
        )
    return cast("list[Message]", messages)
