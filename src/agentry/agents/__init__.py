"""Agents: the `SupportsAgentRun` protocol, `BaseAgent` for custom agents, and `Agent`."""

from agentry.agents._agent import Agent, normalize_tools
from agentry.agents._base import BaseAgent, SupportsAgentRun
from agentry.agents._function_invocation import use_function_invocation

__all__ = [
    "Agent",
    "BaseAgent",
    "SupportsAgentRun",
    "normalize_tools",
    "use_function_invocation",
]
