"""`create_app`: an ASGI application serving an agentry agent over A2A."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a.server.agent_execution import RequestContext, SimpleRequestContextBuilder
from a2a.server.cluster import TaskEventStream, VersionedTaskStore
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import DatabaseTaskStore, InMemoryTaskStore, TaskStore
from a2a.types import AgentCard, SendMessageRequest, Task, TaskState
from a2a.utils.errors import InvalidParamsError
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.applications import Starlette
from starlette.routing import BaseRoute
from typing_extensions import override

from agentry.a2a._authorizations import CREDENTIALS_STATE_KEY, withhold_credentials
from agentry.a2a._card import DEFAULT_CARD_CACHE_CONTROL, build_agent_card, card_routes
from agentry.a2a._coalescing import CoalescingTaskStore
from agentry.a2a._database import server_engine
from agentry.a2a._errors import A2AConfigError
from agentry.a2a._executor import NO_CONTENT_MESSAGE, AgentryAgentExecutor
from agentry.a2a._leases import ServerLease, SingleServerEvents
from agentry.a2a._limits import BodySizeLimit
from agentry.a2a._media_types import UnsupportedMediaTypeGuard
from agentry.a2a._parts import parts_to_contents
from agentry.a2a._replies import ReplyMode, check_reply_mode
from agentry.a2a._sessions import DEFAULT_DATABASE, ContextSessionStore, InMemoryContextSessionStore
from agentry.a2a._task_store import A2AStores, resolve_database
from agentry.agents import SupportsAgentRun
from agentry.storage import PoolSettings

if TYPE_CHECKING:
    from agentry.durable import DurableRuntime

__all__ = ["A2AApp", "create_app"]


_JSONRPC_PATH = "/"


class A2AApp(BodySizeLimit):
    """The ASGI application `create_app` returns.

    Attributes:
        agent_card: The card the server publishes.
        executor: The executor running the agent.
        request_handler: The A2A request handler.
        starlette: The inner Starlette application (routes, lifespan).
    """

    def __init__(
        self,
        starlette: Starlette,
        *,
        agent_card: AgentCard,
        executor: AgentryAgentExecutor,
        request_handler: DefaultRequestHandler,
        max_request_bytes: int,
    ) -> None:
        super().__init__(
            UnsupportedMediaTypeGuard(starlette, jsonrpc_path=_JSONRPC_PATH),
            max_bytes=max_request_bytes,
            jsonrpc_path=_JSONRPC_PATH,
        )
        self.starlette = starlette
        self.agent_card = agent_card
        self.executor = executor
        self.request_handler = request_handler

    def complete_authorization(
        self, task_id: str | None = None, *, request_id: str | None = None
    ) -> bool:
        """Say that the out-of-band authorization a task waits for is done (see
        :meth:`AgentryAgentExecutor.complete_authorization`)."""
        return self.executor.complete_authorization(task_id, request_id=request_id)


class _TaskContextBuilder(SimpleRequestContextBuilder):
    """Refuses a message without content, gives a follow-up message that names only its
    task the task's own context id, and prepares a message to a task in `auth-required`.

    The refusal comes before the server creates or touches a task, so a refused message
    leaves no task behind and a waiting task keeps waiting. Without the context id, such
    a follow-up gets a fresh one, which conflicts with the stored task once the server has
    restarted. A message to a task waiting for authorization has its credentials taken out
    before the SDK stores it (they reach the run through the call's state), and makes a run
    waiting for an out-of-band authorization step aside so that the message can run.
    """

    def __init__(self, task_store: VersionedTaskStore, executor: AgentryAgentExecutor) -> None:
        super().__init__(task_store=None)
        self._tasks = task_store
        self._executor = executor

    @override
    async def build(
        self,
        context: ServerCallContext,
        params: SendMessageRequest | None = None,
        task_id: str | None = None,
        context_id: str | None = None,
        task: Task | None = None,
    ) -> RequestContext:
        if params is not None and not parts_to_contents(params.message.parts):
            raise InvalidParamsError(message=NO_CONTENT_MESSAGE)
        found = await self._tasks.get(task_id, context) if task_id else None
        stored = found.task if found is not None else None
        if stored is not None and not context_id and stored.context_id:
            context_id = stored.context_id
        if (
            params is not None
            and stored is not None
            and stored.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
        ):
            context.state[CREDENTIALS_STATE_KEY] = withhold_credentials(params.message)
            self._executor.stop_waiting(stored.id)
        return await super().build(
            context, params=params, task_id=task_id, context_id=context_id, task=task
        )


def create_app(
    agent: SupportsAgentRun,
    *,
    url: str = "http://127.0.0.1:8000",
    agent_card: AgentCard | None = None,
    database: str | Path | None = DEFAULT_DATABASE,
    pool: PoolSettings | None = None,
    task_store: TaskStore | None = None,
    sessions: ContextSessionStore | None = None,
    max_request_bytes: int = 10 * 1024 * 1024,
    idle_task_timeout: float | None = 600.0,
    reply_with: ReplyMode = "task",
    card_cache_control: str | None = DEFAULT_CARD_CACHE_CONTROL,
    card_last_modified: datetime | None = None,
    routes: Sequence[BaseRoute] = (),
    lease_duration: float = 15.0,
    cancel_poll_interval: float = 1.0,
    chunk_write_interval: float | None = None,
    durable: DurableRuntime | None = None,
    **card_options: Any,
) -> A2AApp:
    """An ASGI app serving `agent` over A2A, with the JSON-RPC and HTTP+JSON bindings.

    The agent card is served at `/.well-known/agent-card.json`, JSON-RPC at `/`, and the
    HTTP+JSON binding at `/message:send`, `/tasks/{id}` and the other paths of the
    protocol. Tasks and conversations are kept in `database` (a SQLite file, or
    PostgreSQL by URL), so a restarted server, or another server on the same database,
    still answers for earlier tasks and contexts.

    Args:
        agent: The agent to serve (any agentry agent, or a workflow's `as_agent()`).
        url: The public base URL of the server, published in the agent card.
        agent_card: A card to publish instead of the one built from the agent.
        database: Where tasks and sessions are kept: a SQLite file path, or a database URL
            (`postgresql://user@host/db`); `None` keeps them in memory. The default file,
            `agentry-a2a.sqlite`, gives way to `$AGENTRY_DATABASE_URL` when that is set.
            The tables are versioned (see `agentry.storage`); a database written by a
            newer agentry is refused when the app starts.
        pool: The connection pool for `database` (default: one connection for SQLite,
            which allows one writer; ten and ten more under load for PostgreSQL; requests
            wait up to ten minutes for a connection).
        task_store: A task store to use instead of the one `database` selects.
        sessions: A session store to use instead of the one `database` selects.
        max_request_bytes: Larger request bodies are refused with HTTP 413.
        idle_task_timeout: Seconds after which a task waiting for input stops holding
            memory (the user's answer still resumes it from the store), and after which a
            run waiting for an out-of-band authorization stops waiting (the next message
            on the task tries again). `None` keeps waiting tasks in memory.
        reply_with: `"task"` answers every message with a task; `"message"` answers a
            new message with one bare A2A message, and with a task only when the run
            needs the user's input or fails.
        card_cache_control: The agent card's `Cache-Control` header (five minutes of
            public caching by default); `None` sends none. The card always has an `ETag`.
        card_last_modified: The agent card's `Last-Modified` time (default: when the app
            was created).
        routes: Starlette routes of your own, matched before the protocol's, such as the
            OAuth callback that calls :meth:`A2AApp.complete_authorization`.
        lease_duration: Seconds after which a server sharing `database` that stopped
            renewing its lease counts as dead: the tasks it left running are failed.
        cancel_poll_interval: Seconds between checks for tasks running here that were
            canceled through another server sharing `database`.
        chunk_write_interval: While a task's answer streams, its chunks are written to
            the store with the task's next status change or closing artifact (the client
            still gets every chunk as it comes); a number of seconds also writes them
            when that long has passed since the task's last write, so that other servers
            see the answer grow (0 writes each chunk). Under load each chunk comes later,
            so an interval writes more often just when the store is busiest.
        durable: Run each task as a durable agent run in this runtime (`agentry.durable`),
            which the app launches and shuts down with itself: a task whose server dies
            is then resumed by another server sharing `database` (the run goes on from
            its last completed step) instead of failed. Give each server its own
            `worker_id`.
        **card_options: Passed to :func:`build_agent_card` (name, description, skills...).

    Returns:
        The ASGI application; run it with any ASGI server, such as uvicorn.

    Raises:
        A2AConfigError: Both `agent_card` and card options were given, a limit is not
            positive, `reply_with` is neither `"task"` nor `"message"`, or `durable` is
            given with an agent that is not an `Agent`.
        StorageConfigError: `database` is not a database URL.

    Example:
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> agent = ScriptedChatClient(["Hello!"]).as_agent(name="greeter")
        >>> app = create_app(agent, database=None)
        >>> app.agent_card.name
        'greeter'
    """
    if agent_card is not None and card_options:
        raise A2AConfigError(
            f"create_app got agent_card= and card options {sorted(card_options)}; put "
            "those fields in the card, or drop agent_card= to have the card built"
        )
    if max_request_bytes <= 0:
        raise A2AConfigError(f"max_request_bytes must be positive, got {max_request_bytes}")
    if idle_task_timeout is not None and idle_task_timeout <= 0:
        raise A2AConfigError(f"idle_task_timeout must be positive, got {idle_task_timeout}")
    reply_with = check_reply_mode(reply_with)
    card = agent_card or build_agent_card(agent, url=url, **card_options)
    if chunk_write_interval is not None and chunk_write_interval < 0:
        raise A2AConfigError(
            f"chunk_write_interval must not be negative, got {chunk_write_interval}"
        )
    if lease_duration <= 0 or cancel_poll_interval <= 0:
        raise A2AConfigError(
            "lease_duration and cancel_poll_interval must be positive, got "
            f"{lease_duration} and {cancel_poll_interval}"
        )
    database = resolve_database(database)
    stores: A2AStores | None = None
    if database is not None and (task_store is None or sessions is None):
        stores = A2AStores(database, pool=pool)
    base_store: TaskStore | VersionedTaskStore
    events: TaskEventStream = SingleServerEvents()
    if task_store is not None:
        base_store = task_store
    elif stores is None:
        base_store = InMemoryTaskStore()
    else:
        base_store = stores.tasks
        events = stores.events
    store = CoalescingTaskStore(base_store, interval=chunk_write_interval)
    if sessions is None:
        sessions = InMemoryContextSessionStore() if stores is None else stores.sessions
    executor = AgentryAgentExecutor(
        agent,
        sessions=sessions,
        reply_with=reply_with,
        out_of_band_wait=idle_task_timeout,
        durable=durable,
    )
    handler = DefaultRequestHandler(
        agent_executor=executor,
        task_store=store,
        agent_card=card,
        request_context_builder=_TaskContextBuilder(store, executor),
        validate_input_modes=True,
        event_stream=events,
        interrupted_task_timeout=idle_task_timeout,
    )
    lease: ServerLease | None = None
    lease_engine: AsyncEngine | None = None
    if database is not None and stores is not None and base_store is stores.tasks:
        # A connection of its own: renewals must not queue behind a burst of requests.
        lease_engine = server_engine(database, PoolSettings(size=1, max_overflow=0))
        lease = ServerLease(
            lease_engine,
            stores.tasks.table,
            store,
            executor,
            lease=lease_duration,
            cancel_poll=cancel_poll_interval,
        )

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncGenerator[None, None]:
        # What start-up opened is closed even when a later step fails (a database on a
        # newer schema, say), so a server that refuses to start leaves nothing running.
        async with contextlib.AsyncExitStack() as opened:
            if durable is not None:
                await durable.launch()
                opened.callback(durable.shutdown)
            if lease_engine is not None:
                opened.push_async_callback(lease_engine.dispose)
            if stores is not None:
                opened.push_async_callback(stores.close)
                await stores.start()
            elif isinstance(base_store, DatabaseTaskStore):
                await base_store.initialize()
            if lease is not None:
                await lease.start()
            try:
                yield
            finally:
                if lease is not None:
                    await lease.release()
                await handler.aclose()
                if lease is not None:
                    await lease.sweep()

    all_routes = [
        *routes,
        *card_routes(
            card,
            cache_control=card_cache_control,
            last_modified=card_last_modified or datetime.now(timezone.utc),
        ),
        *create_jsonrpc_routes(handler, rpc_url=_JSONRPC_PATH),
        *create_rest_routes(handler),
    ]
    starlette = Starlette(routes=all_routes, lifespan=lifespan)
    return A2AApp(
        starlette,
        agent_card=card,
        executor=executor,
        request_handler=handler,
        max_request_bytes=max_request_bytes,
    )
