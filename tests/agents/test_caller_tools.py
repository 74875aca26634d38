"""Declaration-only tools: the run ends with their calls, and the caller answers them."""

from __future__ import annotations

import pytest

from agentry import Agent, AgentRunInputs, AgentSession, FunctionTool, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import AgentResponse, Content, Message

LOCATION = FunctionTool(
    name="get_location",
    description="Where the user is; the user's device answers.",
    input_model={"type": "object", "properties": {}},
)


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def kinds(response: AgentResponse) -> list[tuple[str, str]]:
    return [(m.role, c.type) for m in response.messages for c in m.contents]


async def run(
    agent: Agent, message: AgentRunInputs, *, stream: bool, session: AgentSession
) -> AgentResponse:
    if stream:
        return await agent.run(message, stream=True, session=session).get_final_response()
    return await agent.run(message, session=session)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_call_of_a_declaration_only_tool_ends_the_run_for_the_caller_to_answer(
    stream: bool,
) -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("get_location", call_id="loc-1"), "Sunny in Paris."]
    )
    agent = Agent(client=model, tools=[LOCATION])
    session = agent.create_session()

    asked = await run(agent, "Weather here?", stream=stream, session=session)
    (call,) = [c for m in asked.messages for c in m.contents if c.type == "function_call"]
    answered = await run(
        agent,
        Message("tool", [Content.from_function_result(call_id=call.call_id or "", result="Paris")]),
        stream=stream,
        session=session,
    )

    assert kinds(asked) == [("assistant", "function_call")]
    assert (call.name, call.call_id) == ("get_location", "loc-1")
    assert len(model.calls) == 2
    second = [(m.role, c.type) for m in model.calls[1].messages for c in m.contents]
    assert second == [
        ("user", "text"),
        ("assistant", "function_call"),
        ("tool", "function_result"),
    ]
    assert answered.text == "Sunny in Paris."


async def test_the_agent_runs_its_own_calls_of_the_same_turn_before_ending() -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("get_weather", {"city": "Rome"}, "w-1"), ("get_location", {}, "loc-1")]
            )
        ]
    )
    agent = Agent(client=model, tools=[get_weather, LOCATION])

    response = await agent.run("Weather in Rome and here?")

    assert len(model.calls) == 1
    results = [c for m in response.messages for c in m.contents if c.type == "function_result"]
    assert [(r.call_id, r.result) for r in results] == [("w-1", "Sunny in Rome")]
    calls = [c.call_id for m in response.messages for c in m.contents if c.type == "function_call"]
    assert calls == ["w-1", "loc-1"]


async def test_a_caller_without_a_session_sends_the_conversation_back() -> None:
    model = ScriptedChatClient(
        [ScriptedChatClient.function_call("get_location", call_id="loc-1"), "Sunny in Paris."]
    )
    agent = Agent(client=model, tools=[LOCATION])

    asked = await agent.run("Weather here?")
    result = Message("tool", [Content.from_function_result(call_id="loc-1", result="Paris")])
    answered = await agent.run([Message("user", ["Weather here?"]), *asked.messages, result])

    assert answered.text == "Sunny in Paris."
