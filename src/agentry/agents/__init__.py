"""Agents: the `SupportsAgentRun` protocol, `BaseAgent` for custom agents, and `Agent`."""

from agentry.agents._agent import Agent, AgentRunOptions
from agentry.agents._agent_middleware import run_with_agent_middleware
from agentry.agents._base import BaseAgent
from agentry.agents._function_invocation import use_function_invocation
from agentry.agents._usage_guard import UsageGuard
from agentry.protocols import SupportsAgentRun
from agentry.tools import normalize_tools

__all__ = [
    "Agent",
    "AgentRunOptions",
    "BaseAgent",
    "SupportsAgentRun",
    "UsageGuard",
    "normalize_tools",
    "run_with_agent_middleware",
    "use_function_invocation",
]
