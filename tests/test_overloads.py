"""The `stream=False`/`stream=True` overloads of `run` and `get_response`: written once per
shape, seen alike through the protocols and the classes, and still strict about keywords."""

from __future__ import annotations

import ast
import re
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, cast

import pytest
from typing_extensions import Never, Unpack, assert_type

from agentry import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    BaseAgent,
    ChatResponse,
    ChatResponseUpdate,
    Message,
    ResponseStream,
    SupportsAgentRun,
    SupportsChatGetResponse,
)
from agentry.agents import AgentRunOptions
from agentry.clients import BaseChatClient
from agentry.clients.scripted import ScriptedChatClient
from agentry.workflows import (
    Executor,
    WorkflowAgent,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    WorkflowRunResult,
    handler,
)

SRC = Path(__file__).resolve().parents[1] / "src" / "agentry"

# Each shape's overloads and where they are written: the agent run and the chat call in
# the protocols, `Agent.run` again for its extra keywords, and the workflow run.
OVERLOADED_SHAPES = {
    "protocols.py: AgentRunMethod.__call__",
    "protocols.py: ChatGetResponseMethod.__call__",
    "agents/_agent.py: Agent.run",
    "workflows/_workflow.py: Workflow.run",
}


def _is_overload(decorator: ast.expr) -> bool:
    return (isinstance(decorator, ast.Name) and decorator.id == "overload") or (
        isinstance(decorator, ast.Attribute) and decorator.attr == "overload"
    )


def overloaded_run_methods() -> dict[str, int]:
    """Where `run`, `get_response` or a call shape's `__call__` is overloaded in the
    package, and how many overloads each place writes."""
    found: dict[str, int] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if (
                    isinstance(item, ast.FunctionDef)
                    and item.name in {"run", "get_response", "__call__"}
                    and any(_is_overload(d) for d in item.decorator_list)
                ):
                    where = f"{path.relative_to(SRC).as_posix()}: {node.name}.{item.name}"
                    found[where] = found.get(where, 0) + 1
    return found


def test_each_run_shape_is_overloaded_in_one_place() -> None:
    found = overloaded_run_methods()
    assert set(found) == OVERLOADED_SHAPES
    assert all(count == 2 for count in found.values()), found


class Echo(BaseAgent):
    async def run(self, messages: list[Message], *, session: object = None) -> str:
        return f"echo: {messages[-1].text}"


class Doubler(Executor):
    @handler
    async def double(self, number: int, ctx: WorkflowContext[Never, int]) -> None:
        await ctx.yield_output(number * 2)

    @handler
    async def double_text(self, messages: list[Message], ctx: WorkflowContext[Never, str]) -> None:
        await ctx.yield_output(messages[-1].text * 2)


def _workflow_agent() -> WorkflowAgent:
    return WorkflowBuilder(start_executor=Doubler(id="doubler")).build().as_agent(name="doubler")


async def test_the_classes_return_what_the_overloads_say() -> None:
    client = ScriptedChatClient(["one", "two", "three", "four"])
    response = client.get_response("hi")
    assert_type(response, Awaitable[ChatResponse])
    assert (await response).text == "one"
    stream = client.get_response("hi", stream=True)
    assert_type(stream, ResponseStream[ChatResponseUpdate, ChatResponse])
    assert (await stream.get_final_response()).text == "two"

    agent = Agent(client=client, name="helper")
    agent_response = agent.run("hi", options={"temperature": 0})
    assert_type(agent_response, Awaitable[AgentResponse])
    assert (await agent_response).text == "three"
    agent_stream = agent.run("hi", stream=True, tools=[])
    assert_type(agent_stream, ResponseStream[AgentResponseUpdate, AgentResponse])
    assert [update.text async for update in agent_stream] == ["four"]

    workflow = WorkflowBuilder(start_executor=Doubler(id="doubler")).build()
    run = workflow.run(21, include_status_events=True)
    _ = assert_type(run, Coroutine[Any, Any, WorkflowRunResult])
    assert (await run).get_outputs() == [42]
    events = workflow.run(4, stream=True)
    assert_type(events, ResponseStream[WorkflowEvent[Any], WorkflowRunResult])
    assert (await events.get_final_response()).get_outputs() == [8]


def ask(
    agent: Agent, question: str, **run_options: Unpack[AgentRunOptions]
) -> Awaitable[AgentResponse]:
    """A wrapper that passes `Agent.run`'s keywords on, typed."""
    return agent.run(question, **run_options)


async def test_a_wrapper_passes_the_agents_run_options_on() -> None:
    client = ScriptedChatClient(["noted"])
    response = await ask(Agent(client=client), "hi", options={"temperature": 0.5})
    assert response.text == "noted"
    assert client.calls[0].options.get("temperature") == 0.5


async def test_every_agent_and_client_satisfies_its_protocol() -> None:
    client: SupportsChatGetResponse = ScriptedChatClient(["hello", "hi"])
    # A custom agent's type is the `run` it wrote; the protocol gives it the overloads.
    echo = cast(SupportsAgentRun, Echo())
    agents: list[SupportsAgentRun] = [Agent(client=client), echo, _workflow_agent()]
    for agent in agents:
        response = agent.run("2")
        assert_type(response, Awaitable[AgentResponse])
        stream = agent.run("3", stream=True)
        assert_type(stream, ResponseStream[AgentResponseUpdate, AgentResponse])
        assert (await response).text
        assert (await stream.get_final_response()).text
    assert [isinstance(agent, SupportsAgentRun) for agent in agents] == [True, True, True]
    assert isinstance(client, SupportsChatGetResponse)


def test_run_and_get_response_keep_their_names() -> None:
    assert vars(BaseAgent)["run"].__name__ == "run"
    assert "_run" not in vars(BaseAgent)
    assert vars(BaseChatClient)["get_response"].__name__ == "get_response"
    assert Echo.run.__name__ == "run"


_CLIENT = ScriptedChatClient()

# (the call, who it names, the misspelled keyword, the one meant); the checker refuses them.
MISSPELLED_CALLS: list[tuple[Callable[[], object], str, str, str]] = [
    (lambda: _workflow_agent().run("2", sesion=None), "WorkflowAgent.run", "sesion", "session"),  # pyright: ignore[reportCallIssue, reportUnknownLambdaType]
    (lambda: Echo().run("hi", sesion=None), "Echo.run", "sesion", "session"),  # pyright: ignore[reportCallIssue, reportUnknownLambdaType]
    (lambda: Agent(client=_CLIENT).run("hi", tool=[]), "Agent.run", "tool", "tools"),  # pyright: ignore[reportCallIssue, reportUnknownLambdaType]
    (
        lambda: _CLIENT.get_response("hi", option=None),  # pyright: ignore[reportCallIssue, reportUnknownLambdaType]
        "ScriptedChatClient.get_response",
        "option",
        "options",
    ),
]


@pytest.mark.parametrize(("call", "who", "wrong", "meant"), MISSPELLED_CALLS)
def test_a_misspelled_keyword_names_the_closest_one(
    call: Callable[[], object], who: str, wrong: str, meant: str
) -> None:
    expected = f"{who}() got unknown keyword argument '{wrong}' (did you mean '{meant}'?)"
    with pytest.raises(TypeError, match=re.escape(expected)):
        call()
    assert not _CLIENT.calls
