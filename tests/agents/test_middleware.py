from typing import Any

import pytest

from agentry import (
    Agent,
    AgentContext,
    AgentMiddleware,
    AgentResponse,
    ChatContext,
    ChatMiddleware,
    ChatResponse,
    FunctionInvocationContext,
    FunctionMiddleware,
    Message,
    MiddlewareTermination,
    agent_middleware,
    chat_middleware,
    function_middleware,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import MiddlewareError


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def _tool_script() -> ScriptedChatClient:
    return ScriptedChatClient([ScriptedChatClient.function_call("add", {"a": 1, "b": 2}), "3"])


async def test_all_three_kinds_run_in_order() -> None:
    events: list[str] = []

    class Outer(AgentMiddleware):
        async def process(self, context: AgentContext, call_next: Any) -> None:
            events.append("agent:before")
            await call_next()
            events.append(f"agent:after:{context.result.text}")

    @chat_middleware
    async def chat(context: ChatContext, call_next: Any) -> None:
        events.append(f"chat:{len(context.messages)}")
        await call_next()

    async def function(context: FunctionInvocationContext, call_next: Any) -> None:
        events.append(f"function:{context.function.name}:{context.arguments}")
        await call_next()
        events.append(f"function:result:{context.result}")

    agent = Agent(client=_tool_script(), tools=[add], middleware=[Outer(), chat, function])
    await agent.run("1+2")
    assert events == [
        "agent:before",
        "chat:1",
        "function:add:{'a': 1, 'b': 2}",
        "function:result:3",
        "chat:3",
        "agent:after:3",
    ]


async def test_agent_middleware_can_replace_the_input_and_result() -> None:
    @agent_middleware
    async def rewrite(context: AgentContext, call_next: Any) -> None:
        context.messages = [Message("user", ["rewritten"])]
        await call_next()
        context.result = AgentResponse(messages=[Message("assistant", ["replaced"])])

    client = ScriptedChatClient(["original"])
    response = await Agent(client=client, middleware=[rewrite]).run("hello")
    assert client.calls[0].messages[0].text == "rewritten"
    assert response.text == "replaced"


async def test_agent_middleware_can_terminate_without_calling_the_model() -> None:
    class Guard(AgentMiddleware):
        async def process(self, context: AgentContext, call_next: Any) -> None:
            context.result = AgentResponse(messages=[Message("assistant", ["blocked"])])
            raise MiddlewareTermination

    client = ScriptedChatClient([])
    assert (await Agent(client=client, middleware=[Guard()]).run("x")).text == "blocked"
    stream = Agent(client=client, middleware=[Guard()]).run("x", stream=True)
    assert [u.text async for u in stream] == ["blocked"]
    assert client.calls == []


async def test_function_middleware_can_override_arguments_and_results() -> None:
    class Doubler(FunctionMiddleware):
        async def process(self, context: FunctionInvocationContext, call_next: Any) -> None:
            context.arguments = {**context.arguments, "a": 10}
            await call_next()
            context.result = context.result * 2

    response = await Agent(client=_tool_script(), tools=[add], middleware=[Doubler()]).run("x")
    assert response.messages[1].contents[0].result == 24


async def test_function_middleware_can_skip_the_tool_and_end_the_loop() -> None:
    ran: list[int] = []

    @function_middleware
    async def deny(context: FunctionInvocationContext, call_next: Any) -> None:
        ran.append(1)
        context.result = "denied by policy"
        context.terminate = True

    client = _tool_script()
    response = await Agent(client=client, tools=[add], middleware=[deny]).run("x")
    assert response.messages[-1].contents[0].result == "denied by policy"
    assert len(client.calls) == 1  # the loop ended after the tool batch


async def test_chat_middleware_sees_and_changes_options() -> None:
    class Cold(ChatMiddleware):
        async def process(self, context: ChatContext, call_next: Any) -> None:
            context.options["temperature"] = 0.0
            await call_next()

    client = ScriptedChatClient(["ok"])
    await Agent(client=client, middleware=[Cold()]).run("x", options={"temperature": 1.0})
    assert client.calls[0].options.get("temperature") == 0.0


async def test_chat_middleware_on_the_client_wraps_direct_calls() -> None:
    seen: list[str] = []

    @chat_middleware
    async def spy(context: ChatContext, call_next: Any) -> None:
        seen.append(context.messages[-1].text)
        await call_next()

    client = ScriptedChatClient(["a", "b"], middleware=[spy])
    assert (await client.get_response("hi")).text == "a"
    stream = client.get_response("there", stream=True)
    assert (await stream.get_final_response()).text == "b"
    assert seen == ["hi", "there"]


async def test_run_level_middleware_joins_the_agent_middleware() -> None:
    seen: list[str] = []

    @agent_middleware
    async def per_run(context: AgentContext, call_next: Any) -> None:
        seen.append("run")
        await call_next()

    agent = Agent(client=ScriptedChatClient(["x"]))
    await agent.run("x", middleware=[per_run])
    assert seen == ["run"]


def test_unrecognisable_middleware_is_a_clear_error() -> None:
    async def mystery(context: Any, call_next: Any) -> None:
        await call_next()

    with pytest.raises(MiddlewareError, match="cannot tell what kind of middleware"):
        Agent(client=ScriptedChatClient([]), middleware=[mystery])


async def test_chat_middleware_can_answer_a_streamed_run_in_place_of_the_model() -> None:
    @chat_middleware
    async def cached(context: ChatContext, call_next: Any) -> None:
        context.result = ChatResponse(
            messages=[Message("assistant", ["from the cache"])], response_id="cached-1"
        )

    client = ScriptedChatClient(["from the model"])
    agent = Agent(client=client, middleware=[cached])
    stream = agent.run("x", stream=True)
    texts = [update.text async for update in stream]
    response = await stream.get_final_response()
    assert texts == ["from the cache"]
    assert (response.text, response.response_id) == ("from the cache", "cached-1")
    assert client.remaining == 1  # the model was not asked


async def test_a_streamed_run_through_chat_middleware_streams_the_model() -> None:
    seen: list[bool] = []

    @chat_middleware
    async def spy(context: ChatContext, call_next: Any) -> None:
        seen.append(context.stream)
        await call_next()

    client = ScriptedChatClient(["hello there"], chunk_size=4)
    stream = Agent(client=client, middleware=[spy]).run("x", stream=True)
    texts = [update.text async for update in stream]
    assert texts == ["hell", "o th", "ere"]
    assert (await stream.get_final_response()).text == "hello there"
    assert seen == [True]
