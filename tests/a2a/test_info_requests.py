"""A workflow's request for information (a `request_info` call) over A2A.

`AskingAgent` follows the protocol of a workflow's `as_agent()`: a request appears as a
`function_call` named `request_info` whose call id is the request id, and the next run's
`function_result` with that call id answers it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from a2a.types import TaskState

from agentry import AgentResponseUpdate, Content, Message
from agentry.a2a import A2AAgent
from agentry.a2a._answers import read_follow_up
from agentry.a2a._parts import data_of
from agentry.agents import BaseAgent, SupportsAgentRun

from .conftest import BINDINGS, a2a_client, serve
from .helpers import artifact_text, send_blocking, user_message

pytestmark = pytest.mark.timeout(30)

QUESTION = {"question": "What is your name?"}


def ask(request_id: str = "req-1") -> Content:
    return Content.from_function_call(
        call_id=request_id,
        name="request_info",
        arguments={"request_id": request_id, "data": QUESTION},
    )


class AskingAgent(BaseAgent):
    """Asks for a name, then greets whoever answered."""

    async def run(
        self, messages: list[Message], *, session: Any = None, **kwargs: Any
    ) -> AsyncIterator[AgentResponseUpdate]:
        for message in messages:
            for content in message.contents:
                if content.type == "function_result" and content.call_id == "req-1":
                    yield AgentResponseUpdate(
                        contents=[f"Hello, {content.result}!"], role="assistant"
                    )
                    return
        yield AgentResponseUpdate(contents=[ask()], role="assistant")


def asking_agent() -> SupportsAgentRun:
    # A one-method agent's declared `run` differs from the protocol's; its runtime one fits.
    return cast("SupportsAgentRun", AskingAgent(name="greeter"))


@pytest.mark.parametrize("binding", BINDINGS)
async def test_info_request_is_input_required_and_text_answers_it(binding: str) -> None:
    async with (
        serve(asking_agent()) as server,
        a2a_client(server.url, binding, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("hi"))
        done = await send_blocking(client, user_message("Ada", task_id=waiting.id))
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    requests = [data_of(p) for p in waiting.status.message.parts if p.HasField("data")]
    assert requests == [{"kind": "request_info", "id": "req-1", "data": QUESTION}]
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Hello, Ada!"


async def test_info_request_answered_with_data() -> None:
    async with (
        serve(asking_agent()) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("hi"))
        done = await send_blocking(
            client, user_message(task_id=waiting.id, data={"id": "req-1", "response": "Bob"})
        )
    assert artifact_text(done) == "Hello, Bob!"


async def test_a2a_agent_surfaces_the_request_and_sends_the_answer() -> None:
    async with serve(asking_agent()) as server, A2AAgent(url=server.url) as remote:
        session = remote.create_session()
        waiting = await remote.run("hi", session=session)
        [request] = [c for m in waiting.messages for c in m.contents if c.type == "function_call"]
        assert request.name == "request_info"
        assert request.parse_arguments() == {"request_id": "req-1", "data": QUESTION}
        answer = Content.from_function_result(call_id=request.call_id or "", result="Cy")
        done = await remote.run(Message("tool", [answer]), session=session)
    assert done.text == "Hello, Cy!"


def test_answers_to_information_requests() -> None:
    def reply(*contents: Content) -> Message:
        return Message("user", list(contents))

    by_text = read_follow_up(reply(Content.from_text("Dee")), [ask()]).answers
    assert by_text is not None
    assert [(a.type, a.call_id, a.result) for a in by_text] == [("function_result", "req-1", "Dee")]
    two = [ask("a"), ask("b")]
    assert read_follow_up(reply(Content.from_text("which one?")), two).answers is None
    approval = Content.from_function_approval_request(
        id="c", function_call=Content.from_function_call(call_id="c", name="f", arguments={})
    )
    assert read_follow_up(reply(Content.from_text("Dee")), [ask(), approval]).answers is None
    both = read_follow_up(reply(Content.from_text("yes")), [ask(), approval]).answers
    assert both is not None
    assert [(a.type, a.result, a.approved) for a in both] == [
        ("function_result", "yes", None),
        ("function_approval_response", None, True),
    ]
