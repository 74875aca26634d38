"""A workflow served over A2A through `as_agent()`, asking a person for input."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from a2a.types import TaskState
from typing_extensions import Never

from agentry import Content, Message
from agentry.a2a import A2AAgent
from agentry.a2a._parts import data_of
from agentry.workflows import (
    Executor,
    WorkflowAgent,
    WorkflowBuilder,
    WorkflowContext,
    handler,
    response_handler,
)

from .conftest import BINDINGS, a2a_client, serve
from .helpers import artifact_text, send_blocking, user_message

pytestmark = pytest.mark.timeout(30)


@dataclass
class Question:
    text: str


class Greeter(Executor):
    """Asks for a name, then greets."""

    @handler
    async def start(self, messages: list[Message], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.request_info(Question(f"Who is asking '{messages[-1].text}'?"), str)

    @response_handler
    async def greet(self, question: Question, name: str, ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(f"Hello, {name}!")


GREETING_WORKFLOW = WorkflowBuilder(start_executor=Greeter(id="greeter")).build()
"""A workflow at module level, for `agentry serve a2a tests.a2a.test_workflows:GREETING_WORKFLOW`."""


def greeting_workflow_agent() -> WorkflowAgent:
    workflow = WorkflowBuilder(start_executor=Greeter(id="greeter")).build()
    return workflow.as_agent(name="greeting-workflow")


@pytest.mark.parametrize("binding", BINDINGS)
async def test_workflow_request_is_input_required_and_the_answer_resumes_it(binding: str) -> None:
    async with (
        serve(greeting_workflow_agent()) as server,
        a2a_client(server.url, binding, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("hi"))
        done = await send_blocking(client, user_message("Ada", task_id=waiting.id))
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    [request] = [data_of(p) for p in waiting.status.message.parts if p.HasField("data")]
    assert request["kind"] == "request_info"
    assert request["data"] == {"text": "Who is asking 'hi'?"}
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Hello, Ada!"


async def test_workflow_card_and_streaming_through_a2a_agent() -> None:
    async with serve(greeting_workflow_agent()) as server, A2AAgent(url=server.url) as remote:
        session = remote.create_session()
        waiting = await remote.run("hello", session=session)
        [request] = [c for m in waiting.messages for c in m.contents if c.type == "function_call"]
        assert request.name == "request_info"
        answer = Content.from_function_result(call_id=request.call_id or "", result="Bo")
        stream = remote.run(Message("tool", [answer]), stream=True, session=session)
        text = "".join([update.text async for update in stream])
    assert remote.name == "greeting-workflow"
    assert text == "Hello, Bo!"
