"""An agent (or a workflow as an agent) served as an MCP server."""

from __future__ import annotations

import logging
import re
import uuid
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, cast

from agentry.errors import require_extra
from agentry.mcp._run_progress import RunProgress, wants_progress
from agentry.mcp._served_results import agent_answer, text_answer, tool_answer
from agentry.observability import get_telemetry_observer
from agentry.sessions import AgentSession
from agentry.tools import FunctionTool

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp_types import CallToolRequestParams, CallToolResult, ListToolsResult, Tool
    from starlette.applications import Starlette

    from agentry.protocols import SupportsAgentRun
    from agentry.types import AgentResponse

__all__ = ["AgentMCPServer"]

logger = logging.getLogger("agentry.mcp")

_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "description": "What to ask the agent."},
        "session_id": {
            "type": "string",
            "description": "Any id of your choosing: calls with the same id continue one "
            "conversation. Leave it out for a one-off question.",
        },
    },
    "required": ["task"],
}


class AgentMCPServer:
    """Serves an agent as an MCP server: one tool that asks the agent, and, if asked,
    the agent's own function tools.

    Create it with `agent.as_mcp_server()`; serve it with `run_stdio()`, `run_http()`, or
    mount `streamable_http_app()` in an ASGI server.

    Args:
        agent: The agent (a workflow's `as_agent()` works too).
        name: The server's and the agent tool's name (default: the agent's name).
        description: The agent tool's description (default: the agent's).
        expose_tools: Also offer the agent's function tools, called directly.
        max_sessions: Conversations kept; the least recently used are forgotten.
        tasks: Run the agent tool's calls as long-running tasks for clients that offer the
            tasks extension (`io.modelcontextprotocol/tasks`, 2026 protocol): the call
            answers at once, the client polls for the agent's answer and can stop the run
            with `tasks/cancel`. Other clients wait for the answer as usual.

    Raises:
        MissingExtraError: The `mcp` extra is not installed.
    """

    def __init__(
        self,
        agent: SupportsAgentRun,
        *,
        name: str | None = None,
        description: str | None = None,
        expose_tools: bool = False,
        max_sessions: int = 1000,
        tasks: bool = False,
    ) -> None:
        require_extra("mcp", feature="Serving an agent over MCP")
        from mcp.server.lowlevel import Server

        from agentry.mcp._served_tasks import ServedTasks

        self.agent = agent
        self.name = _tool_name(name or agent.name or "agent")
        self.description = (
            description or agent.description or f"Ask the {self.name} agent to do a task."
        )
        self.max_sessions = max_sessions
        self.tools: dict[str, FunctionTool] = (
            {t.name: t for t in getattr(agent, "tools", ()) if isinstance(t, FunctionTool)}
            if expose_tools
            else {}
        )
        if self.name in self.tools:
            raise ValueError(
                f"the agent has a tool named {self.name!r}, the name of the agent's own MCP "
                "tool; pass another name="
            )
        self._sessions: OrderedDict[str, AgentSession] = OrderedDict()
        self.server: Server[Any] = Server(
            self.name,
            instructions=self.description,
            on_list_tools=self._list_tools,
            # A call may also answer with a task (a tasks-extension result), which the
            # SDK's runner passes on as it is.
            on_call_tool=cast("Any", self._call_tool),
            get_tool_input_schema=self._input_schema,
        )
        self.tasks: ServedTasks | None = ServedTasks() if tasks else None
        """The agent runs served as tasks (None unless `tasks=True`)."""
        if self.tasks is not None:
            self.tasks.install(self.server)

    # region serving

    async def run_stdio(self) -> None:
        """Serve one client over this process's standard input and output."""
        from mcp.server.stdio import stdio_server

        try:
            async with stdio_server() as (read_stream, write_stream):
                await self.server.run(
                    read_stream, write_stream, self.server.create_initialization_options()
                )
        finally:
            self.close()

    def streamable_http_app(self, *, path: str = "/mcp", **options: Any) -> Starlette:
        """An ASGI app serving MCP over streamable HTTP at `path` (options go to the SDK)."""
        return self.server.streamable_http_app(streamable_http_path=path, **options)

    async def run_http(
        self, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning"
    ) -> None:
        """Serve over streamable HTTP at `http://HOST:PORT/mcp` until cancelled."""
        import uvicorn

        config = uvicorn.Config(
            self.streamable_http_app(host=host), host=host, port=port, log_level=log_level
        )
        try:
            await uvicorn.Server(config).serve()
        finally:
            self.close()

    def close(self) -> None:
        """Stop the agent runs still going as tasks. `run_stdio` and `run_http` do this
        when they end; call it at shutdown when you mount `streamable_http_app()`."""
        if self.tasks is not None:
            self.tasks.close()

    # endregion

    # region handlers

    async def _list_tools(self, context: ServerRequestContext[Any], params: Any) -> ListToolsResult:
        from mcp_types import ListToolsResult

        return ListToolsResult(tools=[self._agent_tool(), *map(_mcp_tool, self.tools.values())])

    def _agent_tool(self) -> Tool:
        from mcp_types import Tool

        return Tool(name=self.name, description=self.description, input_schema=_TASK_SCHEMA)

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        if name == self.name:
            return _TASK_SCHEMA
        tool = self.tools.get(name)
        return tool.parameters() if tool is not None else None

    async def _call_tool(
        self, context: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult | dict[str, Any]:
        from mcp_types import INVALID_PARAMS

        from mcp import MCPError

        if params.name != self.name and params.name not in self.tools:
            known = ", ".join([self.name, *self.tools])
            raise MCPError(
                code=INVALID_PARAMS, message=f"no tool named {params.name!r}; tools: {known}"
            )
        as_task = (
            self.tasks is not None and params.name == self.name and self.tasks.offered_by(context)
        )
        # Progress belongs to the request: a run answered later, as a task, reports none.
        progress = RunProgress(context.session) if wants_progress(context) and not as_task else None
        call = get_telemetry_observer().remote_call(
            f"tools/call {params.name}",
            {"mcp.method.name": "tools/call", "gen_ai.tool.name": params.name},
            self._answer(params.name, dict(params.arguments or {}), progress),
            side="server",
        )
        if as_task and self.tasks is not None:
            return self.tasks.start(call)
        return await call

    async def _answer(
        self, name: str, arguments: dict[str, Any], progress: RunProgress | None
    ) -> CallToolResult:
        try:
            if name == self.name:
                return agent_answer(await self._ask(arguments, progress))
            tool = self.tools[name]
            return tool_answer(await tool.invoke(arguments=arguments))
        except Exception as error:
            logger.warning("MCP call of %r failed: %s", name, type(error).__name__)
            return text_answer(f"{type(error).__name__}: {error}", is_error=True)

    async def _ask(self, arguments: dict[str, Any], progress: RunProgress | None) -> AgentResponse:
        task = arguments.get("task")
        if not isinstance(task, str) or not task.strip():
            raise ValueError("'task' must be a non-empty string")
        session_id = arguments.get("session_id")
        session = self._session(str(session_id)) if session_id else None
        if progress is None:
            response = await self.agent.run(task, session=session)
        else:  # streamed, so each step of the run can be reported
            stream = self.agent.run(task, session=session, stream=True)
            async for update in stream:
                await progress.note(update)
            response = await stream.get_final_response()
        if response.user_input_requests:
            names = ", ".join(
                r.function_call.name or "?"
                for r in response.user_input_requests
                if r.function_call is not None
            )
            raise PermissionError(
                f"the agent needs a person's approval to call {names}, which this MCP "
                "server cannot ask for; serve an agent whose tools need no approval"
            )
        asks = [c for m in response.messages for c in m.contents if c.type == "function_call"]
        if asks and not response.text:
            raise PermissionError(
                f"the agent stopped to ask for input ({asks[0].name}), which this MCP server "
                "cannot ask for; serve an agent or workflow that answers on its own"
            )
        return response

    def _session(self, session_id: str) -> AgentSession:
        sessions = self._sessions
        session = sessions.get(session_id)
        if session is None:
            create: object = getattr(self.agent, "create_session", None)
            session = cast("AgentSession", create()) if callable(create) else AgentSession()
            sessions[session_id] = session
            while len(sessions) > self.max_sessions:
                sessions.popitem(last=False)
        sessions.move_to_end(session_id)
        return session

    # endregion


def _mcp_tool(tool: FunctionTool) -> Tool:
    from mcp_types import Tool

    return Tool(name=tool.name, description=tool.description, input_schema=tool.parameters())


def _tool_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", name).strip("_")
    return cleaned or f"agent_{uuid.uuid4().hex[:8]}"
