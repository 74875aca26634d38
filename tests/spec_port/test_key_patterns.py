"""The core package's key patterns, written for the spec's API with the import renamed.

Each test is a small program a user of the spec would write; where the spec leaves `...`,
a `ScriptedChatClient` plays the model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from agentry import (
    Agent,
    AgentContext,
    AgentMiddleware,
    AgentResponse,
    AgentResponseUpdate,
    BaseAgent,
    BaseChatClient,
    ChatContext,
    ChatMiddleware,
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationContext,
    FunctionMiddleware,
    FunctionTool,
    Message,
    SupportsAgentRun,
    SupportsChatGetResponse,
    ToolProtocol,
    tool,
    use_function_invocation,
)
from agentry.clients.scripted import ScriptedChatClient


def weather_script() -> ScriptedChatClient:
    return ScriptedChatClient(
        [ScriptedChatClient.function_call("my_function", {"city": "Lyon"}), "Sunny in Lyon."]
    )


async def test_creating_an_agent_runs_its_function_tool() -> None:

    calls: list[str] = []

    def my_function(city: str) -> str:
        """Get the weather for a city."""
        calls.append(city)
        return f"Sunny in {city}"

    client = weather_script()
    agent = Agent(
        client=client,
        instructions="You are helpful.",
        tools=[my_function],
    )
    response = await agent.run("Hello")

    assert response.text == "Sunny in Lyon."
    assert calls == ["Lyon"]
    assert client.calls[0].tool_names == ["my_function"]
    assert client.calls[0].messages[0].role == "system"
    assert client.calls[0].messages[0].text == "You are helpful."
    results = [
        c for m in client.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert [r.result for r in results] == ["Sunny in Lyon"]


async def test_as_agent_shorthand_names_and_instructs_the_agent() -> None:
    client = ScriptedChatClient(["Hi, I am the assistant."])
    agent = client.as_agent(
        name="Assistant",
        instructions="You are helpful.",
    )
    response = await agent.run("Hello")

    assert (agent.name, response.text) == ("Assistant", "Hi, I am the assistant.")
    assert [m.text for m in client.calls[0].messages] == ["You are helpful.", "Hello"]


async def test_middleware_pipeline_sees_the_input_and_the_output() -> None:

    seen: list[str] = []

    class LoggingMiddleware(AgentMiddleware):
        async def process(
            self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
        ) -> None:
            seen.append(f"Input: {context.messages[-1].text}")
            await call_next()
            seen.append(f"Output: {context.result.text}")

    agent = Agent(client=ScriptedChatClient(["Hi!"]), middleware=[LoggingMiddleware()])
    response = await agent.run("Hello")

    assert response.text == "Hi!"
    assert seen == ["Input: Hello", "Output: Hi!"]


async def test_a_custom_chat_client_answers_plain_and_streaming_calls() -> None:

    prompts: list[str] = []

    class MyClient(BaseChatClient):
        async def _inner_get_response(
            self, *, messages: list[Message], options: Any, **kwargs: Any
        ) -> ChatResponse:
            prompts.append(messages[-1].text)
            return ChatResponse(messages=[Message(role="assistant", contents=["Hi!"])])

        async def _inner_get_streaming_response(
            self, *, messages: list[Message], options: Any, **kwargs: Any
        ) -> AsyncIterator[ChatResponseUpdate]:
            prompts.append(messages[-1].text)
            for word in ("Hi", "!"):
                yield ChatResponseUpdate(role="assistant", contents=[word])

    client = MyClient()
    assert (await client.get_response("Hello")).text == "Hi!"
    agent = client.as_agent(name="Assistant", instructions="You are helpful.")
    assert (await agent.run("Hello")).text == "Hi!"
    chunks = [update.text async for update in agent.run("Again", stream=True)]

    assert chunks == ["Hi", "!"]
    assert prompts == ["Hello", "Hello", "Again"]


async def test_chat_and_function_middleware_wrap_model_calls_and_tool_calls() -> None:

    events: list[str] = []

    class CountModelCalls(ChatMiddleware):
        async def process(
            self, context: ChatContext, call_next: Callable[[], Awaitable[None]]
        ) -> None:
            events.append(f"model call with {len(context.messages)} messages")
            await call_next()

    class UpperCaseResults(FunctionMiddleware):
        async def process(
            self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
        ) -> None:
            events.append(f"tool {context.function.name}({context.arguments})")
            await call_next()
            context.result = str(context.result).upper()

    @tool
    def my_function(city: str) -> str:
        """Get the weather for a city."""
        return f"sunny in {city}"

    client = weather_script()
    agent = Agent(
        client=client, tools=[my_function], middleware=[CountModelCalls(), UpperCaseResults()]
    )
    await agent.run("Weather?")

    assert events[1].startswith("tool my_function(")
    assert "Lyon" in events[1]
    assert events[0] == "model call with 1 messages"
    assert events[2].startswith("model call with 3 messages")
    (result,) = [
        c for m in client.calls[1].messages for c in m.contents if c.type == "function_result"
    ]
    assert result.result == "SUNNY IN LYON"


async def test_a_tool_receives_the_invocation_context_and_exposes_tools_progressively() -> None:

    @tool
    def delete_everything() -> str:
        """Delete every record."""
        return "all deleted"

    @tool
    def unlock_admin_tools(reason: str, context: FunctionInvocationContext) -> str:
        """Unlock the admin tools."""
        context.add_tools([delete_everything])
        context.remove_tools("unlock_admin_tools")
        return f"unlocked because {reason}"

    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("unlock_admin_tools", {"reason": "asked"}),
            ScriptedChatClient.function_call("delete_everything", {}),
            "Everything is deleted.",
        ]
    )
    agent = Agent(client=client, tools=[unlock_admin_tools])
    response = await agent.run("Clean up.")

    assert response.text == "Everything is deleted."
    assert [call.tool_names for call in client.calls] == [
        ["unlock_admin_tools"],
        ["delete_everything"],
        ["delete_everything"],
    ]
    assert "unlock_admin_tools" not in unlock_admin_tools.parameters().get("properties", {})
    assert "context" not in unlock_admin_tools.parameters()["properties"]
    results = [
        c.result for m in response.messages for c in m.contents if c.type == "function_result"
    ]
    assert results == ["unlocked because asked", "all deleted"]


async def test_use_function_invocation_gives_a_chat_client_the_tool_loop() -> None:

    @use_function_invocation
    class ToolCallingClient(ScriptedChatClient):
        pass

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    client = ToolCallingClient(
        [ScriptedChatClient.function_call("add", {"a": 2, "b": 40}), "It is 42."]
    )
    response = await client.get_response("What is 2 + 40?", options={"tools": [add]})

    assert response.text == "It is 42."
    results = [
        c.result for m in response.messages for c in m.contents if c.type == "function_result"
    ]
    assert results == [42]


async def test_function_tool_wraps_a_function_with_a_json_schema() -> None:

    def multiply(a: int, b: int = 2) -> int:
        """Multiply two numbers."""
        return a * b

    wrapped = FunctionTool(func=multiply)
    decorated = tool(multiply)
    named = tool(name="times", description="Times.")(multiply)

    for function in (wrapped, decorated, named):
        assert isinstance(function, ToolProtocol)
        assert function.parameters()["required"] == ["a"]
        assert await function.invoke(arguments={"a": 21}) == 42
    assert (wrapped.name, wrapped.description) == ("multiply", "Multiply two numbers.")
    assert (named.name, named.description) == ("times", "Times.")


async def test_chat_options_are_a_typed_dict_passed_per_run() -> None:

    options: ChatOptions = {"temperature": 0.2, "max_tokens": 50}
    client = ScriptedChatClient(["Short answer."])
    agent = Agent(client=client, default_options={"temperature": 0.9})
    await agent.run("Hello", options=options)

    assert client.calls[0].options.get("temperature") == 0.2
    assert client.calls[0].options.get("max_tokens") == 50


async def test_agents_and_clients_satisfy_the_spec_protocols() -> None:

    client = ScriptedChatClient(["Hi!"])
    assert isinstance(client, SupportsChatGetResponse)
    assert isinstance(Agent(client=client), SupportsAgentRun)
    assert issubclass(Agent, BaseAgent)


async def test_agent_responses_stream_as_updates_and_fold_into_a_response() -> None:

    agent = Agent(client=ScriptedChatClient(["Hello there, friend."], chunk_size=6))
    stream = agent.run("Hi", stream=True)
    updates = [update async for update in stream]
    final = await stream.get_final_response()

    assert all(isinstance(u, AgentResponseUpdate) for u in updates)
    assert len(updates) > 1
    assert isinstance(final, AgentResponse)
    assert final.text == "".join(u.text for u in updates) == "Hello there, friend."
    assert AgentResponse.from_updates(updates).text == final.text


@pytest.mark.parametrize("text", ["Hi!", ""])
async def test_content_and_message_build_from_text(text: str) -> None:

    message = Message(role="user", contents=[Content.from_text(text)])
    assert (message.role, message.text) == ("user", text)
    assert Message.from_dict(message.to_dict()) == message


async def test_context_tools_is_the_live_tool_list_of_the_run() -> None:
    @tool
    def second() -> str:
        """The second step."""
        return "second done"

    @tool
    def first(context: FunctionInvocationContext) -> str:
        """The first step."""
        context.tools.append(second)
        return f"first done; {len(context.tools)} tools now"

    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("first", {}),
            ScriptedChatClient.function_call("second", {}),
            "Both done.",
        ]
    )
    response = await Agent(client=client, tools=[first]).run("Do both steps.")

    assert response.text == "Both done."
    assert [call.tool_names for call in client.calls] == [
        ["first"],
        ["first", "second"],
        ["first", "second"],
    ]
    results = [
        c.result for m in response.messages for c in m.contents if c.type == "function_result"
    ]
    assert results == ["first done; 2 tools now", "second done"]


SPEC_CORE_NAMES = [
    "SupportsAgentRun",
    "BaseAgent",
    "Agent",
    "SupportsChatGetResponse",
    "BaseChatClient",
    "Message",
    "ChatResponse",
    "ChatResponseUpdate",
    "AgentResponse",
    "AgentResponseUpdate",
    "Content",
    "ChatOptions",
    "ToolProtocol",
    "FunctionTool",
    "tool",
    "use_function_invocation",
    "AgentMiddleware",
    "ChatMiddleware",
    "FunctionMiddleware",
    "AgentContext",
    "ChatContext",
    "FunctionInvocationContext",
    "AgentSession",
    "SessionContext",
    "ContextProvider",
    "HistoryProvider",
    "InMemoryHistoryProvider",
    "FileHistoryProvider",
    "Skill",
    "SkillFrontmatter",
    "SkillResource",
    "SkillScript",
    "SkillScriptRunner",
    "SkillsProvider",
    "InlineSkill",
    "FileSkill",
    "ClassSkill",
    "MCPTool",
    "MCPStdioTool",
    "MCPStreamableHTTPTool",
    "MCPWebsocketTool",
    "MCPTaskOptions",
    "AgentFileStore",
    "InMemoryAgentFileStore",
    "FileSystemAgentFileStore",
    "FileSearchResult",
    "FileSearchMatch",
    "FileAccessProvider",
    "MemoryContextProvider",
    "SerializationMixin",
    "Workflow",
    "WorkflowBuilder",
    "WorkflowRunResult",
    "SequentialOrchestrator",
    "ConcurrentOrchestrator",
    "GroupChatOrchestrator",
    "MagenticOrchestrator",
    "HandoffOrchestrator",
]


@pytest.mark.parametrize("name", SPEC_CORE_NAMES)
def test_every_core_name_of_the_spec_is_importable_from_the_package_root(name: str) -> None:
    import agentry

    assert name in agentry.__all__
    assert getattr(agentry, name) is not None


def test_the_openai_clients_are_where_the_spec_puts_them() -> None:
    from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient

    assert issubclass(OpenAIChatClient, BaseChatClient)
    assert issubclass(OpenAIChatCompletionClient, BaseChatClient)
