"""Names from the OpenTelemetry semantic conventions for generative AI, and the
conversion of agentry messages into the conventions' JSON message format."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentry.types import Content, Message

__all__ = [
    "AGENT_DESCRIPTION",
    "AGENT_ID",
    "AGENT_NAME",
    "CONVERSATION_ID",
    "ERROR_TYPE",
    "INPUT_MESSAGES",
    "OPERATION_DURATION",
    "OPERATION_NAME",
    "OUTPUT_MESSAGES",
    "PROVIDER_NAME",
    "REQUEST_MAX_TOKENS",
    "REQUEST_MODEL",
    "REQUEST_SEED",
    "REQUEST_STOP_SEQUENCES",
    "REQUEST_STREAM",
    "REQUEST_TEMPERATURE",
    "REQUEST_TOP_P",
    "RESPONSE_FINISH_REASONS",
    "RESPONSE_ID",
    "RESPONSE_MODEL",
    "SYSTEM_INSTRUCTIONS",
    "TIME_TO_FIRST_CHUNK",
    "TOKEN_TYPE",
    "TOKEN_USAGE",
    "TOOL_CALL_ARGUMENTS",
    "TOOL_CALL_ID",
    "TOOL_CALL_RESULT",
    "TOOL_DESCRIPTION",
    "TOOL_NAME",
    "TOOL_TYPE",
    "USAGE_INPUT_TOKENS",
    "USAGE_OUTPUT_TOKENS",
    "WORKFLOW_NAME",
    "messages_json",
    "to_json",
]

OPERATION_NAME = "gen_ai.operation.name"
PROVIDER_NAME = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_TEMPERATURE = "gen_ai.request.temperature"
REQUEST_TOP_P = "gen_ai.request.top_p"
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
REQUEST_SEED = "gen_ai.request.seed"
REQUEST_STOP_SEQUENCES = "gen_ai.request.stop_sequences"
REQUEST_STREAM = "gen_ai.request.stream"
RESPONSE_ID = "gen_ai.response.id"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons"
USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CONVERSATION_ID = "gen_ai.conversation.id"
AGENT_ID = "gen_ai.agent.id"
AGENT_NAME = "gen_ai.agent.name"
AGENT_DESCRIPTION = "gen_ai.agent.description"
TOOL_NAME = "gen_ai.tool.name"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_DESCRIPTION = "gen_ai.tool.description"
TOOL_CALL_ID = "gen_ai.tool.call.id"
WORKFLOW_NAME = "gen_ai.workflow.name"
TOKEN_TYPE = "gen_ai.token.type"
ERROR_TYPE = "error.type"
# Sensitive: recorded only when sensitive data is enabled.
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_CALL_RESULT = "gen_ai.tool.call.result"
# Metrics.
TOKEN_USAGE = "gen_ai.client.token.usage"
OPERATION_DURATION = "gen_ai.client.operation.duration"
TIME_TO_FIRST_CHUNK = "gen_ai.client.operation.time_to_first_chunk"


def to_json(value: object) -> str:
    """`value` as JSON text; what JSON cannot hold is written as its `str`."""
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


def messages_json(messages: Iterable[Message], finish_reason: str | None = None) -> str:
    """Messages in the conventions' format: `[{"role", "parts": [...]}, ...]` as JSON.

    With `finish_reason`, each message is an output message and carries it.
    """
    converted: list[dict[str, object]] = []
    for message in messages:
        item: dict[str, object] = {
            "role": message.role,
            "parts": [p for p in (_part(c) for c in message.contents) if p is not None],
        }
        if message.author_name:
            item["name"] = message.author_name
        if finish_reason is not None:
            item["finish_reason"] = finish_reason
        converted.append(item)
    return to_json(converted)


def _part(content: Content) -> dict[str, object] | None:
    kind = content.type
    if kind == "text":
        return {"type": "text", "content": content.text}
    if kind == "text_reasoning":
        return {"type": "reasoning", "content": content.text}
    if kind == "function_call":
        return {
            "type": "tool_call",
            "id": content.call_id,
            "name": content.name,
            "arguments": content.arguments,
        }
    if kind == "function_result":
        return {"type": "tool_call_response", "id": content.call_id, "response": content.result}
    if kind == "usage":
        return None
    if kind == "uri":
        return {"type": "uri", "uri": content.uri, "mime_type": content.media_type}
    if kind == "data":
        return {"type": "blob", "mime_type": content.media_type}
    return {"type": kind}
