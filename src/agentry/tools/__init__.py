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
from agentry.tools._result_contents import tool_result_contents
from agentry.tools._schema import ToolSchemaWarning
from agentry.tools._sources import ToolSource, expand_tool_sources, has_tool_sources
from agentry.tools._tool_list import check_unique_tool_names, normalize_tools

__all__ = [
    "ApprovalMode",
    "AuthorizationRequired",
    "FunctionInvocationConfiguration",
    "FunctionTool",
    "ToolCallBatch",
    "ToolProtocol",
    "ToolSchemaWarning",
    "ToolSource",
    "check_unique_tool_names",
    "expand_tool_sources",
    "grant_credentials",
    "has_tool_sources",
    "invoke_function_calls",
    "normalize_tools",
    "require_authorization",
    "tool",
    "tool_result_contents",
    "tool_result_to_text",
]
