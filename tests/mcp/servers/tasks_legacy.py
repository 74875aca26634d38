"""An MCP server of the 2025-11-25 task design, speaking JSON-RPC on stdio by hand so
that it can misbehave exactly as a test needs.

Run it as `python tasks_legacy.py STATE_FILE SCENARIO`. Its tasks live in STATE_FILE
(JSON), so a server started again after a lost connection still knows them, and the test
reads there what the servers saw: how many calls were submitted, polls, cancels, the ttl
asked for. The tool `report` declares `taskSupport: "required"` and finishes
`TASK_SECONDS` after it was created; `echo` is an ordinary tool.

Scenarios:
    normal: the design as written.
    ignore: answers task-augmented calls at once, as if it knew nothing of tasks.
    reject-32602 / reject-32601: refuses a `task` field with that error code.
    garbled-create: answers the task-augmented call with nonsense.
    die-on-submit: exits on receiving the task-augmented call, before answering.
    die-once-on-poll: exits on the first `tasks/get` ever (a restarted server answers).
    die-on-poll: exits on every `tasks/get`.
    die-on-poll-no-restart / die-on-poll-hang-restart: die-on-poll, and a restarted
        server exits at once / never answers.
    die-once-on-poll-forgetful: die-once-on-poll, and the restarted server has forgotten
        the task.
    die-once-on-result / die-on-result: exits on the first / every `tasks/result`.
    garbled-poll / refuse-poll: answers `tasks/get` with nonsense / an internal error.
    garbled-poll-refuse-cancel: garbled-poll, and refuses `tasks/cancel` too.
    timeout-poll / timeout-poll-408: answers the first two `tasks/get` with REQUEST_TIMEOUT
        (-32001 / 408).
    slow-poll: answers the first `tasks/get` after two seconds.
    fail / server-cancel / input: the task ends failed / cancelled / needing input.
    tool-error: the task's result is a tool error.
    garbled-result: `tasks/result` answers with nonsense.
    endless: the task never finishes.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

TASK_SECONDS = 0.4
POLL_INTERVAL_MS = 50
STATE = Path(sys.argv[1])
SCENARIO = sys.argv[2] if len(sys.argv) > 2 else "normal"

TOOLS = [
    {
        "name": "report",
        "description": "Write a report on a topic (runs as a task).",
        "inputSchema": {
            "type": "object",
            "properties": {"topic": {"type": "string"}},
            "required": ["topic"],
        },
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "echo",
        "description": "Echo the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
]


def load() -> dict[str, Any]:
    if STATE.exists():
        return json.loads(STATE.read_text())
    return {"submissions": 0, "plain_calls": 0, "starts": 0, "events": [], "tasks": {}}


def save(state: dict[str, Any]) -> None:
    temporary = STATE.with_suffix(".tmp")
    temporary.write_text(json.dumps(state))
    temporary.replace(STATE)


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text_result(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def task_view(task: dict[str, Any]) -> dict[str, Any]:
    view = {
        "taskId": task["id"],
        "status": task["status"],
        "createdAt": "2026-11-23T10:00:00Z",
        "lastUpdatedAt": "2026-11-23T10:00:00Z",
        "ttl": task["ttl"],
        "pollInterval": POLL_INTERVAL_MS,
    }
    if task.get("message"):
        view["statusMessage"] = task["message"]
    return view


def advance(task: dict[str, Any]) -> None:
    """Move a task along the clock, as the scenario says it ends."""
    if task["status"] != "working" or SCENARIO == "endless":
        return
    if time.time() - task["created"] < TASK_SECONDS:
        return
    endings = {
        "fail": ("failed", "the disk is full"),
        "server-cancel": ("cancelled", "an operator stopped it"),
        "input": ("input_required", "which topic did you mean?"),
    }
    task["status"], task["message"] = endings.get(SCENARIO, ("completed", None))


def call_tool(state: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    name = params.get("name")
    arguments: dict[str, Any] = params.get("arguments") or {}
    if "task" not in params:
        state["plain_calls"] += 1
        if name == "echo":
            return {"result": text_result(str(arguments.get("text", "")))}
        return {"result": text_result(f"report on {arguments.get('topic')} (no task)")}
    state["submissions"] += 1
    state["events"].append(f"submit ttl={params['task'].get('ttl')}")
    save(state)
    if SCENARIO == "die-on-submit":
        os._exit(0)
    if SCENARIO.startswith("reject-"):
        code = int(SCENARIO.removeprefix("reject"))
        return {"error": {"code": code, "message": "unknown parameter: task"}}
    if SCENARIO == "ignore":
        return {"result": text_result(f"report on {arguments.get('topic')} (at once)")}
    if SCENARIO == "garbled-create":
        return {"result": {"accepted": True}}
    task_id = f"task-{state['submissions']}"
    task: dict[str, Any] = {
        "id": task_id,
        "status": "working",
        "created": time.time(),
        "ttl": params["task"].get("ttl", 60_000),
        "topic": arguments.get("topic"),
    }
    state["tasks"][task_id] = task
    return {"result": {"task": task_view(task)}}


def poll(state: dict[str, Any], task: dict[str, Any]) -> dict[str, Any] | None:
    polls = sum(1 for event in state["events"] if event.startswith("get"))
    state["events"].append(f"get {task['id']}")
    save(state)
    if SCENARIO.startswith("die-on-poll") or (
        SCENARIO.startswith("die-once-on-poll") and polls == 0
    ):
        os._exit(0)
    if SCENARIO.startswith("garbled-poll"):
        return {"result": {"taskId": task["id"], "status": "thinking"}}
    if SCENARIO == "refuse-poll":
        return {"error": {"code": -32603, "message": "the task store is down"}}
    if SCENARIO.startswith("timeout-poll") and polls < 2:
        code = 408 if SCENARIO.endswith("408") else -32001
        return {"error": {"code": code, "message": "timed out reading the task store"}}
    if SCENARIO == "slow-poll" and polls == 0:
        time.sleep(2)
    advance(task)
    return {"result": task_view(task)}


def task_result(task: dict[str, Any]) -> dict[str, Any]:
    if SCENARIO == "garbled-result":
        return {"result": {"report": "somewhere"}}
    if SCENARIO == "tool-error":
        return {"result": text_result("the sources were unreachable", error=True)}
    return {"result": text_result(f"report on {task['topic']}")}


def answer(state: dict[str, Any], method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    if method == "initialize":
        capabilities: dict[str, Any] = {
            "tools": {},
            "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
        }
        return {
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "serverInfo": {"name": "tasks-legacy", "version": "1"},
            }
        }
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        return call_tool(state, params)
    task = state["tasks"].get(params.get("taskId"))
    if method in ("tasks/get", "tasks/result", "tasks/cancel") and task is None:
        return {"error": {"code": -32602, "message": "Failed to retrieve task: not found"}}
    if method == "tasks/get":
        return poll(state, task)
    if method == "tasks/result":
        results = sum(1 for event in state["events"] if event.startswith("result"))
        state["events"].append(f"result {task['id']}")
        save(state)
        if SCENARIO == "die-on-result" or (SCENARIO == "die-once-on-result" and results == 0):
            os._exit(0)
        return task_result(task)
    if method == "tasks/cancel":
        state["events"].append(f"cancel {task['id']}")
        if SCENARIO == "garbled-poll-refuse-cancel":
            return {"error": {"code": -32603, "message": "cannot cancel now"}}
        task["status"] = "cancelled"
        return {"result": task_view(task)}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def main() -> None:
    state = load()
    state["starts"] += 1
    if state["starts"] > 1 and SCENARIO == "die-once-on-poll-forgetful":
        state["tasks"] = {}
    save(state)
    if state["starts"] > 1 and SCENARIO == "die-on-poll-no-restart":
        sys.exit(1)
    if state["starts"] > 1 and SCENARIO == "die-on-poll-hang-restart":
        time.sleep(3600)
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # notifications and answers
        state = load()
        reply = answer(state, message["method"], message.get("params") or {})
        save(state)
        if reply is not None:
            send({"jsonrpc": "2.0", "id": message["id"], **reply})


if __name__ == "__main__":
    main()
