"""Usage limits stop a run (or a session) before a call they forbid, or after a call that
went past them; the error carries the usage and the session keeps no half-written turn."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from agentry import Agent, AgentResponse, AgentSession, BaseChatClient, UsageLimits, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ChatClientError, UsageLimitExceeded, UsageLimitExceededError
from agentry.types import ChatOptions, ChatResponse, Message, UsageDetails, add_usage_details

looked_up: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    looked_up.append(city)
    return f"Sunny in {city}"


@pytest.fixture(autouse=True)
def _forget_lookups() -> None:
    looked_up.clear()


def _usage(tokens: int) -> UsageDetails:
    return {"input_token_count": tokens, "output_token_count": 5, "total_token_count": tokens + 5}


def _counts(
    requests: int, tool_calls: int, input_tokens: int, output_tokens: int, total_tokens: int
) -> dict[str, int]:
    """Usage counts by unit, as the error and the session's state give them."""
    return {
        "requests": requests,
        "tool_calls": tool_calls,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": total_tokens,
    }


def _answer(text: str = "Sunny.", tokens: int = 10) -> ChatResponse:
    return ScriptedChatClient.reply(text, usage_details=_usage(tokens))


def _lookup(city: str = "Oslo", tokens: int = 10) -> ChatResponse:
    response = ScriptedChatClient.function_call("get_weather", {"city": city})
    response.usage_details = _usage(tokens)
    return response


async def _run(
    agent: Agent,
    *,
    stream: bool,
    session: AgentSession | None = None,
    usage_limits: UsageLimits | None = None,
) -> AgentResponse:
    if not stream:
        return await agent.run("Weather?", session=session, usage_limits=usage_limits)
    updates = agent.run("Weather?", stream=True, session=session, usage_limits=usage_limits)
    async for _ in updates:
        pass
    return await updates.get_final_response()


@pytest.mark.parametrize("stream", [False, True])
async def test_a_request_limit_stops_the_run_before_the_call_past_it(stream: bool) -> None:
    client = ScriptedChatClient([_lookup("Oslo"), _lookup("Rome"), _answer()])
    agent = Agent(client=client, tools=[get_weather], usage_limits=UsageLimits(requests=2))

    with pytest.raises(UsageLimitExceededError, match="limit of 2 model requests") as caught:
        await _run(agent, stream=stream)

    assert len(client.calls) == 2
    assert looked_up == ["Oslo", "Rome"]
    error = caught.value
    assert (error.limit, error.scope, error.value) == ("requests", "run", 2)
    assert error.usage == _counts(2, 2, 20, 10, 30)
    assert UsageLimitExceeded is UsageLimitExceededError


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_call_limit_stops_the_run_before_the_tools_run(stream: bool) -> None:
    two_calls = ScriptedChatClient.function_calls(
        [("get_weather", {"city": "Oslo"}, None), ("get_weather", {"city": "Rome"}, None)]
    )
    client = ScriptedChatClient([two_calls, _answer()])
    agent = Agent(client=client, tools=[get_weather], usage_limits=UsageLimits(tool_calls=1))

    with pytest.raises(UsageLimitExceededError, match="2 more tool calls") as caught:
        await _run(agent, stream=stream)

    assert looked_up == []
    assert caught.value.limit == "tool_calls"
    assert caught.value.usage["tool_calls"] == 0


@pytest.mark.parametrize("stream", [False, True])
async def test_tokens_past_the_limit_stop_the_run_after_the_call(stream: bool) -> None:
    client = ScriptedChatClient([_answer(tokens=100), _answer("Second run.")])
    agent = Agent(client=client)
    session = AgentSession()

    with pytest.raises(UsageLimitExceededError, match="105 total tokens spent went past") as caught:
        await _run(agent, stream=stream, session=session, usage_limits=UsageLimits(total_tokens=50))

    assert caught.value.usage["total_tokens"] == 105
    assert caught.value.usage["requests"] == 1
    # the session kept nothing of the stopped run
    await agent.run("Hello", session=session)
    assert [m.text for m in client.calls[-1].messages] == ["Hello"]


@pytest.mark.parametrize("stream", [False, True])
async def test_tokens_that_reached_the_limit_stop_the_next_call_before_it(stream: bool) -> None:
    client = ScriptedChatClient([_lookup(tokens=45), _answer()])
    agent = Agent(client=client, tools=[get_weather], usage_limits=UsageLimits(total_tokens=50))

    with pytest.raises(UsageLimitExceededError, match="already spent have reached") as caught:
        await _run(agent, stream=stream)

    assert len(client.calls) == 1
    assert looked_up == ["Oslo"]
    assert caught.value.limit == "total_tokens"


@pytest.mark.parametrize(
    "limits",
    [UsageLimits(requests=0), UsageLimits(input_tokens=0), UsageLimits(total_tokens=0)],
    ids=["requests", "input_tokens", "total_tokens"],
)
async def test_a_limit_of_zero_requests_or_tokens_stops_the_run_before_its_first_call(
    limits: UsageLimits,
) -> None:
    client = ScriptedChatClient([_answer()])
    agent = Agent(client=client, usage_limits=limits)

    with pytest.raises(UsageLimitExceededError, match="the run's limit of 0") as caught:
        await agent.run("Weather?")

    assert client.calls == []
    assert caught.value.usage == _counts(0, 0, 0, 0, 0)


async def test_a_tool_call_limit_of_zero_lets_the_model_answer() -> None:
    client = ScriptedChatClient([_answer("Sunny.")])
    agent = Agent(client=client, tools=[get_weather], usage_limits=UsageLimits(tool_calls=0))

    response = await agent.run("Weather?")

    assert response.text == "Sunny."


@pytest.mark.parametrize("stream", [False, True])
async def test_tokens_that_reach_the_limit_exactly_let_the_last_answer_through(
    stream: bool,
) -> None:
    client = ScriptedChatClient([_lookup(tokens=10), _answer(tokens=10)])
    agent = Agent(client=client, tools=[get_weather], usage_limits=UsageLimits(total_tokens=30))

    response = await _run(agent, stream=stream)

    assert response.text == "Sunny."
    assert response.usage_details is not None
    assert response.usage_details.get("total_token_count") == 30


@pytest.mark.parametrize("stream", [False, True])
async def test_input_and_output_token_limits_count_their_own_tokens(stream: bool) -> None:
    client = ScriptedChatClient([_lookup(tokens=10), _answer(tokens=10)])
    agent = Agent(client=client, tools=[get_weather])

    limits = UsageLimits(input_tokens=20, output_tokens=9)
    with pytest.raises(UsageLimitExceededError) as caught:
        await _run(agent, stream=stream, usage_limits=limits)

    assert caught.value.limit == "output_tokens"
    assert caught.value.usage["output_tokens"] == 10


@pytest.mark.parametrize("stream", [False, True])
async def test_session_limits_count_across_runs_and_serialization(stream: bool) -> None:
    client = ScriptedChatClient([_answer("One."), _answer("Two."), _answer("Three.")])
    agent = Agent(client=client, session_usage_limits=UsageLimits(requests=2))
    session = AgentSession()

    await _run(agent, stream=stream, session=session)
    session = AgentSession.from_dict(session.to_dict())
    await _run(agent, stream=stream, session=session)
    stored = AgentSession.from_dict(session.to_dict())

    with pytest.raises(UsageLimitExceededError, match="session's limit of 2") as caught:
        await _run(agent, stream=stream, session=stored)

    assert caught.value.scope == "session"
    assert caught.value.usage["requests"] == 2
    assert caught.value.usage["total_tokens"] == 30
    assert len(client.calls) == 2
    assert client.remaining == 1


async def test_a_runs_limits_replace_the_agents() -> None:
    client = ScriptedChatClient([_lookup(), _answer()])
    agent = Agent(client=client, tools=[get_weather], usage_limits=UsageLimits(requests=1))

    response = await agent.run("Weather?", usage_limits=UsageLimits(requests=5))

    assert response.text == "Sunny."


class City(BaseModel):
    name: str


@pytest.mark.parametrize("stream", [False, True])
async def test_output_retries_count_as_requests_and_their_tokens_add_up(stream: bool) -> None:
    client = ScriptedChatClient(
        [_answer("not JSON"), _answer("still not"), _answer('{"name": "Oslo"}')]
    )
    agent = Agent(client=client, output_retries=5, usage_limits=UsageLimits(requests=2))

    run = (
        agent.run("Which city?", stream=True, response_format=City)
        if stream
        else agent.run("Which city?", response_format=City)
    )
    with pytest.raises(UsageLimitExceededError) as caught:
        await run

    assert caught.value.usage["requests"] == 2
    assert caught.value.usage["input_tokens"] == 20
    assert len(client.calls) == 2


class FirstThatAnswers(BaseChatClient):
    """Tries its clients in order; the response of the one that answers reports the usage
    of every attempt, as a client that retries or falls back does."""

    def __init__(self, clients: list[ScriptedChatClient]) -> None:
        super().__init__()
        self.clients = clients

    async def _inner_get_response(
        self, *, messages: list[Message], options: ChatOptions
    ) -> ChatResponse:
        spent: UsageDetails | None = None
        for client in self.clients:
            try:
                response = await client.get_response(messages, options=options)
            except ChatClientError as error:
                spent = add_usage_details(spent, _usage(error.status_code or 0))
                continue
            response.usage_details = add_usage_details(spent, response.usage_details)
            return response
        raise ChatClientError("every client failed")


@pytest.mark.parametrize("stream", [False, True])
async def test_usage_is_what_the_responses_of_a_composed_client_report(stream: bool) -> None:
    down = ScriptedChatClient([ChatClientError("overloaded", status_code=7)] * 2)
    up = ScriptedChatClient([_lookup(tokens=10), _answer(tokens=20)])
    agent = Agent(client=FirstThatAnswers([down, up]), tools=[get_weather])

    with pytest.raises(UsageLimitExceededError) as caught:
        await _run(agent, stream=stream, usage_limits=UsageLimits(input_tokens=40))

    # two requests, each with a failed attempt of 7 input tokens before the answer
    assert caught.value.usage["requests"] == 2
    assert caught.value.usage["input_tokens"] == 7 + 10 + 7 + 20
    assert caught.value.usage["output_tokens"] == 5 + 5 + 5 + 5


def test_limits_must_be_whole_numbers_of_zero_or_more() -> None:
    with pytest.raises(ValueError, match=r"UsageLimits\(requests=-1\) is negative"):
        UsageLimits(requests=-1)
    with pytest.raises(TypeError, match=r"UsageLimits\(total_tokens=...\) must be an integer"):
        UsageLimits(total_tokens=1.5)  # pyright: ignore[reportArgumentType]


async def test_malformed_session_counts_are_mended_keeping_what_is_readable() -> None:
    client = ScriptedChatClient([_answer(tokens=10)])
    agent = Agent(client=client, session_usage_limits=UsageLimits(requests=1))
    session = AgentSession()
    session.state["agentry.usage"] = {"requests": "two", "total_tokens": 3, "colour": 1}

    await agent.run("Hello", session=session)

    assert session.state["agentry.usage"] == _counts(1, 0, 10, 5, 18)


async def test_session_counts_that_are_not_whole_numbers_are_mended() -> None:
    client = ScriptedChatClient([_answer(tokens=10)])
    agent = Agent(client=client, session_usage_limits=UsageLimits(requests=3))
    session = AgentSession()
    session.state["agentry.usage"] = {
        "requests": "2",
        "tool_calls": None,
        "input_tokens": 7,
        "output_tokens": 1.5,
        "total_tokens": True,
    }

    await agent.run("Hello", session=session)

    assert session.state["agentry.usage"] == _counts(1, 0, 17, 5, 15)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_response_without_a_total_counts_its_input_and_output(stream: bool) -> None:
    no_total = ScriptedChatClient.function_call("get_weather", {"city": "Oslo"})
    no_total.usage_details = UsageDetails(input_token_count=30, output_token_count=25)
    no_usage = ScriptedChatClient.function_call("get_weather", {"city": "Rome"})
    client = ScriptedChatClient([no_usage, no_total, _answer()])
    agent = Agent(client=client, tools=[get_weather])

    with pytest.raises(UsageLimitExceededError, match="55 total tokens spent went past") as caught:
        await _run(agent, stream=stream, usage_limits=UsageLimits(total_tokens=50))

    assert caught.value.usage == _counts(2, 1, 30, 25, 55)


async def _approve_a_deletion(
    *, session_tool_calls: int, answer: ChatResponse | str, damage: object = None
) -> tuple[Agent, AgentSession, Message]:
    """Run an agent whose model asks to delete a file (a call that needs approval) under a
    session's tool-call limit; the agent, the session, and the message approving the call
    (with `damage` stored as the session's counts first, if given)."""

    @tool(approval_mode="always_require")
    def delete_file(path: str) -> str:
        """Delete a file."""
        looked_up.append(path)
        return f"deleted {path}"

    deletion = ScriptedChatClient.function_call("delete_file", {"path": "a.txt"})
    client = ScriptedChatClient([deletion, answer])
    agent = Agent(
        client=client,
        tools=[delete_file],
        session_usage_limits=UsageLimits(tool_calls=session_tool_calls),
    )
    session = AgentSession()
    first = await agent.run("Delete a.txt", session=session)
    if damage is not None:
        session.state["agentry.usage"] = damage
    approval = first.user_input_requests[0].to_function_approval_response(approved=True)
    return agent, session, Message("user", [approval])


async def test_approved_calls_count_against_the_sessions_tool_call_limit() -> None:
    agent, session, approval = await _approve_a_deletion(session_tool_calls=0, answer="Deleted it.")

    with pytest.raises(UsageLimitExceededError, match="1 more tool call would go past") as caught:
        await agent.run(approval, session=session)

    assert looked_up == []
    assert (caught.value.limit, caught.value.scope) == ("tool_calls", "session")


async def test_damaged_session_counts_are_mended_before_approved_calls_run() -> None:
    agent, session, approval = await _approve_a_deletion(
        session_tool_calls=1,
        answer=_answer("Deleted it."),
        damage={"tool_calls": "one", "requests": 1},
    )

    response = await agent.run(approval, session=session)

    assert response.text == "Deleted it."
    assert looked_up == ["a.txt"]
    assert session.state["agentry.usage"] == _counts(2, 1, 10, 5, 15)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_run_that_fails_midway_leaves_what_it_spent_in_the_session(stream: bool) -> None:
    down = ChatClientError("the model is down", status_code=400)
    client = ScriptedChatClient([_lookup(tokens=10), down])
    agent = Agent(client=client, tools=[get_weather], session_usage_limits=UsageLimits(requests=9))
    session = AgentSession()

    with pytest.raises(ChatClientError, match="the model is down"):
        await _run(agent, stream=stream, session=session)

    assert session.state["agentry.usage"] == _counts(1, 1, 10, 5, 15)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_cancelled_run_leaves_what_it_spent_in_the_session(stream: bool) -> None:
    second_call = asyncio.Event()

    async def never_answers(messages: list[Message], options: ChatOptions) -> ChatResponse:
        second_call.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    client = ScriptedChatClient([_lookup(tokens=10), never_answers])
    agent = Agent(client=client, tools=[get_weather], session_usage_limits=UsageLimits(requests=9))
    session = AgentSession()
    run = asyncio.ensure_future(_run(agent, stream=stream, session=session))
    await asyncio.wait_for(second_call.wait(), timeout=10)  # a hang guard only

    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run

    assert session.state["agentry.usage"] == _counts(1, 1, 10, 5, 15)
