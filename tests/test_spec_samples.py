"""The specification's samples run with only the import changed."""

from typing import Any

from agentry.clients.scripted import ScriptedChatClient


async def test_middleware_pipeline_sample(capsys: Any) -> None:
    from agentry import Agent, AgentContext, AgentMiddleware

    class LoggingMiddleware(AgentMiddleware):
        async def process(self, context: AgentContext, call_next) -> None:  # type: ignore[no-untyped-def]
            print(f"Input: {context.messages}")
            await call_next()
            print(f"Output: {context.result}")

    agent = Agent(client=ScriptedChatClient(["Hi!"]), middleware=[LoggingMiddleware()])
    await agent.run("Hello")
    printed = capsys.readouterr().out
    assert "Input: [Message(role='user'" in printed
    assert "Output: AgentResponse(messages=[Message(role='assistant'" in printed


async def test_custom_chat_client_sample() -> None:
    from agentry import BaseChatClient, ChatResponse, ChatResponseUpdate, Message

    class MyClient(BaseChatClient):
        async def _inner_get_response(self, *, messages, options, **kwargs) -> ChatResponse:  # type: ignore[no-untyped-def]
            # Call your LLM here
            return ChatResponse(messages=[Message(role="assistant", contents=["Hi!"])])

        async def _inner_get_streaming_response(self, *, messages, options, **kwargs):  # type: ignore[no-untyped-def]
            yield ChatResponseUpdate(role="assistant", contents=["Hi!"])

    client = MyClient()
    assert (await client.get_response("Hello")).text == "Hi!"
    stream = client.get_response("Hello", stream=True)
    assert [u.text async for u in stream] == ["Hi!"]
    agent = client.as_agent(name="Assistant", instructions="You are helpful.")
    assert (await agent.run("Hello")).text == "Hi!"
    assert (await agent.run("Hello", stream=True)).text == "Hi!"


async def test_creating_an_agent_sample() -> None:
    from agentry import Agent

    def my_function(city: str) -> str:
        """Look up a city."""
        return f"{city} is lovely"

    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("my_function", {"city": "Lyon"}), "Lyon is lovely."]
    )
    agent = Agent(
        client=client,
        instructions="You are helpful.",
        tools=[my_function],
    )
    response = await agent.run("Hello")
    assert response.text == "Lyon is lovely."


async def test_creating_an_agent_with_the_openai_client_sample(
    monkeypatch: Any, tmp_path: Any
) -> None:
    from pathlib import Path

    from agentry.testing import ReplayServer

    recordings = Path(__file__).parent / "openai" / "recordings"
    with ReplayServer(recordings / "responses_text.json") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_MODEL", "o4-mini")

        from agentry import Agent
        from agentry.openai import OpenAIChatClient

        def my_function(city: str) -> str:
            """Look up a city."""
            return city

        agent = Agent(
            client=OpenAIChatClient(),
            instructions="You are helpful.",
            tools=[my_function],
        )
        response = await agent.run("Hello")
        assert response.text == "Paris."
        assert server.bodies[0]["instructions"] == "You are helpful."
        assert server.bodies[0]["tools"][0]["name"] == "my_function"


def test_as_agent_shorthand_sample(monkeypatch: Any) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_MODEL", "gpt-4.1")
    from agentry.openai import OpenAIChatClient

    agent = OpenAIChatClient().as_agent(
        name="Assistant",
        instructions="You are helpful.",
    )
    assert (agent.name, agent.instructions) == ("Assistant", "You are helpful.")
