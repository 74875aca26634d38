"""A changed workflow does not touch the runs of the version before it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typing_extensions import Never

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import DurableRun, DurableRunError, DurableRuntime, WorkflowFactory
from agentry.workflows import (
    Executor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    executor,
    handler,
    response_handler,
)


class Approval(Executor):
    @handler
    async def ask(self, order: str, ctx: WorkflowContext) -> None:
        await ctx.request_info(order, bool, request_id="ship")

    @response_handler
    async def decide(self, order: str, ship: bool, ctx: WorkflowContext[str, str]) -> None:
        await ctx.yield_output(f"{order}: {'shipped' if ship else 'held'}")


def build_first() -> Workflow:
    return WorkflowBuilder(name="orders", start_executor=Approval(id="approval")).build()


def build_second() -> Workflow:
    """The same name, one more executor: another graph."""

    @executor(id="notify")
    async def notify(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"sent: {text}")

    approval = Approval(id="approval")
    return (
        WorkflowBuilder(name="orders", start_executor=approval).add_edge(approval, notify).build()
    )


async def _events(run: DurableRun) -> list[WorkflowEvent[Any]]:
    return [event async for event in run.stream()]


def runtime(database: str, factory: WorkflowFactory) -> DurableRuntime:
    made = DurableRuntime(database, takeover_after=None)
    made.register(factory)
    return made


def test_a_run_waits_for_a_worker_of_its_version(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    first, second = runtime(database, build_first), runtime(database, build_second)
    assert first.app_version != second.app_version

    async def start_with_the_first() -> None:
        async with first:
            run = await first.start("orders", "order-1", run_id="order-1")
            await run.wait_for_requests(timeout=60)

    async def look_with_the_second() -> None:
        async with second:
            client = runtime(database, build_second)
            run = client.run("order-1")
            with pytest.raises(DurableRunError, match="another version of workflow 'orders'"):
                await run.send_response("ship", True)
            for refused in (run.pending_requests(), run.result(timeout=5), _events(run)):
                with pytest.raises(DurableRunError, match="another version of workflow"):
                    await refused
            with pytest.raises(DurableRunError, match="'order-1' exists already, started with"):
                await client.start("orders", "order-1", run_id="order-1")
            assert await run.status() == "PENDING"  # not recovered by this worker, not failed
            client.shutdown()

    async def finish_with_the_first() -> list[str]:
        async with runtime(database, build_first) as worker:
            run = worker.run("order-1")
            await run.wait_for_requests(timeout=60)
            await run.send_response("ship", True)
            return (await run.result(timeout=60)).get_outputs()

    asyncio.run(start_with_the_first())
    asyncio.run(look_with_the_second())
    assert asyncio.run(finish_with_the_first()) == ["order-1: shipped"]


def build_mailer(*, tools: int) -> Agent:
    @tool(approval_mode="always_require")
    def send_email(to: str) -> str:
        """Send an email."""
        return f"sent to {to}"

    @tool
    def look_up(name: str) -> str:
        """Find an address."""
        return f"{name}@example.com"

    model = ScriptedChatClient([ScriptedChatClient.function_call("send_email", {"to": "ada"})])
    return Agent(model, name="mailer", tools=[send_email, look_up][:tools])


def test_an_agent_run_is_refused_by_a_process_whose_agent_has_other_tools(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'runs.sqlite'}"

    async def start_and_look_elsewhere() -> None:
        first = DurableRuntime(database, takeover_after=None)
        first.register_agent(build_mailer(tools=1))
        async with first:
            run = await first.start_agent("mailer", "Email Ada.", run_id="mail-1")
            (request,) = await run.wait_for_requests(timeout=60)
            changed = DurableRuntime(database)
            changed.register_agent(build_mailer(tools=2))
            assert changed.app_version != first.app_version
            other = changed.agent_run("mail-1")
            for refused in (other.send_response(str(request.id), True), other.pending_requests()):
                with pytest.raises(DurableRunError, match="another version of agent 'mailer'"):
                    await refused
            with pytest.raises(DurableRunError, match="'mail-1' exists already"):
                await changed.start_agent("mailer", "Email Ada.", run_id="mail-1")
            changed.shutdown()
            assert [r.id for r in await run.pending_requests()] == [request.id]
            assert await run.status() == "PENDING"

    asyncio.run(start_and_look_elsewhere())
