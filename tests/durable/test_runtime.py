"""A durable runtime in this process, on SQLite: runs, steps, requests, errors, storage."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typing_extensions import Never

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import (
    DurableRun,
    DurableRunError,
    DurableRunFailedError,
    DurableRuntime,
    JSONSerializer,
)
from agentry.durable._runtime import DATABASE_URL_ENV, database_url_of
from agentry.storage import DATABASE_URL_ENV as SHARED_DATABASE_URL_ENV
from agentry.workflows import (
    Executor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    WorkflowRunnerException,
    WorkflowRunState,
    executor,
    handler,
    response_handler,
)


@dataclass
class Item:
    index: int


@dataclass
class Tally:
    total: int
    counts: list[int]


KEYS: list[str] = []
"""The idempotency keys `Square` saw."""


class Square(Executor):
    """Squares items and counts them (state saved with each step)."""

    def __init__(self) -> None:
        super().__init__(id="square")
        self.count = 0

    @handler
    async def square(self, item: Item, ctx: WorkflowContext[int]) -> None:
        self.count += 1
        KEYS.append(ctx.idempotency_key)
        ctx.set_state(f"square-{item.index}", self.count)
        await ctx.send_message(item.index * item.index)

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {"count": self.count}

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self.count = state["count"]


def build_squares() -> Workflow:
    @executor(id="split")
    async def split(count: int, ctx: WorkflowContext[Item]) -> None:
        for index in range(count):
            await ctx.send_message(Item(index))

    @executor(id="total")
    async def total(values: list[int], ctx: WorkflowContext[Never, Tally]) -> None:
        await ctx.yield_output(Tally(sum(values), sorted(ctx.get_state(k) for k in _keys(ctx))))

    square = Square()
    return (
        WorkflowBuilder(name="squares", start_executor=split)
        .add_edge(split, square)
        .add_fan_in_edges([square], total)
        .build()
    )


def _keys(ctx: WorkflowContext[Any, Any]) -> list[str]:
    return [f"square-{i}" for i in range(10) if ctx.has_state(f"square-{i}")]


class Approval(Executor):
    @handler
    async def ask(self, order: str, ctx: WorkflowContext) -> None:
        await ctx.request_info(order, bool, request_id=f"approve-{order}")

    @response_handler
    async def decide(self, order: str, approved: bool, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{order}: {'yes' if approved else 'no'}")


def build_approval() -> Workflow:
    return WorkflowBuilder(name="approval", start_executor=Approval(id="approval")).build()


def build_broken() -> Workflow:
    @executor(id="fragile")
    async def fragile(text: str, ctx: WorkflowContext) -> None:
        raise ValueError(f"cannot take {text!r}")

    return WorkflowBuilder(name="broken", start_executor=fragile).build()


def build_spread() -> Workflow:
    @executor(id="split")
    async def split(count: int, ctx: WorkflowContext[Item]) -> None:
        for index in range(count):
            await ctx.send_message(Item(index))

    @executor(id="cube")
    async def cube(item: Item, ctx: WorkflowContext[int]) -> None:
        await ctx.send_message(item.index**3)

    @executor(id="total")
    async def total(values: list[int], ctx: WorkflowContext[Never, list[int]]) -> None:
        await ctx.yield_output(values)

    return (
        WorkflowBuilder(name="spread", start_executor=split)
        .add_edge(split, cube)
        .add_fan_in_edges([cube], total)
        .build()
    )


TOOL_CALLS: list[str] = []


def build_adder() -> Agent:
    """A scripted model that asks for two tools at once, then answers."""

    @tool
    async def slow_add(a: int, b: int) -> int:
        """Add two numbers, slowly."""
        await asyncio.sleep(0.05)  # finishes after fast_add: the steps keep the call order
        TOOL_CALLS.append("slow_add")
        return a + b

    @tool
    def fast_add(a: int, b: int) -> int:
        """Add two numbers."""
        TOOL_CALLS.append("fast_add")
        return a + b

    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("slow_add", {"a": 2, "b": 3}, "c1"), ("fast_add", {"a": 1, "b": 1}, "c2")]
            ),
            "2 + 3 = 5 and 1 + 1 = 2.",
        ]
    )
    return Agent(client, name="adder", tools=[slow_add, fast_add])


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DurableRuntime]:
    database = tmp_path_factory.mktemp("durable") / "runs.sqlite"
    runtime = DurableRuntime(database)
    for factory in (build_squares, build_approval, build_broken):
        runtime.register(factory)
    runtime.register(build_spread, distributed=["cube"])
    runtime.register_agent(build_adder())
    asyncio.run(runtime.launch())
    try:
        yield runtime
    finally:
        runtime.shutdown()


async def test_a_durable_run_has_the_output_of_an_in_process_run(runtime: DurableRuntime) -> None:
    expected = (await build_squares().run(4)).get_outputs()
    KEYS.clear()
    run = await runtime.start("squares", 4)
    result = await run.result(timeout=60)
    assert result.get_outputs() == expected == [Tally(14, [1, 2, 3, 4])]
    assert await run.status() == "SUCCESS"
    assert [f"{run.run_id}/2/square/{i}" for i in range(4)] == KEYS


async def test_each_handler_call_is_one_step_and_only_json_is_stored(
    runtime: DurableRuntime,
) -> None:
    from dbos import DBOS

    run = await runtime.start("squares", 2)
    await run.result(timeout=60)
    steps = await DBOS.list_workflow_steps_async(run.run_id)
    assert [s["function_name"] for s in steps] == [
        "agentry.handler:split",
        "agentry.handler:square",
        "agentry.handler:square",
        "agentry.handler:total",
    ]
    database = runtime.database_url.removeprefix("sqlite:///")
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT output, serialization FROM operation_outputs WHERE workflow_uuid = ?",
            (run.run_id,),
        ).fetchall()
        (inputs,) = connection.execute(
            "SELECT inputs FROM workflow_input WHERE workflow_uuid = ?", (run.run_id,)
        ).fetchone()
    assert {serialization for _, serialization in rows} == {"agentry_json"}
    for output, _ in rows:
        json.loads(output)
    assert json.loads(inputs)["args"][2] == 2


async def test_calls_of_a_distributed_executor_run_as_queued_workflows(
    runtime: DurableRuntime,
) -> None:
    from dbos import DBOS

    run = await runtime.start("spread", 4, run_id="spread-1")
    assert (await run.result(timeout=60)).get_outputs() == [[0, 1, 8, 27]]
    calls = await DBOS.list_workflows_async(queue_name="agentry.handlers")
    mine = sorted(c.workflow_id for c in calls if c.workflow_id.startswith("spread-1/"))
    assert mine == [f"spread-1/2/cube/{i}" for i in range(4)]
    assert {c.status for c in calls if c.workflow_id in mine} == {"SUCCESS"}


def test_only_executors_of_the_workflow_can_be_distributed(runtime: DurableRuntime) -> None:
    with pytest.raises(DurableRunError, match=r"has no executors \['nowhere'\] to distribute"):
        DurableRuntime().register(build_spread, distributed=["nowhere"])


async def test_an_agent_run_records_each_model_call_and_tool_call(
    runtime: DurableRuntime,
) -> None:
    from dbos import DBOS

    run = await runtime.start_agent("adder", "Add 2 and 3, and 1 and 1.", run_id="adder-1")
    response = await run.result(timeout=60)
    assert response.text == "2 + 3 = 5 and 1 + 1 = 2."
    assert await run.status() == "SUCCESS"
    assert TOOL_CALLS == ["fast_add", "slow_add"]
    steps = await DBOS.list_workflow_steps_async("adder-1")
    assert [s["function_name"] for s in steps] == [
        "agentry.model",
        "agentry.tool:slow_add",
        "agentry.tool:fast_add",
        "agentry.model",
    ]
    with pytest.raises(DurableRunError, match="no agent named 'nobody' is registered"):
        await runtime.start_agent("nobody", "hi")
    with pytest.raises(DurableRunError, match="a durable agent needs a name"):
        runtime.register_agent(Agent(ScriptedChatClient([])))


async def test_a_request_waits_and_the_answer_finishes_the_run(runtime: DurableRuntime) -> None:
    run = await runtime.start("approval", "order-1")
    (request,) = await run.wait_for_requests(timeout=60)
    assert (request.request_id, request.data, request.response_type) == (
        "approve-order-1",
        "order-1",
        bool,
    )
    with pytest.raises(WorkflowRunnerException, match="must be a bool, not a int"):
        await run.send_response("approve-order-1", 1)
    await run.send_response("approve-order-1", True)
    assert (await run.result(timeout=60)).get_outputs() == ["order-1: yes"]
    assert await run.pending_requests() == []
    with pytest.raises(DurableRunError, match="answered already, or never asked"):
        await run.send_response("approve-order-1", False)


async def test_starting_with_the_id_of_a_run_returns_that_run(runtime: DurableRuntime) -> None:
    first = await runtime.start("squares", 3, run_id="squares-fixed")
    again = await runtime.start("squares", 3, run_id="squares-fixed")
    assert again.run_id == first.run_id == "squares-fixed"
    assert (await again.result(timeout=60)).get_outputs() == [Tally(5, [1, 2, 3])]
    assert isinstance(runtime.run("squares-fixed"), DurableRun)


async def test_a_failing_handler_fails_the_run_with_its_error(runtime: DurableRuntime) -> None:
    run = await runtime.start("broken", "data")
    with pytest.raises(DurableRunFailedError, match="ValueError: cannot take 'data'") as caught:
        await run.result(timeout=60)
    assert caught.value.executor_id == "fragile"
    assert await run.status() == "ERROR"


async def test_bad_starts_are_refused_with_what_to_do(runtime: DurableRuntime) -> None:
    with pytest.raises(DurableRunError, match="no workflow named 'nothing' is registered"):
        await runtime.start("nothing", 1)
    with pytest.raises(WorkflowRunnerException, match="has no handler for a str input"):
        await runtime.start("squares", "three")
    with pytest.raises(DurableRunError, match="no durable run with id 'unknown'"):
        await runtime.run("unknown").status()


def test_a_run_of_a_changed_workflow_is_refused(runtime: DurableRuntime) -> None:
    with pytest.raises(DurableRunError, match="another version of workflow 'squares'"):
        runtime.build("squares", "0" * 64)


def test_register_takes_a_factory_and_one_workflow_per_name(runtime: DurableRuntime) -> None:
    with pytest.raises(TypeError, match="takes a function that builds the workflow"):
        runtime.register(build_squares())  # pyright: ignore[reportArgumentType]
    with pytest.raises(DurableRunError, match="named 'squares' is registered already"):
        runtime.register(lambda: build_squares())
    assert runtime.register(build_squares) == "squares"


async def test_one_runtime_per_process_is_launched(runtime: DurableRuntime, tmp_path: Path) -> None:
    other = DurableRuntime(tmp_path / "other.sqlite")
    with pytest.raises(DurableRunError, match="another DurableRuntime is launched"):
        await other.launch()


async def test_a_runtime_that_is_not_launched_queues_runs_for_a_worker(
    runtime: DurableRuntime,
) -> None:
    client = DurableRuntime(runtime.database_url)
    client.register(build_squares)
    try:
        run = await client.start("squares", 2, run_id="queued-squares")
        assert (await run.result(timeout=60)).get_outputs() == [Tally(1, [1, 2])]
        with pytest.raises(WorkflowRunnerException, match="has no handler for a str input"):
            await client.start("squares", "two")
    finally:
        client.shutdown()


def test_the_database_is_one_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    monkeypatch.delenv(SHARED_DATABASE_URL_ENV, raising=False)
    assert database_url_of(None) == "sqlite:///agentry-durable.sqlite"
    assert database_url_of(tmp_path / "a.sqlite") == f"sqlite:///{tmp_path / 'a.sqlite'}"
    assert database_url_of("postgresql://db.internal/app") == "postgresql://db.internal/app"
    monkeypatch.setenv(SHARED_DATABASE_URL_ENV, "postgresql://shared/all")
    assert DurableRuntime().database_url == "postgresql://shared/all"
    monkeypatch.setenv(DATABASE_URL_ENV, "postgresql://elsewhere/runs")
    assert DurableRuntime().database_url == "postgresql://elsewhere/runs"


def test_the_serializer_stores_json_only_and_errors_as_records() -> None:
    serializer = JSONSerializer()
    assert serializer.deserialize(serializer.serialize({"a": [1, "b", None]})) == {
        "a": [1, "b", None]
    }
    with pytest.raises(TypeError, match="only JSON goes into the durable database"):
        serializer.serialize(Item(1))
    error = serializer.deserialize(serializer.serialize(ValueError("bad input")))
    assert isinstance(error, DurableRunFailedError)
    assert (error.error_type, str(error)) == ("ValueError", "bad input")


def test_importing_agentry_durable_loads_no_database_driver_until_used() -> None:
    code = (
        "import sys, agentry, agentry.durable\n"
        "print(sorted(m for m in ('dbos', 'psycopg', 'asyncpg') if m in sys.modules))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


async def test_a_followed_run_reports_each_recorded_call_once(runtime: DurableRuntime) -> None:
    run = await runtime.start("approval", "order-9", run_id="followed-approval")
    events: list[WorkflowEvent[Any]] = []
    async for event in run.stream():
        events.append(event)
        if event.type == "request_info":
            assert event.request_id is not None
            await run.send_response(event.request_id, False)
    assert [(e.type, e.executor_id) for e in events] == [
        ("executor_invoked", "approval"),
        ("request_info", "approval"),
        ("executor_completed", "approval"),
        ("executor_invoked", "approval"),
        ("output", "approval"),
        ("executor_completed", "approval"),
        ("status", None),
    ]
    assert events[1].data == "order-9"
    assert events[1].response_type is bool
    assert events[4].data == "order-9: no"
    assert events[-1].state == WorkflowRunState.IDLE
    again = [e.type async for e in runtime.run("followed-approval").stream()]
    assert again == [e.type for e in events]  # read back from the records, from the start


async def test_a_followed_run_that_fails_ends_with_its_error(runtime: DurableRuntime) -> None:
    run = await runtime.start("broken", "data")
    events: list[WorkflowEvent[Any]] = []

    async def follow() -> None:
        async for event in run.stream():
            events.append(event)

    with pytest.raises(DurableRunFailedError, match="cannot take 'data'"):
        await follow()
    assert [e.type for e in events] == [
        "executor_invoked",
        "executor_failed",
        "failed",
        "status",
    ]
    assert events[1].details is not None
    assert events[1].details.error_type == "ValueError"
    assert events[-1].state == WorkflowRunState.FAILED
