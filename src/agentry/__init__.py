"""agentry: a framework for LLM agents and multi-agent workflows.

Public names load on first use, so `import agentry` stays fast.

Example:
    >>> from agentry import Agent, tool
    >>> from agentry.clients.scripted import ScriptedChatClient
    >>> @tool
    ... def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> agent = Agent(client=ScriptedChatClient(["3"]), tools=[add])
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # types
    "AgentResponse": "agentry.types",
    "AgentResponseUpdate": "agentry.types",
    "AgentRunInputs": "agentry.types",
    "ChatOptions": "agentry.types",
    "ChatResponse": "agentry.types",
    "ChatResponseUpdate": "agentry.types",
    "Content": "agentry.types",
    "Message": "agentry.types",
    "ResponseStream": "agentry.types",
    "ToolMode": "agentry.types",
    "UsageDetails": "agentry.types",
    # clients
    "BaseChatClient": "agentry.clients",
    "SupportsChatGetResponse": "agentry.clients",
    # tools
    "FunctionInvocationConfiguration": "agentry.tools",
    "FunctionTool": "agentry.tools",
    "ToolProtocol": "agentry.tools",
    "tool": "agentry.tools",
    # middleware
    "AgentContext": "agentry.middleware",
    "AgentMiddleware": "agentry.middleware",
    "ChatContext": "agentry.middleware",
    "ChatMiddleware": "agentry.middleware",
    "FunctionInvocationContext": "agentry.middleware",
    "FunctionMiddleware": "agentry.middleware",
    "MiddlewareTermination": "agentry.middleware",
    "agent_middleware": "agentry.middleware",
    "chat_middleware": "agentry.middleware",
    "function_middleware": "agentry.middleware",
    # sessions
    "AgentSession": "agentry.sessions",
    "ContextProvider": "agentry.sessions",
    "HistoryProvider": "agentry.sessions",
    "InMemoryHistoryProvider": "agentry.sessions",
    "FileHistoryProvider": "agentry.sessions",
    "SQLHistoryProvider": "agentry.sessions",
    "SQLiteHistoryProvider": "agentry.sessions",
    "SessionContext": "agentry.sessions",
    "register_state_type": "agentry.sessions",
    # agents
    "Agent": "agentry.agents",
    "BaseAgent": "agentry.agents",
    "SupportsAgentRun": "agentry.agents",
    "use_function_invocation": "agentry.agents",
}

__all__ = [
    "Agent",
    "AgentContext",
    "AgentMiddleware",
    "AgentResponse",
    "AgentResponseUpdate",
    "AgentRunInputs",
    "AgentSession",
    "BaseAgent",
    "BaseChatClient",
    "ChatContext",
    "ChatMiddleware",
    "ChatOptions",
    "ChatResponse",
    "ChatResponseUpdate",
    "Content",
    "ContextProvider",
    "FileHistoryProvider",
    "FunctionInvocationConfiguration",
    "FunctionInvocationContext",
    "FunctionMiddleware",
    "FunctionTool",
    "HistoryProvider",
    "InMemoryHistoryProvider",
    "Message",
    "MiddlewareTermination",
    "ResponseStream",
    "SQLHistoryProvider",
    "SQLiteHistoryProvider",
    "SessionContext",
    "SupportsAgentRun",
    "SupportsChatGetResponse",
    "ToolMode",
    "ToolProtocol",
    "UsageDetails",
    "__version__",
    "agent_middleware",
    "chat_middleware",
    "function_middleware",
    "register_state_type",
    "tool",
    "use_function_invocation",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentry' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from agentry.agents import Agent, BaseAgent, SupportsAgentRun, use_function_invocation
    from agentry.clients import BaseChatClient, SupportsChatGetResponse
    from agentry.middleware import (
        AgentContext,
        AgentMiddleware,
        ChatContext,
        ChatMiddleware,
        FunctionInvocationContext,
        FunctionMiddleware,
        MiddlewareTermination,
        agent_middleware,
        chat_middleware,
        function_middleware,
    )
    from agentry.sessions import (
        AgentSession,
        ContextProvider,
        FileHistoryProvider,
        HistoryProvider,
        InMemoryHistoryProvider,
        SessionContext,
        SQLHistoryProvider,
        SQLiteHistoryProvider,
        register_state_type,
    )
    from agentry.tools import FunctionInvocationConfiguration, FunctionTool, ToolProtocol, tool
    from agentry.types import (
        AgentResponse,
        AgentResponseUpdate,
        AgentRunInputs,
        ChatOptions,
        ChatResponse,
        ChatResponseUpdate,
        Content,
        Message,
        ResponseStream,
        ToolMode,
        UsageDetails,
    )
