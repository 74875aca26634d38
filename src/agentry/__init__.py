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
    "RetryPolicy": "agentry.types",
    "SerializationMixin": "agentry.types",
    "ToolMode": "agentry.types",
    "UsageDetails": "agentry.types",
    "UsageLimits": "agentry.types",
    # clients
    "BaseChatClient": "agentry.clients",
    "FallbackChatClient": "agentry.clients",
    "SupportsChatGetResponse": "agentry.protocols",
    # tools
    "AuthorizationRequired": "agentry.tools",
    "FunctionInvocationConfiguration": "agentry.tools",
    "FunctionTool": "agentry.tools",
    "ToolProtocol": "agentry.tools",
    "require_authorization": "agentry.tools",
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
    # files
    "AgentFileStore": "agentry.files",
    "FileAccessProvider": "agentry.files",
    "FileSearchMatch": "agentry.files",
    "FileSearchResult": "agentry.files",
    "FileSystemAgentFileStore": "agentry.files",
    "InMemoryAgentFileStore": "agentry.files",
    # memory
    "MemoryContextProvider": "agentry.memory",
    # mcp
    "MCPStdioTool": "agentry.mcp",
    "MCPStreamableHTTPTool": "agentry.mcp",
    "MCPTaskOptions": "agentry.mcp",
    "MCPTool": "agentry.mcp",
    "MCPWebsocketTool": "agentry.mcp",
    # skills
    "ClassSkill": "agentry.skills",
    "FileSkill": "agentry.skills",
    "InlineSkill": "agentry.skills",
    "Skill": "agentry.skills",
    "SkillFrontmatter": "agentry.skills",
    "SkillResource": "agentry.skills",
    "SkillScript": "agentry.skills",
    "SkillScriptRunner": "agentry.skills",
    "SkillsProvider": "agentry.skills",
    "SubprocessScriptRunner": "agentry.skills",
    # agents
    "Agent": "agentry.agents",
    "BaseAgent": "agentry.agents",
    "SupportsAgentRun": "agentry.protocols",
    "use_function_invocation": "agentry.agents",
    # workflows
    "AgentExecutor": "agentry.workflows",
    "AgentExecutorRequest": "agentry.workflows",
    "AgentExecutorResponse": "agentry.workflows",
    "Case": "agentry.workflows",
    "CheckpointStorage": "agentry.workflows",
    "Default": "agentry.workflows",
    "Executor": "agentry.workflows",
    "FileCheckpointStorage": "agentry.workflows",
    "FunctionExecutor": "agentry.workflows",
    "InMemoryCheckpointStorage": "agentry.workflows",
    "SQLiteCheckpointStorage": "agentry.workflows",
    "Workflow": "agentry.workflows",
    "WorkflowAgent": "agentry.workflows",
    "WorkflowBuilder": "agentry.workflows",
    "WorkflowCheckpoint": "agentry.workflows",
    "WorkflowContext": "agentry.workflows",
    "WorkflowErrorDetails": "agentry.workflows",
    "WorkflowEvent": "agentry.workflows",
    "WorkflowEventType": "agentry.workflows",
    "WorkflowExecutor": "agentry.workflows",
    "WorkflowRunResult": "agentry.workflows",
    "WorkflowRunState": "agentry.workflows",
    "WorkflowValidationError": "agentry.workflows",
    "WorkflowViz": "agentry.workflows",
    "executor": "agentry.workflows",
    "handler": "agentry.workflows",
    "response_handler": "agentry.workflows",
    # serialization
    # orchestrations
    "ConcurrentOrchestrator": "agentry.orchestrations",
    "GroupChatOrchestrator": "agentry.orchestrations",
    "HandoffOrchestrator": "agentry.orchestrations",
    "MagenticOrchestrator": "agentry.orchestrations",
    "SequentialOrchestrator": "agentry.orchestrations",
}

__all__ = [
    "Agent",
    "AgentContext",
    "AgentExecutor",
    "AgentExecutorRequest",
    "AgentExecutorResponse",
    "AgentFileStore",
    "AgentMiddleware",
    "AgentResponse",
    "AgentResponseUpdate",
    "AgentRunInputs",
    "AgentSession",
    "AuthorizationRequired",
    "BaseAgent",
    "BaseChatClient",
    "Case",
    "ChatContext",
    "ChatMiddleware",
    "ChatOptions",
    "ChatResponse",
    "ChatResponseUpdate",
    "CheckpointStorage",
    "ClassSkill",
    "ConcurrentOrchestrator",
    "Content",
    "ContextProvider",
    "Default",
    "Executor",
    "FallbackChatClient",
    "FileAccessProvider",
    "FileCheckpointStorage",
    "FileHistoryProvider",
    "FileSearchMatch",
    "FileSearchResult",
    "FileSkill",
    "FileSystemAgentFileStore",
    "FunctionExecutor",
    "FunctionInvocationConfiguration",
    "FunctionInvocationContext",
    "FunctionMiddleware",
    "FunctionTool",
    "GroupChatOrchestrator",
    "HandoffOrchestrator",
    "HistoryProvider",
    "InMemoryAgentFileStore",
    "InMemoryCheckpointStorage",
    "InMemoryHistoryProvider",
    "InlineSkill",
    "MCPStdioTool",
    "MCPStreamableHTTPTool",
    "MCPTaskOptions",
    "MCPTool",
    "MCPWebsocketTool",
    "MagenticOrchestrator",
    "MemoryContextProvider",
    "Message",
    "MiddlewareTermination",
    "ResponseStream",
    "RetryPolicy",
    "SQLHistoryProvider",
    "SQLiteCheckpointStorage",
    "SQLiteHistoryProvider",
    "SequentialOrchestrator",
    "SerializationMixin",
    "SessionContext",
    "Skill",
    "SkillFrontmatter",
    "SkillResource",
    "SkillScript",
    "SkillScriptRunner",
    "SkillsProvider",
    "SubprocessScriptRunner",
    "SupportsAgentRun",
    "SupportsChatGetResponse",
    "ToolMode",
    "ToolProtocol",
    "UsageDetails",
    "UsageLimits",
    "Workflow",
    "WorkflowAgent",
    "WorkflowBuilder",
    "WorkflowCheckpoint",
    "WorkflowContext",
    "WorkflowErrorDetails",
    "WorkflowEvent",
    "WorkflowEventType",
    "WorkflowExecutor",
    "WorkflowRunResult",
    "WorkflowRunState",
    "WorkflowValidationError",
    "WorkflowViz",
    "__version__",
    "agent_middleware",
    "chat_middleware",
    "executor",
    "function_middleware",
    "handler",
    "register_state_type",
    "require_authorization",
    "response_handler",
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
    from agentry.agents import Agent, BaseAgent, use_function_invocation
    from agentry.clients import BaseChatClient, FallbackChatClient
    from agentry.files import (
        AgentFileStore,
        FileAccessProvider,
        FileSearchMatch,
        FileSearchResult,
        FileSystemAgentFileStore,
        InMemoryAgentFileStore,
    )
    from agentry.mcp import (
        MCPStdioTool,
        MCPStreamableHTTPTool,
        MCPTaskOptions,
        MCPTool,
        MCPWebsocketTool,
    )
    from agentry.memory import MemoryContextProvider
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
    from agentry.orchestrations import (
        ConcurrentOrchestrator,
        GroupChatOrchestrator,
        HandoffOrchestrator,
        MagenticOrchestrator,
        SequentialOrchestrator,
    )
    from agentry.protocols import SupportsAgentRun, SupportsChatGetResponse
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
    from agentry.skills import (
        ClassSkill,
        FileSkill,
        InlineSkill,
        Skill,
        SkillFrontmatter,
        SkillResource,
        SkillScript,
        SkillScriptRunner,
        SkillsProvider,
        SubprocessScriptRunner,
    )
    from agentry.tools import (
        AuthorizationRequired,
        FunctionInvocationConfiguration,
        FunctionTool,
        ToolProtocol,
        require_authorization,
        tool,
    )
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
        RetryPolicy,
        SerializationMixin,
        ToolMode,
        UsageDetails,
        UsageLimits,
    )
    from agentry.workflows import (
        AgentExecutor,
        AgentExecutorRequest,
        AgentExecutorResponse,
        Case,
        CheckpointStorage,
        Default,
        Executor,
        FileCheckpointStorage,
        FunctionExecutor,
        InMemoryCheckpointStorage,
        SQLiteCheckpointStorage,
        Workflow,
        WorkflowAgent,
        WorkflowBuilder,
        WorkflowCheckpoint,
        WorkflowContext,
        WorkflowErrorDetails,
        WorkflowEvent,
        WorkflowEventType,
        WorkflowExecutor,
        WorkflowRunResult,
        WorkflowRunState,
        WorkflowValidationError,
        WorkflowViz,
        executor,
        handler,
        response_handler,
    )
