"""An agent run's updates as AG-UI events: text and reasoning messages, tool calls (the
agent's own with their results, the front end's left for it to run), start and end."""

from __future__ import annotations

import uuid

from ag_ui.core import (
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from agentry.clients.wire_format import function_call_arguments, function_result_text
from agentry.types import AgentResponseUpdate, Content

__all__ = ["RunEvents"]


class RunEvents:
    """The events of one run, made update by update; a message or a call still open is
    closed before anything else is said.

    Args:
        thread_id: The conversation's id, from the run's input.
        run_id: The run's id, from its input.
    """

    def __init__(self, thread_id: str, run_id: str) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self._message: tuple[str | None, str | None] = (None, None)  # (role, id) of updates
        self._text: str | None = None  # the open text message
        self._said: str | None = None  # the text message of the current model message
        self._reasoning: str | None = None  # the open reasoning message
        self._open_calls: list[str] = []
        self._started_calls: set[str] = set()

    def started(self) -> list[BaseEvent]:
        """The run has started."""
        return [RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)]

    def of(self, update: AgentResponseUpdate) -> list[BaseEvent]:
        """The events `update` makes."""
        events: list[BaseEvent] = []
        role, message_id = update.role, update.message_id
        if (role is not None and role != self._message[0]) or (
            message_id is not None and message_id != self._message[1]
        ):  # a new message, as a response folds its updates
            events += [*self._close_text(), *self._close_reasoning()]
            self._message = (role or self._message[0], message_id)
            self._said = None
        for content in update.contents:
            kind = content.type
            if kind == "text" and content.text:
                events += self._text_delta(content.text)
            elif kind == "text_reasoning" and content.text:
                events += self._reasoning_delta(content.text)
            elif kind == "function_call" and content.call_id:
                events += self._call(content)
            elif kind == "function_result" and content.call_id:
                events += self._result(content)
        return events

    def finished(self) -> list[BaseEvent]:
        """The run has ended: whatever is open is closed."""
        return [
            *self._close_all(),
            RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id),
        ]

    def failed(self, message: str, code: str | None = None) -> list[BaseEvent]:
        """The run has failed: whatever is open is closed, then the error."""
        return [*self._close_all(), RunErrorEvent(message=message, code=code)]

    def _text_delta(self, text: str) -> list[BaseEvent]:
        events = [*self._close_reasoning(), *self._close_calls()]
        if self._text is None:
            self._text = self._said = _fresh("message")
            events.append(TextMessageStartEvent(message_id=self._text, role="assistant"))
        events.append(TextMessageContentEvent(message_id=self._text, delta=text))
        return events

    def _reasoning_delta(self, text: str) -> list[BaseEvent]:
        events = [*self._close_text(), *self._close_calls()]
        if self._reasoning is None:
            self._reasoning = _fresh("reasoning")
            events.append(ReasoningStartEvent(message_id=self._reasoning))
            events.append(ReasoningMessageStartEvent(message_id=self._reasoning, role="reasoning"))
        events.append(ReasoningMessageContentEvent(message_id=self._reasoning, delta=text))
        return events

    def _call(self, call: Content) -> list[BaseEvent]:
        call_id = call.call_id or ""
        events = [*self._close_text(), *self._close_reasoning()]
        if call_id not in self._started_calls:
            self._started_calls.add(call_id)
            self._open_calls.append(call_id)
            events.append(
                ToolCallStartEvent(
                    tool_call_id=call_id,
                    tool_call_name=call.name or "",
                    parent_message_id=self._said,
                )
            )
        # a streamed call comes in pieces: one without arguments adds none
        arguments = function_call_arguments(call) if call.arguments is not None else ""
        if arguments:
            events.append(ToolCallArgsEvent(tool_call_id=call_id, delta=arguments))
        return events

    def _result(self, result: Content) -> list[BaseEvent]:
        call_id = result.call_id or ""
        events = [*self._close_text(), *self._close_reasoning(), *self._close_calls()]
        events.append(
            ToolCallResultEvent(
                message_id=_fresh("result"),
                tool_call_id=call_id,
                content=function_result_text(result),
                role="tool",
            )
        )
        return events

    def _close_text(self) -> list[BaseEvent]:
        if self._text is None:
            return []
        closed, self._text = self._text, None
        return [TextMessageEndEvent(message_id=closed)]

    def _close_reasoning(self) -> list[BaseEvent]:
        if self._reasoning is None:
            return []
        closed, self._reasoning = self._reasoning, None
        return [ReasoningMessageEndEvent(message_id=closed), ReasoningEndEvent(message_id=closed)]

    def _close_calls(self) -> list[BaseEvent]:
        closed, self._open_calls = self._open_calls, []
        return [ToolCallEndEvent(tool_call_id=call_id) for call_id in closed]

    def _close_all(self) -> list[BaseEvent]:
        return [*self._close_text(), *self._close_reasoning(), *self._close_calls()]


def _fresh(kind: str) -> str:
    """A new message id (a model's own may come again in one run, after a tool call)."""
    return f"{kind}-{uuid.uuid4().hex}"
