"""Tools: functions the model can call, and the loop that runs them."""

from agentry.tools._authorization import (
    AuthorizationRequired,
    grant_credentials,
    require_authorization,
)
from agentry.tools._function_tool import (
    ApprovalMode,
    FunctionTool,
    ToolProtocol,
    tool,
    tool_result_to_text,
)
from agentry.tools._invocation import (
    FunctionInvocationConfiguration,
    ToolCallBatch,
    invoke_function_calls,
)
from agentry.tools._sources import ToolSource, expand_tool_sources

__all__ = [
    "ApprovalMode",
    "AuthorizationRequired",
    "FunctionInvocationConfiguration",
    "FunctionTool",
    "ToolCallBatch",
    "ToolProtocol",
    "ToolSource",
    "expand_tool_sources",
    "grant_credentials",
    "invoke_function_calls",
    "require_authorization",
    "tool",
    "tool_result_to_text",
]
