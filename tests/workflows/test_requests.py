from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from typing_extensions import Never

from agentry.workflows import (
    Executor,
    ExecutorFailedException,
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
class Draft:
    text: str


@dataclass
class Review:
    approved: bool
    note: str = ""


class Reviewer(Executor):
    """Asks a person to review each draft; approved drafts go on, others are dropped."""

    def __init__(self) -> None:
        super().__init__(id="reviewer")
        self.answers: list[tuple[str, bool]] = []

    @handler
    async def ask(self, draft: Draft, ctx: WorkflowContext[Draft]) -> None:
        await ctx.request_info(draft, Review)

    @response_handler
    async def on_review(self, draft: Draft, review: Review, ctx: WorkflowContext[Draft]) -> None:
        self.answers.append((draft.text, review.approved))
        if review.approved:
            await ctx.send_message(Draft(f"{draft.text} ({review.note})"))


@executor
async def publish(draft: Draft, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"published: {draft.text}")


def review_workflow() -> tuple[Any, Reviewer]:
    reviewer = Reviewer()
    workflow = WorkflowBuilder(start_executor=reviewer).add_edge(reviewer, publish).build()
    return workflow, reviewer


async def test_a_run_with_a_pending_request_ends_idle_with_it() -> None:
    workflow, _ = review_workflow()
    result = await workflow.run(Draft("v1"))
    assert result.get_final_state() is WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    (request,) = result.get_request_info_events()
    assert request.data == Draft("v1")
    assert request.response_type is Review
    assert request.source_executor_id == "reviewer"
    assert request.request_id
    assert [e.request_id for e in workflow.pending_requests] == [request.request_id]


async def test_answering_continues_the_same_run() -> None:
    workflow, reviewer = review_workflow()
    first = await workflow.run(Draft("v1"))
    request_id = first.get_request_info_events()[0].request_id
    assert request_id is not None
    second = await workflow.run(responses={request_id: Review(True, "ok")})
    assert second.get_outputs() == ["published: v1 (ok)"]
    assert second.get_final_state() is WorkflowRunState.IDLE
    assert second.get_request_info_events() == []
    assert reviewer.answers == [("v1", True)]
    assert workflow.pending_requests == []
    with pytest.raises(WorkflowRunnerException, match="no pending request has id"):
        await workflow.run(responses={request_id: Review(True)})


async def test_streaming_shows_the_request_and_continues_with_stream_too() -> None:
    workflow, _ = review_workflow()
    requests: list[WorkflowEvent[Any]] = []
    async for event in workflow.run(Draft("v1"), stream=True):
        if event.type == "request_info":
            requests.append(event)
    assert len(requests) == 1
    assert requests[0].request_id is not None
    outputs = [
        e.data
        async for e in workflow.run(
            responses={requests[0].request_id: Review(True, "fine")}, stream=True
        )
        if e.type == "output"
    ]
    assert outputs == ["published: v1 (fine)"]


async def test_unknown_ids_and_wrong_answer_types_are_refused_clearly() -> None:
    workflow, _ = review_workflow()
    first = await workflow.run(Draft("v1"))
    request_id = first.get_request_info_events()[0].request_id
    assert request_id is not None
    with pytest.raises(
        WorkflowRunnerException, match=r"no pending request has id 'nope'; pending requests: \["
    ):
        await workflow.run(responses={"nope": Review(True)})
    with pytest.raises(WorkflowRunnerException, match="must be a Review, not a str"):
        await workflow.run(responses={request_id: "yes"})
    # Refused answers leave the request pending.
    assert [e.request_id for e in workflow.pending_requests] == [request_id]


async def test_partial_answers_keep_the_rest_pending_and_announced() -> None:
    @executor
    async def split(drafts: list[str], ctx: WorkflowContext[Draft]) -> None:
        for text in drafts:
            await ctx.send_message(Draft(text))

    reviewer = Reviewer()
    workflow = (
        WorkflowBuilder(start_executor=split)
        .add_edge(split, reviewer)
        .add_edge(reviewer, publish)
        .build()
    )
    first = await workflow.run(["a", "b"])
    requests = {e.data.text: e.request_id or "" for e in first.get_request_info_events()}
    assert sorted(requests) == ["a", "b"]
    second = await workflow.run(responses={requests["a"]: Review(True, "yes")})
    assert second.get_outputs() == ["published: a (yes)"]
    assert [e.request_id for e in second.get_request_info_events()] == [requests["b"]]
    assert second.get_final_state() is WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    third = await workflow.run(responses={requests["b"]: Review(False)})
    assert third.get_outputs() == []
    assert third.get_final_state() is WorkflowRunState.IDLE


async def test_a_request_can_carry_a_chosen_id() -> None:
    @executor
    async def ask(question: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.request_info(question, str, request_id="q-1")

    workflow = WorkflowBuilder(start_executor=ask).build()
    result = await workflow.run("name?")
    assert [e.request_id for e in result.get_request_info_events()] == ["q-1"]


async def test_an_answer_without_a_response_handler_fails_the_run_clearly() -> None:
    @executor
    async def ask(question: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.request_info(question, int)

    workflow = WorkflowBuilder(start_executor=ask).build()
    result = await workflow.run("how many?")
    request_id = result.get_request_info_events()[0].request_id
    assert request_id is not None
    with pytest.raises(ExecutorFailedException, match="has no @response_handler for a str request"):
        await workflow.run(responses={request_id: 3})


async def test_response_handlers_are_chosen_by_request_and_answer_types() -> None:
    class Asker(Executor):
        @handler
        async def start(self, text: str, ctx: WorkflowContext[Never, str]) -> None:
            await ctx.request_info(text, int | bool)

        @response_handler
        async def on_int(
            self, question: str, answer: int, ctx: WorkflowContext[Never, str]
        ) -> None:
            await ctx.yield_output(f"int {answer}")

        @response_handler
        async def on_bool(
            self, question: str, answer: bool, ctx: WorkflowContext[Never, str]
        ) -> None:
            await ctx.yield_output(f"bool {answer}")

    workflow = WorkflowBuilder(start_executor=Asker()).build()
    for answer, expected in ((3, "int 3"), (True, "bool True")):
        first = await workflow.run("?")
        request_id = first.get_request_info_events()[0].request_id
        assert request_id is not None
        assert (await workflow.run(responses={request_id: answer})).get_outputs() == [expected]


async def test_a_new_message_starts_a_fresh_run() -> None:
    workflow, _ = review_workflow()
    await workflow.run(Draft("v1"))
    fresh = await workflow.run(Draft("v2"))
    assert [e.data for e in fresh.get_request_info_events()] == [Draft("v2")]
    assert len(workflow.pending_requests) == 1
