"""Which of a workflow's output messages an agent stream has already shown."""

from __future__ import annotations

import uuid

from agentry.types import AgentResponseUpdate

__all__ = ["StreamedReplies"]


class StreamedReplies:
    """The texts of the agent replies a stream forwarded as they were generated.

    A workflow streams its agents' updates as intermediate outputs and then yields the
    finished messages as its output. A stream that showed the updates skips an output
    message only when it has shown exactly that text by that author, so nothing the
    stream did not show is ever dropped.
    """

    def __init__(self) -> None:
        self._shown: dict[str, list[str]] = {}
        """author -> texts of the replies shown whole."""
        self._open: dict[str, tuple[str, str | None, str, list[str]]] = {}
        """executor id -> (author, update message id, reply id, text parts) of the reply
        being shown."""

    def executor_invoked(self, executor_id: str) -> None:
        """A new invocation of an executor starts a new reply."""
        self._close(executor_id)

    def shown(self, update: AgentResponseUpdate, executor_id: str) -> AgentResponseUpdate:
        """Note an update the stream forwards; the update to forward, which carries an id
        of its reply (the same for all updates of one reply)."""
        author = update.author_name or executor_id
        opened = self._open.get(executor_id)
        if opened is None or opened[:2] != (author, update.message_id):
            self._close(executor_id)
            reply_id = update.message_id or uuid.uuid4().hex
            opened = self._open[executor_id] = (author, update.message_id, reply_id, [])
        opened[3].append(update.text)
        if update.message_id is not None:
            return update
        return AgentResponseUpdate(
            contents=update.contents,
            role=update.role,
            author_name=update.author_name,
            agent_id=update.agent_id,
            message_id=opened[2],
            response_id=update.response_id,
            finish_reason=update.finish_reason,
            created_at=update.created_at,
            additional_properties=update.additional_properties,
            raw_representation=update.raw_representation,
        )

    def already_shown(self, update: AgentResponseUpdate) -> bool:
        """Whether this whole-message update repeats a reply the stream showed (once)."""
        for executor_id in list(self._open):
            self._close(executor_id)
        texts = self._shown.get(update.author_name or "", [])
        if update.text and update.text in texts:
            texts.remove(update.text)
            return True
        return False

    def _close(self, executor_id: str) -> None:
        opened = self._open.pop(executor_id, None)
        if opened is not None:
            author, _, _, parts = opened
            self._shown.setdefault(author, []).append("".join(parts))
