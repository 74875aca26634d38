"""Tools: functions the model can call, and the loop that runs them."""

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
from agentry.tools._sources import ToolSource, expand_tool_sources

__all__ = [
    "ApprovalMode",
    "FunctionInvocationConfiguration",
    "FunctionTool",
    "ToolCallBatch",
    "ToolProtocol",
    "ToolSource",
    "expand_tool_sources",
    "invoke_function_calls",
    "tool",
    "tool_result_contents",
    "tool_result_to_text",
]
