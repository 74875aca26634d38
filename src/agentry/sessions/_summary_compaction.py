"""`SummaryCompaction`: older turns replaced by a summary a model writes, kept in the session."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentry.errors import ChatClientError
from agentry.observability import get_logger
from agentry.sessions._compaction import (
    TokenCounter,
    estimate_tokens,
    fits,
    keep_within_budget,
    split_instructions,
    units_newest_first,
)
from agentry.sessions._providers import message_json
from agentry.types import Message

if TYPE_CHECKING:
    from agentry.protocols import SupportsChatGetResponse

__all__ = ["SummaryCompaction"]

logger = get_logger("agentry.sessions")

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "Summarize the conversation below for the assistant that will continue it. Keep the "
    "user's goals, facts and decisions, names and numbers, what tools returned that still "
    "matters, and open questions. Write only the summary."
)
_SUMMARY_PREFIX = "Summary of the earlier conversation:\n"


class SummaryCompaction:
    """When a request would exceed `max_tokens`, older turns are replaced by a summary.

    The summary is written by `client` (any chat client) and kept in the session state, so
    later runs reuse it; when the budget is reached again, the summary and the turns since
    are summarized anew. The latest turns, up to `keep_tokens`, are always sent as they are.
    When `client` fails, the oldest turns are left out of that request instead (with a
    warning) and the summary is tried again on the next.

    Args:
        client: The chat client that writes summaries.
        max_tokens: The budget of one request, instructions included.
        keep_tokens: How much of the latest conversation to keep verbatim when summarizing
            (whole units, at least the last one); half of `max_tokens` by default.
        counter: Counts a message's tokens; by default :func:`estimate_tokens`.
        instructions: What the summarizing model is asked to do.

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> compaction = SummaryCompaction(ScriptedChatClient(), max_tokens=4000)
    """

    def __init__(
        self,
        client: SupportsChatGetResponse,
        *,
        max_tokens: int,
        keep_tokens: int | None = None,
        counter: TokenCounter = estimate_tokens,
        instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS,
    ) -> None:
        keep = max_tokens // 2 if keep_tokens is None else keep_tokens
        if type(max_tokens) is not int or max_tokens < 1:
            raise ValueError(
                "SummaryCompaction(max_tokens=...) must be a positive whole number, not "
                f"{max_tokens!r}"
            )
        if type(keep) is not int or not 0 < keep < max_tokens:
            raise ValueError(
                f"SummaryCompaction(keep_tokens={keep_tokens!r}) must be a whole number between 1 "
                f"and max_tokens - 1 ({max_tokens - 1}), to leave room for the summary"
            )
        self.client = client
        self.max_tokens = max_tokens
        self.keep_tokens = keep
        self.counter = counter
        self.instructions = instructions

    async def compact(
        self, messages: Sequence[Message], *, state: dict[str, object]
    ) -> list[Message]:
        head, body = split_instructions(messages)
        covered = _covered(body, state)
        summary = state.get("summary") if covered else None
        candidate = [*head, *_summary_messages(summary), *body[covered:]]
        count = self.counter
        if fits(candidate, self.max_tokens, count):
            return candidate
        cut = covered + self._older_part(body[covered:])
        if cut == covered:  # only the latest turn is left: nothing more to summarize
            return keep_within_budget(candidate, self.max_tokens, count)
        try:
            summary = await self._summarize(summary, body[covered:cut])
        except ChatClientError as error:
            logger.warning(
                "could not summarize the older turns (%s); leaving the oldest out for this "
                "request instead, and summarizing again on the next one",
                error,
            )
            return keep_within_budget(candidate, self.max_tokens, count)
        state.clear()
        state.update(summary=summary, covers=cut, start=_fingerprint(body, cut))
        compacted = [*head, *_summary_messages(summary), *body[cut:]]
        return keep_within_budget(compacted, self.max_tokens, count)

    def _older_part(self, body: Sequence[Message]) -> int:
        """How many of `body`'s first messages to summarize: all but the latest units
        that fit `keep_tokens` (and at least the last unit)."""
        kept_from, tokens = len(body), 0
        for start, end in units_newest_first(body):
            tokens += sum(self.counter(m) for m in body[start:end])
            if kept_from < len(body) and tokens > self.keep_tokens:
                break
            kept_from = start
        return kept_from

    async def _summarize(self, previous: object, messages: Sequence[Message]) -> str:
        parts = [f"Summary so far:\n{previous}"] if isinstance(previous, str) else []
        parts.extend(_transcript_line(m) for m in messages)
        request = [
            Message("system", [self.instructions]),
            Message("user", ["\n".join(parts)]),
        ]
        response = await self.client.get_response(request)
        return response.text.strip()


def _covered(body: Sequence[Message], state: dict[str, object]) -> int:
    """How many of `body`'s first messages the stored summary stands for (0 if none, or
    if the conversation no longer begins as it did when the summary was written)."""
    covers, start, summary = state.get("covers"), state.get("start"), state.get("summary")
    if type(covers) is not int or not isinstance(summary, str) or not 0 < covers <= len(body):
        return 0
    return covers if _fingerprint(body, covers) == start else 0


def _fingerprint(body: Sequence[Message], covers: int) -> str:
    """A digest of the first and the last message a summary covers."""
    digest = hashlib.sha256(message_json(body[0]).encode("utf-8"))
    digest.update(message_json(body[covers - 1]).encode("utf-8"))
    return digest.hexdigest()[:16]


def _summary_messages(summary: object) -> list[Message]:
    if not isinstance(summary, str):
        return []
    return [Message("system", [_SUMMARY_PREFIX + summary])]


def _transcript_line(message: Message) -> str:
    pieces: list[str] = []
    for content in message.contents:
        if content.type == "text" and content.text:
            pieces.append(content.text)
        elif content.type == "function_call":
            pieces.append(f"[called {content.name}({content.arguments or ''})]")
        elif content.type == "function_result":
            pieces.append(f"[tool result: {content.result}]")
    return f"{message.role}: {' '.join(pieces)}"
