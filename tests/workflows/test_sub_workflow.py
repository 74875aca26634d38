from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from typing_extensions import Never

from agentry.workflows import (
    Executor,
    ExecutorFailedException,
    InMemoryCheckpointStorage,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowExecutor,
    WorkflowRunState,
    executor,
    handler,
    response_handler,
)


@dataclass
class Question:
    text: str


def upper_workflow() -> Workflow:
    @executor
    async def upper(text: str, ctx: WorkflowContext[str]) -> None:
        await ctx.send_message(text.upper())

    @executor
    async def exclaim(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{text}!")

    return WorkflowBuilder(name="upper", start_executor=upper).add_edge(upper, exclaim).build()


async def test_sub_workflow_outputs_are_sent_on_in_the_parent() -> None:
    sub = WorkflowExecutor(upper_workflow(), id="shout")
    assert sub.input_types == [str]
    assert sub.output_types == [str]

    @executor
    async def wrap(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"<{text}>")

    @executor
    async def start(text: str, ctx: WorkflowContext[str]) -> None:
        for word in text.split():
            await ctx.send_message(word)

    parent = (
        WorkflowBuilder(start_executor=start, output_from=[wrap])
        .add_edge(start, sub)
        .add_edge(sub, wrap)
        .build()
    )
    result = await parent.run("hi there")
    assert result.get_outputs() == ["<HI!>", "<THERE!>"]


async def test_direct_output_makes_sub_workflow_outputs_the_parents() -> None:
    sub = WorkflowExecutor(upper_workflow(), id="shout", allow_direct_output=True)
    parent = WorkflowBuilder(start_executor=sub).build()
    result = await parent.run("hey")
    assert result.get_outputs() == ["HEY!"]
    assert {e.executor_id for e in result if e.type == "output"} == {"shout"}


async def test_a_streaming_parent_sees_sub_workflow_outputs_as_they_come() -> None:
    seen = asyncio.Event()

    @executor
    async def talk(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output("first")
        # The parent's consumer must see "first" before the inner run can go on.
        await asyncio.wait_for(seen.wait(), timeout=10)
        await ctx.yield_output("second")

    inner = WorkflowBuilder(name="inner", start_executor=talk).build()
    parent = WorkflowBuilder(
        start_executor=WorkflowExecutor(inner, id="sub", allow_direct_output=True)
    ).build()
    outputs: list[str] = []
    async for event in parent.run("go", stream=True):
        if event.type == "output":
            outputs.append(event.data)
            seen.set()
    assert outputs == ["first", "second"]


def progress_workflow() -> Workflow:
    @executor
    async def work(text: str, ctx: WorkflowContext[str, str]) -> None:
        await ctx.yield_output(f"working on {text}")
        await ctx.send_message(text.upper())

    @executor
    async def finish(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{text}!")

    return (
        WorkflowBuilder(
            name="progress",
            start_executor=work,
            output_from=[finish],
            intermediate_output_from=[work],
        )
        .add_edge(work, finish)
        .build()
    )


async def test_sub_workflow_intermediate_outputs_become_its_executors() -> None:
    parent = WorkflowBuilder(
        start_executor=WorkflowExecutor(progress_workflow(), id="sub", allow_direct_output=True)
    ).build()

    events = [e async for e in parent.run("go", stream=True)]

    assert [
        (e.type, e.executor_id, e.data) for e in events if e.type in ("output", "intermediate")
    ] == [
        ("intermediate", "sub", "working on go"),
        ("output", "sub", "GO!"),
    ]


async def test_a_hidden_sub_workflow_executor_hides_its_intermediate_outputs_too() -> None:
    sub = WorkflowExecutor(progress_workflow(), id="sub")

    @executor
    async def show(text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"shown: {text}")

    parent = WorkflowBuilder(start_executor=sub, output_from=[show]).add_edge(sub, show).build()

    result = await parent.run("go")

    assert result.get_outputs() == ["shown: GO!"]
    assert result.get_intermediate_outputs() == []


async def test_a_failing_sub_workflow_fails_the_parent_naming_both() -> None:
    @executor
    async def broken(text: str, ctx: WorkflowContext[str]) -> None:
        raise KeyError(text)

    sub = WorkflowExecutor(WorkflowBuilder(name="inner", start_executor=broken).build(), id="sub")
    parent = WorkflowBuilder(start_executor=sub).build()
    with pytest.raises(
        ExecutorFailedException, match=r"executor 'sub' failed.*executor 'broken' failed"
    ) as caught:
        await parent.run("x")
    assert caught.value.executor_id == "sub"


class Asker(Executor):
    @handler
    async def ask(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.request_info(Question(f"ok to use {text!r}?"), bool)

    @response_handler
    async def answer(self, question: Question, ok: bool, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"{question.text} -> {'yes' if ok else 'no'}")


def asking_parent() -> tuple[Workflow, WorkflowExecutor]:
    inner = WorkflowBuilder(name="inner", start_executor=Asker(id="asker")).build()
    sub = WorkflowExecutor(inner, id="sub", allow_direct_output=True)

    @executor
    async def start(words: list[str], ctx: WorkflowContext[str]) -> None:
        for word in words:
            await ctx.send_message(word)

    parent = WorkflowBuilder(name="parent", start_executor=start).add_edge(start, sub).build()
    return parent, sub


async def test_sub_workflow_requests_bubble_up_and_answers_flow_back() -> None:
    parent, _ = asking_parent()
    first = await parent.run(["a"])
    (request,) = first.get_request_info_events()
    assert request.data == Question("ok to use 'a'?")
    assert request.source_executor_id == "sub"
    assert first.get_final_state() is WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    assert request.request_id is not None
    second = await parent.run(responses={request.request_id: True})
    assert second.get_outputs() == ["ok to use 'a'? -> yes"]
    assert second.get_final_state() is WorkflowRunState.IDLE


async def test_inputs_wait_while_the_sub_workflow_waits_for_answers() -> None:
    parent, _ = asking_parent()
    first = await parent.run(["a", "b"])
    # Only the first input runs; the second waits for the sub-workflow to finish.
    assert [e.data for e in first.get_request_info_events()] == [Question("ok to use 'a'?")]
    request_id = first.get_request_info_events()[0].request_id
    assert request_id is not None
    second = await parent.run(responses={request_id: False})
    assert second.get_outputs() == ["ok to use 'a'? -> no"]
    (next_request,) = second.get_request_info_events()
    assert next_request.data == Question("ok to use 'b'?")
    assert next_request.request_id is not None
    third = await parent.run(responses={next_request.request_id: True})
    assert third.get_outputs() == ["ok to use 'b'? -> yes"]


async def test_a_waiting_sub_workflow_resumes_from_a_checkpoint() -> None:
    storage = InMemoryCheckpointStorage()
    parent, _ = asking_parent()
    first = await parent.run(["a", "b"], checkpoint_storage=storage)
    request_id = first.get_request_info_events()[0].request_id
    assert request_id is not None
    latest = await storage.get_latest(workflow_name="parent")
    assert latest is not None

    restored_parent, restored_sub = asking_parent()
    second = await restored_parent.run(
        checkpoint_id=latest.checkpoint_id,
        checkpoint_storage=storage,
        responses={request_id: True},
    )
    assert second.get_outputs() == ["ok to use 'a'? -> yes"]
    assert [e.data for e in second.get_request_info_events()] == [Question("ok to use 'b'?")]
    assert (await restored_sub.on_checkpoint_save())["queue"] == []
