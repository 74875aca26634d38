"""Middleware around agent runs, model calls and tool calls."""

from agentry.middleware._base import (
    AgentMiddleware,
    CallNext,
    ChatMiddleware,
    FunctionMiddleware,
    MiddlewareFunction,
    MiddlewareTermination,
    MiddlewareTypes,
    agent_middleware,
    chat_middleware,
    function_middleware,
    run_pipeline,
    split_middleware,
)
from agentry.middleware._contexts import AgentContext, ChatContext, FunctionInvocationContext

__all__ = [
    "AgentContext",
    "AgentMiddleware",
    "CallNext",
    "ChatContext",
    "ChatMiddleware",
    "FunctionInvocationContext",
    "FunctionMiddleware",
    "MiddlewareFunction",
    "MiddlewareTermination",
    "MiddlewareTypes",
    "agent_middleware",
    "chat_middleware",
    "function_middleware",
    "run_pipeline",
    "split_middleware",
]
