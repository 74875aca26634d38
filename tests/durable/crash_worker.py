"""A durable worker process for the crash tests (run as a script, not collected by pytest).

    python crash_worker.py DURABLE_URL EFFECTS_URL start    # starts both runs, then hangs
    python crash_worker.py DURABLE_URL EFFECTS_URL resume   # recovers both runs, prints results

DURABLE_URL `default` means the embedded default database.

Two workflows run on the worker:

- `ledger`: `split` fans 20 items out to four workers by index (five each, handled one at
  a time); each worker writes the item's side effect to a table under its idempotency key
  (a second write with the same key does nothing) and notes every attempt in another
  table; `collect` joins the results. In `start` mode, worker `w2` blocks in its third
  item after writing the effect, so a run killed there has that call under way.
- `approval`: asks a person whether to ship an order, and yields the decision.

And one durable agent run, `agent-1`: the (scripted) model asks for the `charge` tool,
which writes its side effect, then answers. In `start` mode its second model call blocks,
so a run killed there has its tool call completed and its final model call under way.

Every line printed is JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import asdict, dataclass
from typing import Any

import sqlalchemy as sa
from typing_extensions import Never

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import DurableRuntime
from agentry.types import ChatOptions, ChatResponse, Message
from agentry.workflows import (
    Executor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    handler,
    response_handler,
)

ITEMS = 20
WORKERS = 4
BLOCK_AT = ("w2", 10)
"""Where a `start` worker blocks: worker w2's third item (items 2, 6, then 10)."""
LEDGER_RUN = "ledger-1"
APPROVAL_RUN = "approval-1"
AGENT_RUN = "agent-1"
DEFAULT = "default"
"""As the durable database: the embedded default (a file in the working directory)."""


@dataclass
class Item:
    index: int


@dataclass
class Done:
    index: int
    value: int
    seen: int


@dataclass
class LedgerTotal:
    indexes: list[int]
    total: int
    seen: list[int]


def emit(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


class SideEffects:
    """The outside system the workers write to: an effects table keyed by idempotency
    key, and a log of every attempt."""

    def __init__(self, url: str) -> None:
        self.engine = sa.create_engine(url)
        with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":
                # Workers start together; CREATE TABLE IF NOT EXISTS races on PostgreSQL.
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(7316)"))
            connection.execute(
                sa.text("CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, value INTEGER)")
            )
            connection.execute(
                sa.text("CREATE TABLE IF NOT EXISTS attempts (key TEXT, pid INTEGER)")
            )
            connection.execute(
                sa.text("CREATE TABLE IF NOT EXISTS agent_calls (kind TEXT, pid INTEGER)")
            )

    def note(self, kind: str) -> None:
        """Note a model or tool call of the agent, with the process that made it."""
        with self.engine.begin() as connection:
            connection.execute(
                sa.text("INSERT INTO agent_calls (kind, pid) VALUES (:kind, :pid)"),
                {"kind": kind, "pid": os.getpid()},
            )

    def write(self, key: str, value: int) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                sa.text("INSERT INTO attempts (key, pid) VALUES (:key, :pid)"),
                {"key": key, "pid": os.getpid()},
            )
            connection.execute(
                sa.text(
                    "INSERT INTO effects (key, value) VALUES (:key, :value) "
                    "ON CONFLICT (key) DO NOTHING"
                ),
                {"key": key, "value": value},
            )

    def close(self) -> None:
        """Close the connections to the outside system."""
        self.engine.dispose()


class Split(Executor):
    @handler
    async def split(self, count: int, ctx: WorkflowContext[Item]) -> None:
        for index in range(count):
            await ctx.send_message(Item(index))


class Worker(Executor):
    """Writes each item's side effect; counts the items it has handled (its state)."""

    def __init__(self, id: str, effects: SideEffects, block: bool) -> None:
        super().__init__(id=id)
        self.effects = effects
        self.block = block
        self.seen = 0

    @handler
    async def work(self, item: Item, ctx: WorkflowContext[Done]) -> None:
        value = item.index * item.index
        self.effects.write(ctx.idempotency_key, value)
        if self.block and (self.id, item.index) == BLOCK_AT:
            emit(event="blocking", key=ctx.idempotency_key)
            await asyncio.Event().wait()  # under way until the process is killed
        self.seen += 1
        await ctx.send_message(Done(item.index, value, self.seen))

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {"seen": self.seen}

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        self.seen = state["seen"]


class Collect(Executor):
    @handler
    async def collect(self, done: list[Done], ctx: WorkflowContext[Never, LedgerTotal]) -> None:
        done = sorted(done, key=lambda d: d.index)
        await ctx.yield_output(
            LedgerTotal([d.index for d in done], sum(d.value for d in done), [d.seen for d in done])
        )


def by_index(item: Item, target_ids: list[str]) -> list[str]:
    return [target_ids[item.index % WORKERS]]


def build_ledger(effects: SideEffects, *, block: bool) -> Workflow:
    split = Split(id="split")
    workers = [Worker(f"w{n}", effects, block) for n in range(WORKERS)]
    collect = Collect(id="collect")
    return (
        WorkflowBuilder(name="ledger", start_executor=split)
        .add_multi_selection_edge_group(split, workers, by_index)
        .add_fan_in_edges(workers, collect)
        .build()
    )


@dataclass
class Order:
    number: int


class Approval(Executor):
    @handler
    async def ask(self, order: Order, ctx: WorkflowContext) -> None:
        await ctx.request_info(order, bool)

    @response_handler
    async def decide(self, order: Order, approved: bool, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"order {order.number}: {'shipped' if approved else 'held'}")


def build_approval() -> Workflow:
    return WorkflowBuilder(name="approval", start_executor=Approval(id="approval")).build()


AGENT_BLOCKED = asyncio.Event()
"""Set when the agent's final model call blocks (in `start` mode)."""


def build_agent(effects: SideEffects, *, block: bool) -> Agent:
    """A cashier: the model asks for `charge`, then says what was charged."""

    @tool
    def charge(cents: int) -> str:
        """Charge the customer."""
        effects.note("tool")
        return f"charged {cents} cents"

    async def model(messages: list[Message], options: ChatOptions) -> ChatResponse:
        effects.note("model")
        results = [c for m in messages for c in m.contents if c.type == "function_result"]
        if not results:
            return ScriptedChatClient.function_call("charge", {"cents": 1200}, call_id="c1")
        if block:
            AGENT_BLOCKED.set()
            await asyncio.Event().wait()  # under way until the process is killed
        return ScriptedChatClient.reply(f"Done: {results[0].result}.")

    client = ScriptedChatClient([model] * 4)
    return Agent(client, name="cashier", tools=[charge])


def runtime_for(durable_url: str, effects: SideEffects, *, block: bool) -> DurableRuntime:
    runtime = DurableRuntime(None if durable_url == DEFAULT else durable_url, takeover_after=None)
    runtime.register(lambda: build_ledger(effects, block=block))
    runtime.register(build_approval)
    runtime.register_agent(build_agent(effects, block=block))
    return runtime


async def wait_until_only_the_blocked_call_is_under_way(runtime: DurableRuntime) -> None:
    """Every handler call of the ledger's fan-out is recorded but the blocked one and the
    two queued behind it on the same worker."""
    from dbos import DBOS

    expected = 1 + ITEMS - 3  # split, and the fan-out but w2's items 10, 14 and 18
    while True:
        steps = await DBOS.list_workflow_steps_async(LEDGER_RUN)
        recorded = [
            s for s in steps if s["function_name"].startswith("agentry.handler:") and s["output"]
        ]
        if len(recorded) >= expected:
            return
        await asyncio.sleep(0.05)


async def start(durable_url: str, effects_url: str) -> None:
    runtime = runtime_for(durable_url, SideEffects(effects_url), block=True)
    async with runtime:
        await runtime.start("ledger", ITEMS, run_id=LEDGER_RUN)
        approval = await runtime.start("approval", Order(7), run_id=APPROVAL_RUN)
        await runtime.start_agent("cashier", "Charge the customer 12 dollars.", run_id=AGENT_RUN)
        requests = await approval.wait_for_requests(timeout=60)
        emit(event="waiting", request_id=requests[0].request_id)
        await wait_until_only_the_blocked_call_is_under_way(runtime)
        await asyncio.wait_for(AGENT_BLOCKED.wait(), 60)
        emit(event="ready")
        await asyncio.Event().wait()  # until the test kills this process


async def resume(durable_url: str, effects_url: str) -> None:
    effects = SideEffects(effects_url)
    runtime = runtime_for(durable_url, effects, block=False)
    async with runtime:
        ledger = await runtime.run(LEDGER_RUN).result(timeout=90)
        approval = await runtime.run(APPROVAL_RUN).result(timeout=90)
        agent = await runtime.agent_run(AGENT_RUN).result(timeout=90)
        emit(
            event="finished",
            ledger=[asdict(o) for o in ledger.get_outputs()],
            approval=approval.get_outputs(),
            agent=agent.text,
        )
    effects.close()


def main(arguments: list[str]) -> None:
    durable, effects_store, mode = arguments
    asyncio.run((start if mode == "start" else resume)(durable, effects_store))


if __name__ == "__main__":
    # Through the module's own name, so that stored type names match the test's.
    from tests.durable import crash_worker

    crash_worker.main(sys.argv[1:])
