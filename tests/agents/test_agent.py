import asyncio
import time
from typing import Any

import pytest
from pydantic import BaseModel

from agentry import Agent, AgentResponse, ChatResponseUpdate, Content, Message, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ScriptExhaustedError


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


async def test_run_answers_with_the_model_text_and_sends_instructions() -> None:
    client = ScriptedChatClient(["Hello there!"])
    agent = Agent(client=client, instructions="Be brief.", name="greeter")
    response = await agent.run("Hi")
    assert response.text == "Hello there!"
    assert response.messages[0].author_name == "greeter"
    assert response.agent_id == agent.id
    (call,) = client.calls
    assert [(m.role, m.text) for m in call.messages] == [("system", "Be brief."), ("user", "Hi")]


async def test_tool_round_trip() -> None:
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="c1"),
            "It is sunny.",
        ]
    )
    agent = Agent(client=client, tools=[get_weather])
    response = await agent.run("Weather in Paris?")
    assert response.text == "It is sunny."
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    result = response.messages[1].contents[0]
    assert (result.call_id, result.result) == ("c1", "Sunny in Paris")
    second_call = client.calls[1]
    assert second_call.messages[-1].contents[0].result == "Sunny in Paris"
    assert second_call.tool_names == ["get_weather"]


async def test_plain_functions_are_accepted_as_tools() -> None:
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    client = ScriptedChatClient([ScriptedChatClient.function_call("shout", {"text": "hi"}), "done"])
    response = await Agent(client=client, tools=[shout]).run("go")
    assert response.messages[1].contents[0].result == "HI"


async def test_streaming_final_response_equals_the_non_streaming_one() -> None:
    def script() -> list[Any]:
        return [
            ScriptedChatClient.function_call("get_weather", {"city": "Oslo"}, call_id="c1"),
            ScriptedChatClient.reply("Cold and clear in Oslo, as usual."),
        ]

    plain = await Agent(client=ScriptedChatClient(script()), tools=[get_weather], id="a").run("?")
    streaming_client = ScriptedChatClient(script(), chunk_size=4)
    stream = Agent(client=streaming_client, tools=[get_weather], id="a").run("?", stream=True)
    texts = [update.text async for update in stream]
    final = await stream.get_final_response()
    assert len([t for t in texts if t]) > 5  # really streamed in chunks
    assert final.to_dict() == plain.to_dict()
    assert streaming_client.calls[0].stream


async def test_stream_can_be_awaited_directly() -> None:
    agent = Agent(client=ScriptedChatClient(["ok"]))
    response = await agent.run("x", stream=True)
    assert isinstance(response, AgentResponse)
    assert response.text == "ok"


async def test_hundred_chunk_stream_is_delivered_in_order() -> None:
    updates = [ChatResponseUpdate(role="assistant", contents=[f"{i},"]) for i in range(100)]
    agent = Agent(client=ScriptedChatClient([updates]))
    seen = [u.text async for u in agent.run("count", stream=True)]
    assert seen == [f"{i}," for i in range(100)]


class Forecast(BaseModel):
    city: str
    degrees: int


async def test_structured_output_gives_a_validated_value() -> None:
    client = ScriptedChatClient(['{"city": "Rome", "degrees": 25}'])
    agent = Agent(client=client)
    response = await agent.run("forecast", options={"response_format": Forecast})
    assert response.value == Forecast(city="Rome", degrees=25)
    assert client.calls[0].options.get("response_format") is Forecast


async def test_structured_output_when_streaming() -> None:
    client = ScriptedChatClient(['{"city": "Rome", "degrees": 25}'], chunk_size=3)
    stream = Agent(client=client).run("f", stream=True, options={"response_format": Forecast})
    async for _ in stream:
        pass
    assert (await stream.get_final_response()).value == Forecast(city="Rome", degrees=25)


async def test_parallel_tool_calls_run_concurrently() -> None:
    @tool
    async def slow(n: int) -> int:
        """Sleep a little."""
        await asyncio.sleep(0.2)
        return n

    calls = [("slow", {"n": i}, f"c{i}") for i in range(5)]
    client = ScriptedChatClient([ScriptedChatClient.function_calls(calls), "done"])
    started = time.perf_counter()
    response = await Agent(client=client, tools=[slow]).run("go")
    elapsed = time.perf_counter() - started
    assert [c.result for c in response.messages[1].contents] == [0, 1, 2, 3, 4]
    assert elapsed < 0.2 * 5  # sequential execution would take a full second


async def test_unknown_tool_goes_back_to_the_model_as_an_error() -> None:
    client = ScriptedChatClient([ScriptedChatClient.function_call("teleport", {}), "sorry"])
    response = await Agent(client=client, tools=[get_weather]).run("go")
    result = response.messages[1].contents[0].result
    assert "no tool named 'teleport'" in result
    assert "get_weather" in result
    assert response.text == "sorry"


async def test_invalid_and_malformed_arguments_go_back_to_the_model() -> None:
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_weather", {"town": "Paris"}),
            ScriptedChatClient.function_call("get_weather", '{"city": '),
            ScriptedChatClient.function_call("get_weather", {"city": "Paris"}),
            "fixed",
        ]
    )
    response = await Agent(client=client, tools=[get_weather]).run("go")
    results = [m.contents[0].result for m in response.messages if m.role == "tool"]
    assert "city: Field required" in results[0]
    assert "not valid JSON" in results[1]
    assert results[2] == "Sunny in Paris"
    assert response.text == "fixed"


async def test_a_failing_tool_does_not_crash_the_run() -> None:
    @tool
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("secret detail")

    client = ScriptedChatClient([ScriptedChatClient.function_call("broken"), "it failed"])
    response = await Agent(client=client, tools=[broken]).run("go")
    result = response.messages[1].contents[0]
    assert result.result.startswith("Error: tool 'broken' failed with RuntimeError")
    assert "secret detail" not in result.result
    assert isinstance(result.exception, RuntimeError)


async def test_consecutive_errors_are_bounded() -> None:
    @tool
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("nope")

    failing = [ScriptedChatClient.function_call("broken") for _ in range(4)]
    client = ScriptedChatClient([*failing, "giving up"])
    response = await Agent(client=client, tools=[broken]).run("go")
    assert response.text == "giving up"
    assert client.calls[-1].options.get("tool_choice") == "none"
    assert len(client.calls) == 5


async def test_max_iterations_forces_a_final_answer() -> None:
    from agentry import FunctionInvocationConfiguration

    loops = [ScriptedChatClient.function_call("get_weather", {"city": "X"}) for _ in range(2)]
    client = ScriptedChatClient([*loops, "final"])
    agent = Agent(
        client=client,
        tools=[get_weather],
        function_invocation_configuration=FunctionInvocationConfiguration(max_iterations=2),
    )
    response = await agent.run("go")
    assert response.text == "final"
    assert client.calls[2].options.get("tool_choice") == "none"


async def test_tools_can_add_and_remove_tools_for_the_next_iteration() -> None:
    from agentry import FunctionInvocationContext

    @tool
    def secret() -> str:
        """The secret."""
        return "42"

    @tool
    def unlock(context: FunctionInvocationContext) -> str:
        """Unlock the secret tool."""
        context.add_tools([secret])
        context.remove_tools("unlock")
        return "unlocked"

    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("unlock"),
            ScriptedChatClient.function_call("secret"),
            "42!",
        ]
    )
    response = await Agent(client=client, tools=[unlock]).run("go")
    assert response.text == "42!"
    assert [c.tool_names for c in client.calls] == [["unlock"], ["secret"], ["secret"]]


async def test_run_tools_and_default_options_merge() -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client=client, default_options={"temperature": 0.1, "max_tokens": 10})
    await agent.run("x", tools=[get_weather], options={"temperature": 0.7})
    options = client.calls[0].options
    assert (options.get("temperature"), options.get("max_tokens")) == (0.7, 10)
    assert client.calls[0].tool_names == ["get_weather"]


async def test_sessions_carry_the_conversation() -> None:
    client = ScriptedChatClient(["Nice to meet you, Ada.", "You are Ada."])
    agent = Agent(client=client)
    session = agent.create_session()
    await agent.run("I am Ada.", session=session)
    await agent.run("Who am I?", session=session)
    texts = [m.text for m in client.calls[1].messages]
    assert texts == ["I am Ada.", "Nice to meet you, Ada.", "Who am I?"]


async def test_runs_without_a_session_are_independent() -> None:
    client = ScriptedChatClient(["a", "b"])
    agent = Agent(client=client)
    await agent.run("one")
    await agent.run("two")
    assert [m.text for m in client.calls[1].messages] == ["two"]


async def test_agent_as_tool_of_another_agent() -> None:
    writer = Agent(
        client=ScriptedChatClient(["Roses are red."]),
        name="poet writer",
        description="Writes poems.",
    )
    poet_tool = writer.as_tool(arg_description="What to write")
    assert poet_tool.name == "poet_writer"
    assert poet_tool.parameters()["properties"]["task"]["description"] == "What to write"
    boss_client = ScriptedChatClient(
        [ScriptedChatClient.function_call("poet_writer", {"task": "a poem"}), "Here it is."]
    )
    response = await Agent(client=boss_client, tools=[poet_tool]).run("poem please")
    assert response.messages[1].contents[0].result == "Roses are red."


async def test_as_agent_shorthand() -> None:
    agent = ScriptedChatClient(["Hi!"]).as_agent(name="Assistant", instructions="Be nice.")
    assert isinstance(agent, Agent)
    assert (await agent.run("hello")).text == "Hi!"


async def test_a_client_error_propagates_clearly() -> None:
    agent = Agent(client=ScriptedChatClient([]))
    with pytest.raises(ScriptExhaustedError, match="no response left for call 1"):
        await agent.run("x")


async def test_input_can_be_messages_and_contents() -> None:
    client = ScriptedChatClient(["ok"])
    await Agent(client=client).run([Message("user", ["a"]), "b", Content.from_text("c")])
    assert [m.text for m in client.calls[0].messages] == ["a", "b", "c"]


async def test_the_finish_reason_is_the_last_model_call_s() -> None:
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("get_weather", {"city": "X"}), "ok"]
    )
    response = await Agent(client=client, tools=[get_weather]).run("go")
    assert response.finish_reason == "stop"


async def test_stopping_a_stream_early_closes_the_model_stream() -> None:
    closed: list[bool] = []

    async def model_stream(messages: Any, options: Any) -> Any:
        return [ChatResponseUpdate(role="assistant", contents=[f"{i}"]) for i in range(10)]

    class ClosingClient(ScriptedChatClient):
        async def _inner_get_streaming_response(self, **kwargs: Any) -> Any:  # type: ignore[override]
            try:
                async for update in super()._inner_get_streaming_response(**kwargs):
                    yield update
            finally:
                closed.append(True)

    stream = Agent(client=ClosingClient([model_stream])).run("count", stream=True)
    async for update in stream:
        assert update.text == "0"
        break
    await stream.aclose()
    assert closed == [True]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_model_failure_after_a_tool_round_reaches_the_caller_and_the_session_keeps_nothing(
    stream: bool,
) -> None:
    class Overloaded(Exception):
        pass

    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("get_weather", {"city": "Paris"}), Overloaded("busy")]
    )
    agent = Agent(client=client, tools=[get_weather])
    session = agent.create_session()

    async def run() -> None:
        if stream:
            async for _ in agent.run("Weather?", stream=True, session=session):
                pass
        else:
            await agent.run("Weather?", session=session)

    with pytest.raises(Overloaded, match="busy"):
        await run()
    assert [m.role for m in client.calls[1].messages] == ["user", "assistant", "tool"]
    assert session.state.get("in_memory", {}).get("messages", []) == []
