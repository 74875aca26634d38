"""An AG-UI `RunAgentInput` as an agent run: messages, the front end's tools, context."""

from __future__ import annotations

import base64
import binascii
from typing import Any, cast

from ag_ui.core import (
    AssistantMessage,
    DataSource,
    DeveloperMessage,
    RunAgentInput,
    SystemMessage,
    TextPart,
    ToolMessage,
    UrlSource,
    UserMessage,
)

from agentry.tools import FunctionTool
from agentry.types import Content, Message

__all__ = ["run_messages", "run_tools"]

_NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def run_messages(run: RunAgentInput) -> list[Message]:
    """The conversation of `run` as agentry messages, its context first.

    Reasoning and activity messages are the front end's record, not the model's input,
    and are left out.

    Raises:
        ValueError: A part cannot be read (an unknown source, data that is not base64).
    """
    messages: list[Message] = []
    if run.context:
        lines = [f"- {item.description}: {item.value}" for item in run.context]
        messages.append(Message("system", ["Context from the application:\n" + "\n".join(lines)]))
    for message in run.messages or ():
        converted = _message(message)
        if converted is not None:
            messages.append(converted)
    return messages


def run_tools(run: RunAgentInput) -> list[FunctionTool]:
    """The front end's tools, as declaration-only tools: the front end runs them."""
    return [
        FunctionTool(
            name=t.name,
            description=t.description or "",
            input_model=_parameters(t.parameters),
        )
        for t in run.tools or ()
    ]


def _parameters(parameters: object) -> dict[str, Any]:
    """A tool's JSON schema (none: it takes no arguments)."""
    return cast(dict[str, Any], parameters) if isinstance(parameters, dict) else _NO_PARAMETERS


def _message(message: object) -> Message | None:
    if isinstance(message, (SystemMessage, DeveloperMessage)):
        return Message("system", [message.content], message_id=message.id)
    if isinstance(message, UserMessage):
        content = message.content
        parts = (
            [Content.from_text(content)]
            if isinstance(content, str)
            else [_part(p) for p in content]
        )
        return Message("user", parts, author_name=message.name, message_id=message.id)
    if isinstance(message, AssistantMessage):
        contents: list[Content] = [Content.from_text(message.content)] if message.content else []
        contents.extend(
            Content.from_function_call(
                call_id=call.id, name=call.function.name, arguments=call.function.arguments
            )
            for call in message.tool_calls or ()
        )
        return Message("assistant", contents, author_name=message.name, message_id=message.id)
    if isinstance(message, ToolMessage):
        result = message.content if message.error is None else f"Error: {message.error}"
        return Message(
            "tool", [Content.from_function_result(call_id=message.tool_call_id, result=result)]
        )
    return None  # reasoning and activity: the front end's own


def _part(part: object) -> Content:
    if isinstance(part, TextPart):
        return Content.from_text(part.text)
    source = getattr(part, "source", None)
    if isinstance(source, UrlSource):
        return Content.from_uri(source.value, source.mime_type)
    if isinstance(source, DataSource):
        try:
            data = base64.b64decode(source.value, validate=True)
        except binascii.Error:
            raise ValueError("a data source's value must be base64") from None
        return Content.from_data(data, source.mime_type or "application/octet-stream")
    kind = getattr(part, "type", type(part).__name__)
    raise ValueError(f"a {kind} part needs a url or data source; file ids are not served here")
