"""Misspelled keywords and chat options fail loudly; values for tools travel in one place."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from agentry import (
    Agent,
    AgentContext,
    AgentMiddleware,
    BaseAgent,
    FunctionInvocationContext,
    Message,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.sessions import AgentSession


async def test_a_misspelled_run_keyword_names_the_one_meant() -> None:
    client = ScriptedChatClient(["Hello Ada"])
    agent = Agent(client=client)
    session = agent.create_session()
    with pytest.raises(
        TypeError,
        match=r"Agent.run\(\) got unknown keyword argument 'sesion' \(did you mean 'session'\?\)",
    ):
        await agent.run("I am Ada", sesion=session)  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]
    with pytest.raises(TypeError, match="did you mean 'stream'"):
        agent.run("I am Ada", strem=True)  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]
    assert not client.calls  # nothing ran


def test_a_misspelled_constructor_keyword_names_the_one_meant() -> None:
    with pytest.raises(
        TypeError, match=r"Agent\(\) got unknown keyword argument 'tool' \(did you mean 'tools'\?\)"
    ):
        Agent(client=ScriptedChatClient(), tool=[])  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]


async def test_an_unknown_chat_option_names_the_closest_one() -> None:
    client = ScriptedChatClient(["ok"])
    agent = Agent(client=client)
    with pytest.raises(
        TypeError,
        match=r"unknown chat option 'temprature' \(did you mean 'temperature'\?\) in options",
    ):
        await agent.run("hi", options={"temprature": 0})  # type: ignore[typeddict-unknown-key]  # pyright: ignore[reportArgumentType]
    with pytest.raises(
        TypeError,
        match=r"in default_options; put provider-specific .* default_options\['additional_properties'\]",
    ):
        Agent(client=client, default_options={"max_token": 10})  # type: ignore[typeddict-unknown-key]  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError, match="did you mean 'seed'"):
        await client.get_response("hi", options={"sed": 1})  # type: ignore[typeddict-unknown-key]  # pyright: ignore[reportArgumentType]
    assert not client.calls


async def test_provider_fields_go_through_additional_properties() -> None:
    client = ScriptedChatClient(["ok"])
    options: Any = {"temperature": 0, "additional_properties": {"reasoning_effort": "low"}}
    await Agent(client=client, default_options=options).run("hi")
    assert client.calls[0].options.get("additional_properties") == {"reasoning_effort": "low"}


async def test_an_unknown_get_response_keyword_names_the_closest_one() -> None:
    client = ScriptedChatClient(["ok"])
    with pytest.raises(
        TypeError,
        match=r"get_response\(\) got unknown keyword argument 'option' \(did you mean 'options'\?\)",
    ):
        await client.get_response("hi", option={})  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]


async def test_function_invocation_kwargs_reach_tools_and_never_the_model() -> None:
    seen: dict[str, Any] = {}

    @tool
    def lookup(key: str, **kwargs: Any) -> str:
        """Look a key up for the current user."""
        seen["kwargs"] = kwargs
        return f"{key} for {kwargs['user_id']}"

    @tool
    def whoami(context: FunctionInvocationContext) -> str:
        """Who is asking."""
        seen["context"] = dict(context.kwargs)
        return str(context.kwargs["user_id"])

    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("lookup", {"key": "plan", "user_id": "from-model"}, "c1"), ("whoami", {}, "c2")]
            ),
            "done",
        ]
    )
    agent = Agent(client=client, tools=[lookup, whoami])
    response = await agent.run(
        "my plan?", function_invocation_kwargs={"user_id": "u1", "tenant": "t1"}
    )

    # an argument the tool does not declare is dropped: the model cannot set these values
    assert seen["kwargs"] == {"user_id": "u1", "tenant": "t1"}
    assert seen["context"] == {"user_id": "u1", "tenant": "t1"}
    assert [c.result for c in response.messages[1].contents] == ["plan for u1", "u1"]
    sent = repr([m.to_dict() for m in client.calls[0].messages]) + repr(client.calls[0].options)
    assert "t1" not in sent
    assert "user_id" not in repr(lookup.parameters())


async def test_agent_middleware_can_set_the_values_for_tools() -> None:
    class Tenant(AgentMiddleware):
        async def process(
            self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
        ) -> None:
            context.function_invocation_kwargs["tenant"] = "from-middleware"
            await call_next()

    @tool
    def tenant(context: FunctionInvocationContext) -> str:
        """The tenant."""
        return str(context.kwargs.get("tenant"))

    client = ScriptedChatClient([ScriptedChatClient.function_call("tenant"), "done"])
    agent = Agent(client=client, tools=[tenant], middleware=[Tenant()])
    stream = agent.run("who?", stream=True)
    response = await stream.get_final_response()
    assert response.messages[1].contents[0].result == "from-middleware"


class _Greeter(BaseAgent):
    async def run(
        self, messages: list[Message], *, session: AgentSession | None = None, style: str = "plain"
    ) -> str:
        return f"{style}: hello"


async def test_a_custom_agent_takes_the_keywords_its_run_declares_and_no_others() -> None:
    greeter: Any = _Greeter()
    assert (await greeter.run("hi", style="loud")).text == "loud: hello"
    with pytest.raises(
        TypeError,
        match=r"_Greeter.run\(\) got unknown keyword argument 'styl' \(did you mean 'style'\?\)",
    ):
        greeter.run("hi", styl="loud")
    with pytest.raises(TypeError, match="did you mean 'session'"):
        greeter.run("hi", sesion=None, stream=True)


async def test_an_agent_that_inherits_run_names_itself_for_a_misspelled_keyword() -> None:
    from agentry.workflows import WorkflowBuilder

    writer = Agent(client=ScriptedChatClient(["Hi"]), name="writer")
    agent = WorkflowBuilder(start_executor=writer).build().as_agent()
    with pytest.raises(
        TypeError,
        match=r"WorkflowAgent.run\(\) got unknown keyword argument 'sesion' "
        r"\(did you mean 'session'\?\)",
    ):
        await agent.run("Hi", sesion=agent.create_session())  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]
    assert (await agent.run("Hi")).text == "Hi"
