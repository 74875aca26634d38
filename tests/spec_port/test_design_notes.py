"""The design notes' idioms where they describe API a user calls: custom agents (one with
its own tool loop, one of deterministic rules), threads as lists of messages, concurrent
runs of one agent, `@FunctionTool` and `Message("Hello")`."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from agentry import (
    Agent,
    AgentSession,
    BaseAgent,
    BaseChatClient,
    FunctionTool,
    Message,
    SupportsAgentRun,
    WorkflowBuilder,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient


@tool
def find_file(name: str) -> str:
    """Find a file by name."""
    return f"/home/ada/{name}"


class ToolCallingAgent(BaseAgent):
    """Calls the model once; runs the tool it asks for and answers with the tool's result."""

    def __init__(self, model_client: BaseChatClient, tools: list[FunctionTool]) -> None:
        super().__init__(name="tool_caller")
        self.model_client = model_client
        self.tools = {t.name: t for t in tools}

    async def run(
        self, messages: list[Message], *, session: AgentSession | None = None, **kwargs: Any
    ) -> Message:
        response = await self.model_client.get_response(
            messages, options={"tools": list(self.tools.values())}
        )
        calls = [c for m in response.messages for c in m.contents if c.type == "function_call"]
        if not calls:
            return response.messages[-1]
        results = [
            str(await self.tools[call.name or ""].invoke(arguments=call.parse_arguments()))
            for call in calls
        ]
        return Message("assistant", results)


class CriticAgent(BaseAgent):
    """Checks the last message with fixed rules instead of a model."""

    async def run(
        self, messages: list[Message], *, session: AgentSession | None = None, **kwargs: Any
    ) -> Message:
        verified = messages[-1].text.endswith(".") and len(messages[-1].text) < 80
        return Message("assistant", ["The response is verified." if verified else "Rejected."])


async def test_a_custom_agent_runs_its_own_tool_loop_on_a_thread_of_messages() -> None:
    model_client = ScriptedChatClient(
        [ScriptedChatClient.function_call("find_file", {"name": "foo.txt"})]
    )
    agent = cast(SupportsAgentRun, ToolCallingAgent(model_client=model_client, tools=[find_file]))
    thread = [
        Message("user", ["Hello"]),
        Message("user", ["Can you find the file 'foo.txt' for me?"]),
    ]
    result = await agent.run(thread)

    assert result.text == "/home/ada/foo.txt"
    assert [m.text for m in model_client.calls[0].messages] == [m.text for m in thread]
    assert model_client.calls[0].tool_names == ["find_file"]


async def test_a_deterministic_critic_reviews_another_agent_in_a_workflow() -> None:
    writer = ScriptedChatClient(["Otters hold hands while they sleep."]).as_agent(name="writer")
    critic = CriticAgent(name="critic")
    workflow = (
        WorkflowBuilder(start_executor=writer, output_from=[critic])
        .add_edge(writer, critic)
        .build()
    )
    result = await workflow.run("A fact about otters.")

    assert [response.text for response in result.get_outputs()] == ["The response is verified."]


async def test_one_agent_runs_concurrently_on_separate_threads() -> None:
    def answer(messages: list[Message], options: Any) -> str:
        wanted = messages[-1].text.split("'")[1]
        return f"Looking for {wanted}."

    agent = Agent(client=ScriptedChatClient([answer, answer]), tools=[find_file])
    thread1 = [Message("user", ["Hello"]), Message("user", ["Find 'foo.txt'."])]
    thread2 = [Message("user", ["Hello"]), Message("user", ["Find 'bar.txt'."])]
    results = await asyncio.gather(agent.run(thread1), agent.run(thread2))

    assert sorted(r.text for r in results) == ["Looking for bar.txt.", "Looking for foo.txt."]


def test_function_tool_as_a_bare_decorator_works_or_points_to_tool() -> None:
    def decorate() -> FunctionTool | TypeError:
        try:

            @FunctionTool  # type: ignore[call-arg]
            def my_tool(input: str) -> str:
                """Echo the input."""
                return f"Tool result for {input}"

        except TypeError as error:
            return error
        return my_tool

    outcome = decorate()
    if isinstance(outcome, TypeError):
        assert "@tool" in str(outcome)
    else:
        assert outcome.name == "my_tool"


def test_a_message_of_text_alone_is_a_user_message_or_a_clear_error() -> None:
    def make() -> Message | ValueError:
        try:
            return Message("Hello")
        except ValueError as error:
            return error

    outcome = make()
    if isinstance(outcome, ValueError):
        assert 'Message("user", "Hello")' in str(outcome)
    else:
        assert (outcome.role, outcome.text) == ("user", "Hello")
