"""A plain a2a-sdk agent doing the work of `benchmarks.a2a_load`'s agentry agent: the
baseline of the A2A load benchmark.

Its executor streams the same answer in the same chunks (a `working` status, one artifact
event per chunk, the whole artifact, `completed`), with the SDK's request handler and its
database task store, which writes the task at each event. It gets the same database
engine as `agentry serve a2a` (one SQLite connection in WAL mode, or a PostgreSQL pool),
so both servers hold the same load.

Run with `python -m benchmarks.a2a_plain_server PORT DATABASE`.
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import AsyncGenerator

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import DatabaseTaskStore, TaskUpdater
from a2a.types import Part, Task, TaskState, TaskStatus
from starlette.applications import Starlette

from agentry.a2a import build_agent_card
from agentry.a2a._database import server_engine
from agentry.a2a._serve import DEFAULT_BACKLOG
from agentry.clients.scripted import ScriptedChatClient

ANSWER = "The load benchmark's answer, streamed in small chunks to the client."
CHUNK = 6


class PlainExecutor(AgentExecutor):
    """Streams ANSWER in chunks of CHUNK characters, as the agentry executor does."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        if context.current_task is None and context.message is not None:
            await event_queue.enqueue_event(
                Task(
                    id=task_id,
                    context_id=context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                    history=[context.message],
                )
            )
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.start_work()
        artifact_id = uuid.uuid4().hex
        for start in range(0, len(ANSWER), CHUNK):
            await updater.add_artifact(
                [Part(text=ANSWER[start : start + CHUNK])],
                artifact_id=artifact_id,
                name="response",
                append=start > 0,
                last_chunk=False,
            )
        await updater.add_artifact(
            [Part(text=ANSWER)], artifact_id=artifact_id, name="response", last_chunk=True
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel()


def create_plain_app(database: str, url: str) -> Starlette:
    """The plain a2a-sdk server's ASGI app."""
    engine = server_engine(database, None)
    store = DatabaseTaskStore(engine)
    card = build_agent_card(ScriptedChatClient().as_agent(name="plain"), url=url)
    handler = DefaultRequestHandler(
        agent_executor=PlainExecutor(), task_store=store, agent_card=card
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncGenerator[None, None]:
        await store.initialize()
        yield
        await handler.aclose()
        await engine.dispose()

    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, rpc_url="/"),
        *create_rest_routes(handler),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


if __name__ == "__main__":
    port, database = int(sys.argv[1]), sys.argv[2]
    url = f"http://127.0.0.1:{port}"
    app = create_plain_app(database, url)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=DEFAULT_BACKLOG)
