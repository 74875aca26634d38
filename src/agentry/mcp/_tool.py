"""`MCPTool`: an MCP server's tools, prompts and resources for agentry agents."""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

from agentry.errors import ToolExecutionError, require_extra
from agentry.mcp._arguments import (
    AdditionalArgumentNames,
    allowed_argument_names,
    checked_extras,
    prepare_call_kwargs,
)
from agentry.mcp._background import BackgroundTasks
from agentry.mcp._connection import Connection
from agentry.mcp._errors import (
    MCPConnectionError,
    describe,
    explained,
    first_problem,
    is_connection_loss,
    is_timeout,
)
from agentry.mcp._results import prompt_messages, resource_text, tool_result_value
from agentry.mcp._sampling import SamplingGuard, SamplingPolicy
from agentry.mcp._task_options import MCPTaskOptions
from agentry.observability import get_telemetry_observer
from agentry.tools import FunctionTool

if TYPE_CHECKING:
    from types import TracebackType

    from mcp.client.session import ClientSession
    from mcp_types import CallToolResult, Tool

    from agentry.mcp._task_wire import TaskState, TaskWire
    from agentry.protocols import SupportsChatGetResponse
    from agentry.types import Content, Message
    from mcp import Client

__all__ = ["DEFAULT_REQUEST_TIMEOUT", "MCPApprovalMode", "MCPConnectionError", "MCPTool"]

logger = logging.getLogger("agentry.mcp")

MCPApprovalMode: TypeAlias = (
    Literal["always_require", "never_require"] | Mapping[str, Collection[str]]
)
"""Approval for every tool, or `{"always_require_approval": [...], "never_require_approval":
[...]}` by remote tool name (tools in neither list follow `never_require`)."""

RESOURCE_TOOL = "read_resource"

EVIDENCE_WAIT = 2.0
"""Seconds a failing call waits for the transport to show why (a process to exit)."""

DEFAULT_REQUEST_TIMEOUT = 60.0
"""Seconds an MCP request may take unless the tool says otherwise (`request_timeout`)."""


class MCPTool(ABC):
    """Base class of the MCP tools: owns the client session and exposes the server's tools
    as `FunctionTool`s.

    Use it as an async context manager, or put it straight in an agent's `tools`: it
    connects on first use. `functions` lists the loaded tools; when the server says its
    tool list changed, the list is loaded again before the next run. Arguments reach the
    server only if the tool declares them or `additional_tool_argument_names` lists them.

    Args:
        name: A name for the server, used in logs, spans and errors.
        description: What the server offers.
        allowed_tools: Load only these remote tools (by remote name).
        tool_name_prefix: Prefix the tools' names (keeps two servers' tools apart).
        additional_tool_argument_names: Extra argument names to forward: a list for every
            tool, or a mapping by remote tool name with `"*"` for every tool.
        approval_mode: Whether calls need a person's approval (see `MCPApprovalMode`).
        request_timeout: Seconds one request may take before it fails with a
            `ToolExecutionError` (default `DEFAULT_REQUEST_TIMEOUT`, 60 s; a tool call that
            runs longer needs more). None waits as long as the server takes.
        connect_timeout: Seconds connecting may take.
        sampling_client: A chat client that answers the server's sampling requests.
            Without one, the client does not offer sampling and servers cannot use the model.
        sampling_policy: Rate limit, approval and token cap for sampling.
        resource_tool: Also offer a `read_resource` tool that reads the server's resources.
        protocol_mode: The SDK's protocol negotiation: `"auto"`, `"legacy"` (the
            2025-era handshake) or a protocol version.
        task_options: How calls the server runs as long-running tasks are waited for
            and cancelled (see `MCPTaskOptions`, experimental); None uses the defaults.

    Raises:
        MissingExtraError: The `mcp` extra is not installed.
        ValueError: `protocol_mode` is not one the SDK speaks.
    """

    def __init__(
        self,
        name: str,
        *,
        description: str | None = None,
        allowed_tools: Collection[str] | None = None,
        tool_name_prefix: str | None = None,
        additional_tool_argument_names: AdditionalArgumentNames | None = None,
        approval_mode: MCPApprovalMode = "never_require",
        request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
        connect_timeout: float | None = 30.0,
        sampling_client: SupportsChatGetResponse | None = None,
        sampling_policy: SamplingPolicy | None = None,
        resource_tool: bool = False,
        protocol_mode: str = "auto",
        task_options: MCPTaskOptions | None = None,
    ) -> None:
        require_extra("mcp", feature=type(self).__name__)
        self.name = name
        self.description = description or f"Tools of the MCP server {name!r}."
        self.allowed_tools = frozenset(allowed_tools) if allowed_tools is not None else None
        self.tool_name_prefix = tool_name_prefix or ""
        self.additional_tool_argument_names = checked_extras(additional_tool_argument_names)
        self.approval_mode = approval_mode
        self.request_timeout = request_timeout
        self.connect_timeout = connect_timeout
        self.sampling_client = sampling_client
        self.sampling_policy = sampling_policy or SamplingPolicy()
        self.resource_tool = resource_tool
        self.protocol_mode = _checked_protocol_mode(protocol_mode)
        self.task_options = task_options
        self.remote_tools: dict[str, Tool] = {}
        """The server's tool definitions by remote name (as last loaded)."""
        self._functions: list[FunctionTool] = []
        self._task_tools: frozenset[str] = frozenset()
        self._allowed_arguments: dict[str, frozenset[str]] = {}
        self._connection = Connection(name, self._make_client, self._listen_for_changes)
        self._connect_lock = asyncio.Lock()
        self._tools_stale = True
        self._listener: asyncio.Task[None] | None = None
        self._background = BackgroundTasks()

    # region connection

    @abstractmethod
    def _server(self) -> Any:
        """What `mcp.Client` connects to: a URL, stdio parameters or a transport."""

    @property
    def task_options(self) -> MCPTaskOptions | None:
        """How long-running tasks are followed (None: the defaults, as `MCPTaskOptions()`
        has them); replace the whole object to change it."""
        return self._task_options

    @task_options.setter
    def task_options(self, options: MCPTaskOptions | None) -> None:
        if options is not None and not isinstance(options, MCPTaskOptions):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"task_options must be an MCPTaskOptions or None, not {type(options).__name__}"
            )
        self._task_options = options

    def _make_client(self) -> Client:
        from agentry.mcp._task_wire import TasksClientExtension
        from mcp import Client

        sampling = (
            SamplingGuard(self.name, self.sampling_client, self.sampling_policy)
            if self.sampling_client is not None
            else None
        )
        return Client(
            self._server(),
            read_timeout_seconds=self.request_timeout,
            sampling_callback=sampling,
            message_handler=self._on_message,
            mode=self.protocol_mode,  # pyright: ignore[reportArgumentType]
            extensions=[TasksClientExtension()],
        )

    @property
    def is_connected(self) -> bool:
        """Whether the tool holds a live connection."""
        return self._connection.is_open

    @property
    def session(self) -> ClientSession:
        """The current client session (requests sent on it directly are not followed as
        tasks; `call_tool` does that).

        Raises:
            MCPConnectionError: Not connected.
        """
        return self._client().session

    async def connect(self) -> None:
        """Connect (if not connected) and load the tools.

        Raises:
            MCPConnectionError: The server cannot be started or reached.
        """
        async with self._connect_lock:
            if self._connection.is_open:
                return
            await self._open()
        await self.load_tools()

    async def _open(self) -> None:
        try:
            await asyncio.wait_for(self._connection.open(), self.connect_timeout)
        except asyncio.TimeoutError:
            problem = await self._transport_problem(settle=0)
            raise MCPConnectionError(
                f"connecting to MCP server {self.name!r} took longer than "
                f"{self.connect_timeout:g} s; "
                + (problem or "check that it starts and answers, or raise connect_timeout")
            ) from None
        except Exception as error:
            problem = await self._transport_problem(settle=EVIDENCE_WAIT)
            raise MCPConnectionError(
                f"cannot connect to MCP server {self.name!r}: {explained(error, problem)}"
            ) from error
        self._tools_stale = True

    async def _transport_problem(self, *, settle: float) -> str | None:
        """What the transport saw go wrong, for error messages (a server process's exit
        status and last words, an HTTP error status); None when it saw nothing.

        Args:
            settle: Seconds it may wait for the evidence to come in (a process to exit).
        """
        return None

    async def reconnect(self, *, replacing: ClientSession | None = None) -> None:
        """Replace the connection with a new one to the same server.

        Args:
            replacing: Reconnect only if this session is still the current one (or the
                connection is down): when several calls lose the same connection, the
                first reconnects and the others use its new connection.

        Raises:
            MCPConnectionError: The server cannot be reached.
        """
        async with self._connect_lock:
            if replacing is not None and self._replaced(replacing):
                return
            await self._close_connection()
            await self._open()

    def _replaced(self, broken: ClientSession) -> bool:
        """Whether another caller already replaced the connection of session `broken`."""
        client = self._connection.client
        return self._connection.is_open and client is not None and client.session is not broken

    async def close(self) -> None:
        """Disconnect (a later use connects again), after the cancels of given-up tasks
        still being sent (each takes at most 10 s)."""
        await self._background.wait()
        async with self._connect_lock:
            await self._close_connection()

    async def _close_connection(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None
        await self._connection.close()

    async def __aenter__(self) -> MCPTool:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    def _client(self) -> Client:
        client = self._connection.client
        if client is None or not self._connection.is_open:
            raise MCPConnectionError(
                f"MCP server {self.name!r} is not connected; use `async with` or call connect()"
            )
        return client

    # endregion

    # region tools

    @property
    def functions(self) -> list[FunctionTool]:
        """The server's tools as function tools (empty until connected)."""
        return list(self._functions)

    async def load_tools(self) -> list[FunctionTool]:
        """The server's tools, connecting first and reloading them if the list changed.

        Agents call this at the start of every run that has this tool.
        """
        if not self._connection.is_open:
            await self.connect()
        if self._tools_stale:
            self._tools_stale = False
            try:
                await self._reload_tools()
            except BaseException:
                self._tools_stale = True
                raise
        return list(self._functions)

    async def _reload_tools(self) -> None:
        client = self._client()
        remote: dict[str, Tool] = {}
        task_tools: set[str] = set()
        allowed_arguments: dict[str, frozenset[str]] = {}
        cursor: str | None = None
        while True:
            page = await self._request(
                client, client.list_tools(cursor=cursor, cache_mode="refresh")
            )
            for definition in page.tools:
                # Also for tools outside allowed_tools, which call_tool may still call.
                if _requires_task(definition):
                    task_tools.add(definition.name)
                allowed_arguments[definition.name] = allowed_argument_names(
                    definition.name, definition.input_schema, self.additional_tool_argument_names
                )
                if self.allowed_tools is None or definition.name in self.allowed_tools:
                    remote[definition.name] = definition
            cursor = page.next_cursor
            if cursor is None:
                break
        self.remote_tools = remote
        self._task_tools = frozenset(task_tools)
        self._allowed_arguments = allowed_arguments
        functions = [self._function_for(definition) for definition in remote.values()]
        if self.resource_tool:
            functions.append(self._resource_function())
        self._functions = functions

    def _function_for(self, definition: Tool) -> FunctionTool:
        remote_name = definition.name

        async def call(**arguments: Any) -> str | list[Content]:
            return tool_result_value(await self.call_tool(remote_name, arguments))

        return FunctionTool(
            func=call,
            name=f"{self.tool_name_prefix}{remote_name}",
            description=definition.description or "",
            input_model=definition.input_schema,
            approval_mode=self._approval_for(remote_name),
            additional_properties={"mcp_server": self.name, "mcp_tool": remote_name},
        )

    def _approval_for(self, remote_name: str) -> Literal["always_require", "never_require"]:
        mode = self.approval_mode
        if mode == "always_require":
            return "always_require"
        if mode == "never_require":
            return "never_require"
        if isinstance(mode, str):
            raise ValueError(
                f"approval_mode must be 'always_require', 'never_require' or a mapping, "
                f"not {mode!r}"
            )
        if remote_name in mode.get("always_require_approval", ()):
            return "always_require"
        return "never_require"

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, meta: Mapping[str, Any] | None = None
    ) -> CallToolResult:
        """Call a remote tool by its remote name.

        Only the arguments the tool declares, and those `additional_tool_argument_names`
        lists, are sent; a `_meta` argument becomes the request's metadata (`meta` wins
        over it where both set a key). A tool the server runs as a long-running task (it
        declares `taskSupport: "required"`, or on 2026 connections the server answers with
        a task) is followed until it ends, and its result returned (see `MCPTaskOptions`).

        Raises:
            MCPConnectionError: The server is unreachable or the connection broke.
            ToolExecutionError: The server answered the call with a protocol error, or
                the task failed or was given up.
        """
        return await self._call(name, arguments, meta, as_task=False)

    async def call_tool_as_task(
        self, name: str, arguments: Mapping[str, Any], *, meta: Mapping[str, Any] | None = None
    ) -> CallToolResult:
        """Call a remote tool as a long-running task and wait for its result.

        Arguments are filtered as by `call_tool`. On 2025-11-25 connections the call asks
        for a task (with `default_ttl`), then polls `tasks/get` and fetches `tasks/result`.
        A server that ignores the request answers directly; one that rejects it (method
        not found, invalid params) is called again without it. On 2026 connections the
        client always offers the tasks extension and the server decides whether the call
        becomes a task.

        Raises:
            MCPConnectionError: The connection broke before the server named the task
                (the call is not sent again: it may have started).
            ToolExecutionError: The task failed, was cancelled, or was given up.
        """
        return await self._call(name, arguments, meta, as_task=True)

    async def _call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        meta: Mapping[str, Any] | None,
        *,
        as_task: bool,
    ) -> CallToolResult:
        """Every tools/call goes through here: the allowlist, then the route."""
        await self.load_tools()  # connects if needed; the allowlist follows list changes
        sent, meta_argument = prepare_call_kwargs(self._allowed_for(name), arguments, {})
        merged_meta = {**(meta_argument or {}), **(meta or {})} or None
        return await get_telemetry_observer().remote_call(
            f"tools/call {name}",
            {
                "mcp.method.name": "tools/call",
                "gen_ai.tool.name": name,
                "gen_ai.operation.name": "execute_tool",
            },
            self._route(name, sent, merged_meta, as_task=as_task),
            sensitive_attributes=lambda: {"gen_ai.tool.call.arguments": _json(sent)},
        )

    def _allowed_for(self, name: str) -> frozenset[str]:
        """The argument names a call of remote tool `name` may send (for a tool the server
        did not list: only the configured extras)."""
        allowed = self._allowed_arguments.get(name)
        if allowed is None:
            allowed = allowed_argument_names(name, {}, self.additional_tool_argument_names)
        return allowed

    async def _route(
        self,
        name: str,
        arguments: Mapping[str, Any],
        meta: Mapping[str, Any] | None,
        *,
        as_task: bool,
    ) -> CallToolResult:
        client = self._client()
        if as_task or self._needs_task(name, client):
            return await self._call_as_task(client, name, arguments, meta)
        return await self._call_plainly(client, name, arguments, meta)

    async def _call_as_task(
        self,
        client: Client,
        name: str,
        arguments: Mapping[str, Any],
        meta: Mapping[str, Any] | None,
    ) -> CallToolResult:
        from agentry.mcp._task_submission import submit_task
        from agentry.mcp._task_wire import LegacyTaskWire, TaskState

        if _speaks_task_extension(client):
            return await self._call_plainly(client, name, arguments, meta)
        try:
            outcome = await submit_task(
                client.session,
                name,
                arguments,
                meta=meta,
                server=self.name,
                options=self.task_options,
                timeout=self.request_timeout,
            )
        except MCPConnectionError:
            await self._drop_broken_connection(client.session)
            raise
        if outcome is None:
            return await self._call_plainly(client, name, arguments, meta)
        if isinstance(outcome, TaskState):
            return await self._follow(LegacyTaskWire(), outcome, name)
        return outcome  # the server ignored the task request and answered at once

    async def _call_plainly(
        self,
        client: Client,
        name: str,
        arguments: Mapping[str, Any],
        meta: Mapping[str, Any] | None,
    ) -> CallToolResult:
        from agentry.mcp._task_wire import ExtensionTaskWire, TaskCreated

        call = client.call_tool(
            name, dict(arguments), meta=cast("Any", dict(meta)) if meta else None
        )
        try:
            return await self._request(client, call, what=f"tool {name!r}")
        except TaskCreated as created:
            return await self._follow(ExtensionTaskWire(), created.state, name)

    async def _follow(self, wire: TaskWire, state: TaskState, name: str) -> CallToolResult:
        from agentry.mcp._task_follower import TaskFollower

        follower = TaskFollower(self, wire, self.task_options, name, background=self._background)
        return await follower.follow(state)

    def _needs_task(self, name: str, client: Client) -> bool:
        """Whether a call must be sent as a task: the tool says so, on a connection of the
        2025-11-25 design (2026 servers make calls tasks on their own)."""
        return name in self._task_tools and not _speaks_task_extension(client)

    # endregion

    # region prompts and resources

    async def list_prompts(self) -> list[str]:
        """The names of the server's prompts."""
        client = await self._connected()
        result = await self._request(client, client.list_prompts())
        return [prompt.name for prompt in result.prompts]

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> list[Message]:
        """A server prompt, filled with `arguments`, as messages for an agent."""
        client = await self._connected()
        result = await self._request(
            client, client.get_prompt(name, dict(arguments or {})), what=f"prompt {name!r}"
        )
        return prompt_messages(result)

    async def list_resources(self) -> list[str]:
        """The URIs of the server's resources."""
        client = await self._connected()
        result = await self._request(client, client.list_resources())
        return [str(resource.uri) for resource in result.resources]

    async def read_resource(self, uri: str) -> str:
        """A resource's contents as text."""
        client = await self._connected()
        result = await self._request(client, client.read_resource(uri), what=f"resource {uri!r}")
        return resource_text(result)

    def _resource_function(self) -> FunctionTool:
        async def read_resource(uri: str) -> str:
            return await self.read_resource(uri)

        return FunctionTool(
            func=read_resource,
            name=f"{self.tool_name_prefix}{RESOURCE_TOOL}",
            description=f"Read a resource of the MCP server {self.name!r} by its URI.",
            additional_properties={"mcp_server": self.name},
        )

    async def _connected(self) -> Client:
        if not self._connection.is_open:
            await self.connect()
        return self._client()

    # endregion

    # region plumbing

    async def _request(self, client: Client, call: Any, *, what: str = "request") -> Any:
        """Await one request made with `client`; if its connection broke, that connection
        is closed (unless already replaced) so the next use reconnects."""
        from mcp_types import INTERNAL_ERROR
        from pydantic import ValidationError

        from mcp import MCPError

        session = client.session
        try:
            return await call
        except MCPError as error:
            if is_timeout(error):
                raise self._timed_out(what) from error
            if is_connection_loss(error):
                raise await self._broken(session, what, error) from error
            # The SDK reports any HTTP error status as an internal error; say which.
            problem = (
                await self._transport_problem(settle=0) if error.code == INTERNAL_ERROR else None
            )
            raise ToolExecutionError(
                f"MCP server {self.name!r} refused the {what}: {error}"
                + (f" ({problem})" if problem else "")
            ) from error
        except ValidationError as error:
            raise ToolExecutionError(
                f"MCP server {self.name!r} answered the {what} with an invalid result "
                f"({first_problem(error)}); it is not sent again"
            ) from None
        except (TimeoutError, asyncio.TimeoutError) as error:
            raise self._timed_out(what) from error
        except (OSError, EOFError) as error:
            raise await self._broken(session, what, error) from error

    async def _broken(
        self, session: ClientSession, what: str, error: BaseException
    ) -> MCPConnectionError:
        """The error for a connection that broke during `what`, naming the cause where the
        transport saw it; the connection is closed so the next use reconnects."""
        problem = await self._transport_problem(settle=EVIDENCE_WAIT)
        await self._drop_broken_connection(session)
        return MCPConnectionError(
            f"the connection to MCP server {self.name!r} broke during the {what}: "
            f"{explained(error, problem)}; it reconnects on the next use"
        )

    def _timed_out(self, what: str) -> ToolExecutionError:
        limit = f" ({self.request_timeout:g} s)" if self.request_timeout else ""
        return ToolExecutionError(
            f"MCP server {self.name!r} did not answer the {what} in time{limit}; raise "
            "request_timeout if it needs longer"
        )

    async def _drop_broken_connection(self, broken: ClientSession | None) -> None:
        """Close the connection of session `broken`, unless it was replaced meanwhile (the
        next use reconnects)."""
        async with self._connect_lock:
            if broken is None or not self._replaced(broken):
                await self._close_connection()

    async def _on_message(self, message: object) -> None:
        if isinstance(message, Exception):
            logger.debug("MCP server %r transport error: %s", self.name, describe(message))
            return
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self._tools_stale = True

    def _listen_for_changes(self, client: Client) -> None:
        """On 2026 protocol connections, tool-list changes come through a subscription."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            self._listener = asyncio.create_task(self._listen(client))

    async def _listen(self, client: Client) -> None:
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _ in events:
                    self._tools_stale = True
        except Exception as error:
            logger.debug("MCP server %r: no tool-list subscription (%s)", self.name, error)

    # endregion

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def _checked_protocol_mode(mode: str) -> str:
    """`mode` if the SDK accepts it; checked here so a typo fails at once, not at connect."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    if mode in ("auto", "legacy") or mode in MODERN_PROTOCOL_VERSIONS:
        return mode
    hint = (
        "; a 2025-era version is spoken with protocol_mode='legacy'"
        if mode in HANDSHAKE_PROTOCOL_VERSIONS
        else ""
    )
    raise ValueError(
        f"protocol_mode must be 'auto', 'legacy' or one of {', '.join(MODERN_PROTOCOL_VERSIONS)}, "
        f"not {mode!r}{hint}"
    )


def _requires_task(definition: Tool) -> bool:
    execution = definition.execution
    return execution is not None and execution.task_support == "required"


def _speaks_task_extension(client: Client) -> bool:
    """Whether the connection is a 2026 one, where tasks come through the tasks extension."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return client.protocol_version in MODERN_PROTOCOL_VERSIONS


def _json(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, default=str)
