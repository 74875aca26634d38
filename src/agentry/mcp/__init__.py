"""MCP: remote tools, prompts and resources from Model Context Protocol servers.

Needs the `mcp` extra (`pip install "agentry[mcp]"`).

Example:
    >>> from agentry.mcp import MCPStdioTool
    >>> weather = MCPStdioTool(name="weather", command="python", args=["weather_server.py"])
"""

from agentry.mcp._arguments import MCP_FRAMEWORK_DENYLIST, AdditionalArgumentNames
from agentry.mcp._errors import MCPConnectionError
from agentry.mcp._sampling import SamplingApproval, SamplingPolicy, SamplingRequest
from agentry.mcp._server import AgentMCPServer
from agentry.mcp._task_options import MCPTaskOptions
from agentry.mcp._tool import DEFAULT_REQUEST_TIMEOUT, MCPApprovalMode, MCPTool
from agentry.mcp._transports import MCPStdioTool, MCPStreamableHTTPTool, MCPWebsocketTool

__all__ = [
    "DEFAULT_REQUEST_TIMEOUT",
    "MCP_FRAMEWORK_DENYLIST",
    "AdditionalArgumentNames",
    "AgentMCPServer",
    "MCPApprovalMode",
    "MCPConnectionError",
    "MCPStdioTool",
    "MCPStreamableHTTPTool",
    "MCPTaskOptions",
    "MCPTool",
    "MCPWebsocketTool",
    "SamplingApproval",
    "SamplingPolicy",
    "SamplingRequest",
]
