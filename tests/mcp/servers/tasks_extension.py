"""An MCP server of the 2026 protocol that runs some tool calls as tasks, through the
tasks extension (`io.modelcontextprotocol/tasks`): `tasks/get`, `tasks/update`,
`tasks/cancel`.

Run it with `python tasks_extension.py` (stdio) or `python tasks_extension.py http PORT`.
Tools made tasks: `research` (works for `seconds`, then reports), `interview` (asks the
client's model a question through `inputRequests`, then reports the answer), `doomed`
(fails), `abandoned` (the server cancels it), `garbled` (its `tasks/get` answers are
nonsense), `misshapen` (answers with a task that is not one), `instant` (done when
created) and `endless` (runs until cancelled). `tasks_log` tells what the server saw.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver.server import require_client_extension
from mcp_types import INVALID_PARAMS, CallToolRequestParams, RequestParams

from mcp import MCPError

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 50


@dataclass
class RemoteTask:
    task_id: str
    tool: str
    status: str = "working"
    message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    questions: dict[str, Any] = field(default_factory=dict)
    answers: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    worker: asyncio.Task[None] | None = None
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())

    def wire(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created,
            "lastUpdatedAt": datetime.now(timezone.utc).isoformat(),
            "ttlMs": 60_000,
            "pollIntervalMs": POLL_MS,
        }
        if self.message:
            state["statusMessage"] = self.message
        if self.status == "completed":
            state["result"] = self.result
        if self.status == "failed":
            state["error"] = self.error
        if self.status == "input_required":
            state["inputRequests"] = self.questions
        return state


tasks: dict[str, RemoteTask] = {}
log: list[str] = []
numbers = itertools.count(1)


def text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


async def work(task: RemoteTask, arguments: dict[str, Any]) -> None:
    if task.tool == "research":
        await asyncio.sleep(float(arguments.get("seconds", 0.2)))
        task.result = text_result(f"report on {arguments.get('topic', '?')}")
        task.status = "completed"
    elif task.tool == "interview":
        key = f"question-{task.task_id}"
        task.questions = {
            key: {
                "method": "sampling/createMessage",
                "params": {
                    "messages": [
                        {"role": "user", "content": {"type": "text", "text": "Your name?"}}
                    ],
                    "maxTokens": 50,
                },
            }
        }
        task.status = "input_required"
        answers = await task.answers.get()
        reply = answers[key]["content"]["text"]
        task.questions = {}
        task.status = "working"
        await asyncio.sleep(0.05)
        task.result = text_result(f"the model is called {reply}")
        task.status = "completed"
    elif task.tool == "doomed":
        await asyncio.sleep(0.1)
        task.error = {"code": -32603, "message": "the disk is full"}
        task.message = "Tool execution failed: the disk is full"
        task.status = "failed"
    elif task.tool == "abandoned":
        await asyncio.sleep(0.1)
        task.message = "an operator stopped it"
        task.status = "cancelled"
    else:  # endless and garbled
        await asyncio.Event().wait()


class Tasks(Extension):
    identifier = TASKS

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        if params.name not in TASK_TOOLS:
            return await call_next(ctx)
        require_client_extension(ctx, TASKS)
        if params.name == "misshapen":
            log.append("created a misshapen task")
            return {"resultType": "task", "status": "pondering"}
        task = RemoteTask(task_id=f"task-{next(numbers)}", tool=params.name)
        tasks[task.task_id] = task
        log.append(f"created {task.task_id} for {params.name}")
        if params.name == "instant":  # done before the client even hears of it
            task.result, task.status = text_result("done at once"), "completed"
        else:
            task.worker = asyncio.get_running_loop().create_task(work(task, params.arguments or {}))
        created = task.wire()
        created.pop("result", None)  # a creation answer never carries the result
        created["resultType"] = "task"
        return created

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskIdParams, self.get),
            MethodBinding("tasks/update", UpdateParams, self.update),
            MethodBinding("tasks/cancel", TaskIdParams, self.cancel),
        ]

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> HandlerResult:
        task = known(params.task_id)
        log.append(f"get {task.task_id}")
        check_routing_header(ctx, task.task_id)
        if task.tool == "garbled":
            return {"taskId": task.task_id, "status": "pondering"}
        return task.wire()

    async def update(
        self, ctx: ServerRequestContext[Any, Any], params: UpdateParams
    ) -> HandlerResult:
        task = known(params.task_id)
        log.append(f"update {task.task_id} {sorted(params.input_responses)}")
        check_routing_header(ctx, task.task_id)
        task.answers.put_nowait(params.input_responses)
        return {}

    async def cancel(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> HandlerResult:
        task = known(params.task_id)
        log.append(f"cancel {task.task_id}")
        check_routing_header(ctx, task.task_id)
        if task.worker is not None:
            task.worker.cancel()
        if task.status not in ("completed", "failed", "cancelled"):
            task.status = "cancelled"
        return {}


class TaskIdParams(RequestParams):
    task_id: str


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any]


def check_routing_header(ctx: ServerRequestContext[Any, Any], task_id: str) -> None:
    """Over HTTP, tasks/* requests must name their task in the `Mcp-Name` header."""
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return  # stdio: no headers
    if headers.get("mcp-name") != task_id:
        log.append(f"bad Mcp-Name header {headers.get('mcp-name')!r} for {task_id}")
        raise MCPError(code=INVALID_PARAMS, message="Mcp-Name must carry the taskId")
    if f"routed {task_id}" not in log:
        log.append(f"routed {task_id}")


def known(task_id: str) -> RemoteTask:
    if task_id not in tasks:
        raise MCPError(code=INVALID_PARAMS, message=f"Failed to retrieve task: {task_id} not found")
    return tasks[task_id]


server = MCPServer("tasks-extension", extensions=[Tasks()])
TASK_TOOLS = {
    "research",
    "interview",
    "doomed",
    "abandoned",
    "garbled",
    "endless",
    "misshapen",
    "instant",
}


@server.tool()
def research(topic: str, seconds: float = 0.2) -> str:
    """Research a topic (runs as a task)."""
    return f"report on {topic}"


@server.tool()
def interview() -> str:
    """Ask the client's model its name (runs as a task)."""
    return "not run as a task"


@server.tool()
def doomed() -> str:
    """A task that fails."""
    return "not run as a task"


@server.tool()
def abandoned() -> str:
    """A task the server cancels."""
    return "not run as a task"


@server.tool()
def garbled() -> str:
    """A task whose state makes no sense."""
    return "not run as a task"


@server.tool()
def endless() -> str:
    """A task that never ends."""
    return "not run as a task"


@server.tool()
def misshapen() -> str:
    """Answers with a task that is not one."""
    return "not run as a task"


@server.tool()
def instant() -> str:
    """A task that is done when it is created."""
    return "not run as a task"


@server.tool()
def quick(text: str) -> str:
    """Answers at once (never a task)."""
    return text.upper()


@server.tool()
def tasks_log() -> str:
    """What the server saw of tasks, one event a line."""
    return "\n".join(log)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
