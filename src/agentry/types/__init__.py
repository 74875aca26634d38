"""Messages, contents, responses, streaming updates and chat options."""

from agentry.types._content import (
    AuthorizationFlow,
    Content,
    ContentType,
    UsageDetails,
    add_usage_details,
)
from agentry.types._json import JsonObject, JsonValue
from agentry.types._keywords import (
    reject_unknown_keywords,
    suggest_keywords,
    unknown_names_message,
)
from agentry.types._message import (
    AgentRunInputs,
    Message,
    RoleLiteral,
    normalize_messages,
)
from agentry.types._options import ChatOptions, ToolMode, check_chat_options, merge_chat_options
from agentry.types._responses import AgentResponse, ChatResponse
from agentry.types._retry import RetryPolicy, is_transient_error
from agentry.types._serialization import SerializationMixin
from agentry.types._stream import ResponseStream
from agentry.types._structured_output import parse_structured_output
from agentry.types._updates import AgentResponseUpdate, ChatResponseUpdate, FinishReason
from agentry.types._usage import UsageLimits
from agentry.types._validation import check_fields, load_json, stored_fields

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
    "JsonObject",
    "JsonValue",
    "Message",
    "ResponseStream",
    "RetryPolicy",
    "RoleLiteral",
    "SerializationMixin",
    "ToolMode",
    "UsageDetails",
    "UsageLimits",
    "add_usage_details",
    "check_chat_options",
    "check_fields",
    "is_transient_error",
    "load_json",
    "merge_chat_options",
    "normalize_messages",
    "parse_structured_output",
    "reject_unknown_keywords",
    "stored_fields",
    "suggest_keywords",
    "unknown_names_message",
]
