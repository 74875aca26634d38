"""At the function-calling loop's limits the model answers without tools, or the run fails
loudly: never an empty answer."""

from __future__ import annotations

from typing import Any

import pytest

from agentry import Agent, AgentResponse, AgentSession, FunctionInvocationConfiguration, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ToolLoopLimitError
from agentry.types import ChatResponse, Content, Message


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


@tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("nope")


def _call(name: str = "get_weather") -> ChatResponse:
    arguments = {"city": "Oslo"} if name == "get_weather" else {}
    return ScriptedChatClient.function_call(name, arguments)


def _agent(client: ScriptedChatClient, **config: Any) -> Agent:
    return Agent(
        client=client,
        tools=[get_weather, broken],
        function_invocation_configuration=FunctionInvocationConfiguration(**config),
        default_options={"tool_choice": "auto"},
    )


async def _run(agent: Agent, stream: bool, session: AgentSession | None = None) -> AgentResponse:
    if stream:
        return await agent.run("Weather?", stream=True, session=session).get_final_response()
    return await agent.run("Weather?", session=session)


@pytest.mark.parametrize("stream", [False, True])
async def test_out_of_iterations_the_model_is_asked_once_more_without_tools(stream: bool) -> None:
    client = ScriptedChatClient([_call(), _call(), "It is sunny in Oslo."])

    response = await _run(_agent(client, max_iterations=2), stream)

    assert response.text == "It is sunny in Oslo."
    final_options = client.calls[2].options
    assert "tools" not in final_options
    assert final_options.get("tool_choice") == "none"
    assert [c.tool_names for c in client.calls[:2]] == [["get_weather", "broken"]] * 2


@pytest.mark.parametrize("stream", [False, True])
async def test_a_model_that_still_only_calls_tools_fails_the_run_naming_the_limit(
    stream: bool,
) -> None:
    client = ScriptedChatClient([_call(), _call(), _call()])
    session_agent = _agent(client, max_iterations=2)
    session = session_agent.create_session()

    with pytest.raises(ToolLoopLimitError) as caught:
        await _run(session_agent, stream, session=session)

    message = str(caught.value)
    assert "still called 'get_weather' after max_iterations=2" in message
    assert "FunctionInvocationConfiguration(max_iterations=...)" in message
    assert session.state.get("in_memory", {}).get("messages", []) == []  # nothing half-saved


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_calls_beside_a_final_answer_are_left_out(stream: bool) -> None:
    answer_and_call = ChatResponse(
        messages=[
            Message(
                "assistant",
                [
                    Content("text", text="Sunny, probably."),
                    Content.from_function_call(call_id="late", name="get_weather", arguments={}),
                ],
            )
        ]
    )
    client = ScriptedChatClient([_call(), answer_and_call])
    agent = _agent(client, max_iterations=1)
    session = agent.create_session()

    response = await _run(agent, stream, session=session)

    assert response.text == "Sunny, probably."
    kept = [c.type for m in response.messages for c in m.contents]
    assert kept == ["function_call", "function_result", "text"]  # the late call is gone
    client.add("Also sunny.")
    await agent.run("And tomorrow?", session=session)
    history = client.calls[-1].messages  # no call without a result goes back to the model
    assert all(c.call_id != "late" for m in history for c in m.contents)


@pytest.mark.parametrize("stream", [False, True])
async def test_after_too_many_failing_turns_the_error_names_that_limit(stream: bool) -> None:
    client = ScriptedChatClient([_call("broken"), _call("broken"), _call("broken")])

    with pytest.raises(ToolLoopLimitError, match="max_consecutive_errors_per_request=1"):
        await _run(_agent(client, max_consecutive_errors_per_request=1), stream)

    assert "tools" not in client.calls[2].options
