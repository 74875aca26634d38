"""Messages, contents, responses, streaming updates and chat options."""

from agentry.types._content import (
    AuthorizationFlow,
    Content,
    ContentType,
    UsageDetails,
    add_usage_details,
)
from agentry.types._message import (
    AgentRunInputs,
    Message,
    RoleLiteral,
    normalize_messages,
)
from agentry.types._options import ChatOptions, ToolMode, merge_chat_options
from agentry.types._responses import AgentResponse, ChatResponse
from agentry.types._serialization import SerializationMixin
from agentry.types._stream import ResponseStream
from agentry.types._updates import AgentResponseUpdate, ChatResponseUpdate, FinishReason

__all__ = [
    "AgentResponse",
    "AgentResponseUpdate",
    "AgentRunInputs",
    "AuthorizationFlow",
    "ChatOptions",
    "ChatResponse",
    "ChatResponseUpdate",
    "Content",
    "ContentType",
    "FinishReason",
    "Message",
    "ResponseStream",
    "RoleLiteral",
    "SerializationMixin",
    "ToolMode",
    "UsageDetails",
    "add_usage_details",
    "merge_chat_options",
    "normalize_messages",
]
