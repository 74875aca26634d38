"""The spec's workflow section: output selection and the run result's accessors."""

from __future__ import annotations

import pytest
from typing_extensions import Never

from agentry import (
    Executor,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunResult,
    WorkflowValidationError,
    executor,
    handler,
)
from agentry.clients.scripted import ScriptedChatClient


@executor(id="split")
async def split(text: str, ctx: WorkflowContext[list[str], str]) -> None:
    words = text.split()
    await ctx.yield_output(f"split into {len(words)} words")
    await ctx.send_message(words)


class Measure(Executor):
    @handler
    async def measure(self, words: list[str], ctx: WorkflowContext[dict[str, int], str]) -> None:
        await ctx.yield_output(f"measured {len(words)} words")
        await ctx.send_message({word: len(word) for word in words})


@executor(id="summarise")
async def summarise(lengths: dict[str, int], ctx: WorkflowContext[Never, str]) -> None:
    longest = max(lengths, key=lambda word: lengths[word])
    await ctx.yield_output(f"the longest word is {longest}")


def chain(builder: WorkflowBuilder) -> Workflow:
    """split -> measure -> summarise on `builder`."""
    return builder.add_chain([split, Measure(id="measure"), summarise]).build()


TEXT = "otters hold hands while sleeping"


async def test_without_a_selection_every_yield_is_workflow_output() -> None:
    workflow = chain(WorkflowBuilder(start_executor=split))
    result = await workflow.run(TEXT)

    assert isinstance(result, WorkflowRunResult)
    assert result.get_outputs() == [
        "split into 5 words",
        "measured 5 words",
        "the longest word is sleeping",
    ]
    assert result.get_intermediate_outputs() == []


async def test_output_from_all_is_every_yield_explicitly() -> None:
    workflow = chain(WorkflowBuilder(start_executor=split, output_from="all"))
    result = await workflow.run(TEXT)

    assert len(result.get_outputs()) == 3


async def test_output_from_is_an_allow_list_that_hides_the_rest() -> None:
    workflow = chain(WorkflowBuilder(start_executor=split, output_from=[summarise]))
    result = await workflow.run(TEXT)

    assert result.get_outputs() == ["the longest word is sleeping"]
    assert result.get_intermediate_outputs() == []


async def test_all_other_makes_every_unselected_executor_intermediate() -> None:
    workflow = chain(
        WorkflowBuilder(
            start_executor=split, output_from=[summarise], intermediate_output_from="all_other"
        )
    )
    result = await workflow.run(TEXT)

    assert result.get_outputs() == ["the longest word is sleeping"]
    assert result.get_intermediate_outputs() == ["split into 5 words", "measured 5 words"]


async def test_a_listed_intermediate_executor_is_visible_and_the_others_hidden() -> None:
    measure = Measure(id="measure")
    workflow = (
        WorkflowBuilder(
            start_executor=split, output_from=[summarise], intermediate_output_from=[measure]
        )
        .add_chain([split, measure, summarise])
        .build()
    )
    events = [event async for event in workflow.run(TEXT, stream=True)]

    visible = [
        (e.type, e.executor_id, e.data) for e in events if e.type in ("output", "intermediate")
    ]
    assert visible == [
        ("intermediate", "measure", "measured 5 words"),
        ("output", "summarise", "the longest word is sleeping"),
    ]


def test_an_executor_in_both_lists_is_refused() -> None:
    with pytest.raises(WorkflowValidationError):
        WorkflowBuilder(
            start_executor=split, output_from=[summarise], intermediate_output_from=[summarise]
        ).add_edge(split, summarise).build()


async def test_agents_in_a_workflow_give_their_responses_as_outputs() -> None:
    writer = ScriptedChatClient(["A draft about otters."]).as_agent(name="writer")
    reviewer = ScriptedChatClient(["Approved."]).as_agent(name="reviewer")
    workflow = (
        WorkflowBuilder(
            start_executor=writer, output_from=[reviewer], intermediate_output_from="all_other"
        )
        .add_edge(writer, reviewer)
        .build()
    )
    result = await workflow.run("Write about otters.")

    assert [response.text for response in result.get_outputs()] == ["Approved."]
    assert [response.text for response in result.get_intermediate_outputs()] == [
        "A draft about otters."
    ]
