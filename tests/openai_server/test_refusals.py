"""What the server refuses, and how: OpenAI-shaped errors the SDK raises as its own."""

from __future__ import annotations

from typing import Any, cast

import httpx
import pytest

import openai
from agentry import Agent, WorkflowBuilder, executor, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ChatClientError
from agentry.types import Message
from agentry.workflows import WorkflowContext
from tests.openai_server.conftest import openai_client, serve

HELLO: Any = [{"role": "user", "content": "Hello"}]


async def ask(client: openai.AsyncOpenAI, model: str, *, stream: bool) -> None:
    """One request, its stream read to the end."""
    if not stream:
        await client.chat.completions.create(model=model, messages=HELLO)
        return
    async for _ in await client.chat.completions.create(model=model, messages=HELLO, stream=True):
        pass


def greeter(*answers: Any) -> Agent:
    return Agent(client=ScriptedChatClient(answers or ["Hi!"]), name="greeter")


async def test_only_callers_with_a_key_are_served() -> None:
    async with serve(greeter("Hi!"), api_keys=["k-old", "k-new"]) as url:
        async with openai_client(url, api_key="wrong") as openai_:
            with pytest.raises(openai.AuthenticationError, match="a valid API key is needed"):
                await openai_.models.list()
            with pytest.raises(openai.AuthenticationError):
                await openai_.chat.completions.create(model="greeter", messages=HELLO)
        async with openai_client(url, api_key="k-new") as openai_:
            completion = await openai_.chat.completions.create(model="greeter", messages=HELLO)
            models = [m.id async for m in openai_.models.list()]

    assert completion.choices[0].message.content == "Hi!"
    assert models == ["greeter"]


async def test_an_unknown_model_is_a_404_that_names_the_served_ones() -> None:
    async with serve({"greeter": greeter(), "other": greeter()}) as url, openai_client(url) as o:
        with pytest.raises(openai.NotFoundError, match="serves 'greeter', 'other'") as caught:
            await o.chat.completions.create(model="gpt-4.1", messages=HELLO)
        assert (await o.models.retrieve("other")).id == "other"
        with pytest.raises(openai.NotFoundError):
            await o.models.retrieve("gpt-4.1")

    body = cast(dict[str, object], caught.value.body)
    assert body["code"] == "model_not_found"


REFUSED: list[tuple[dict[str, Any], str]] = [
    (
        {"extra_body": {"functions": [{"name": "f", "parameters": {}}]}},
        "functions: the legacy function-calling fields are not served; declare them in tools",
    ),
    (
        {"tools": [{"type": "function", "function": {"name": "bad name!"}}]},
        "tools.0.function.name: String should match pattern",
    ),
    ({"n": 2}, "n: Input should be 1"),
    ({"logprobs": True}, "logprobs: Input should be False"),
    ({"extra_body": {"store": True}}, "store: not supported by this server"),
    ({"messages": []}, "messages: List should have at least 1 item"),
    (
        {"messages": [{"role": "user", "content": [{"type": "file", "file": {"file_id": "f-1"}}]}]},
        "file_id: not supported",
    ),
]


@pytest.mark.parametrize(("extra", "says"), REFUSED)
async def test_a_request_the_agent_cannot_honour_is_refused_by_name(
    extra: dict[str, Any], says: str
) -> None:
    model = ScriptedChatClient(["Hi!"])
    agent = Agent(client=model, name="greeter")
    request: dict[str, Any] = {"model": "greeter", "messages": HELLO, **extra}
    async with serve(agent) as url, openai_client(url) as o:
        with pytest.raises(openai.BadRequestError, match=says):
            await o.chat.completions.create(**request)

    assert model.calls == []


async def test_a_body_too_large_or_not_json_is_refused() -> None:
    async with serve(greeter(), max_request_bytes=1000) as url, httpx.AsyncClient() as http:
        large = await http.post(
            f"{url}/chat/completions",
            json={"model": "greeter", "messages": [{"role": "user", "content": "x" * 2000}]},
        )
        broken = await http.post(f"{url}/chat/completions", content=b"{not json")

    assert large.status_code == 413
    assert "larger than the server accepts (1000 bytes)" in large.json()["error"]["message"]
    assert broken.status_code == 400
    assert "not JSON" in broken.json()["error"]["message"]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_tool_that_needs_approval_is_a_clear_error(stream: bool) -> None:
    @tool(approval_mode="always_require")
    def delete_file(path: str) -> str:
        """Delete a file."""
        return "deleted"

    model = ScriptedChatClient([ScriptedChatClient.function_call("delete_file", {"path": "a"})])
    agent = Agent(client=model, name="janitor", tools=[delete_file])
    async with serve(agent) as url, openai_client(url) as o:
        with pytest.raises(openai.APIError, match="approval of a call of 'delete_file'") as caught:
            await ask(o, "janitor", stream=stream)

    if not stream:
        assert isinstance(caught.value, openai.UnprocessableEntityError)


@pytest.mark.parametrize(
    ("failure", "status", "says"),
    [
        (ChatClientError("slow down", status_code=429, retry_after=3), 429, "rate limited"),
        (ChatClientError("upstream broke", status_code=500), 502, "the agent's model failed"),
        (RuntimeError("secret internals"), 500, "the server's log says why"),
    ],
)
async def test_a_failing_model_is_answered_with_a_status_the_caller_can_act_on(
    failure: Exception, status: int, says: str
) -> None:
    agent = Agent(client=ScriptedChatClient([failure, failure], retry=None), name="greeter")
    async with serve(agent) as url, httpx.AsyncClient() as http:
        body = {"model": "greeter", "messages": HELLO}
        plain = await http.post(f"{url}/chat/completions", json=body)
        streamed = await http.post(f"{url}/chat/completions", json={**body, "stream": True})

    for answer in (plain, streamed):
        assert answer.status_code == status
        assert says in answer.json()["error"]["message"]
        assert "secret internals" not in answer.text
    if status == 429:
        assert plain.headers["retry-after"] == "3"


async def test_a_workflow_is_served_and_refuses_options_it_cannot_take() -> None:
    @executor(id="shout")
    async def shout(messages: list[Message], ctx: WorkflowContext[Any, str]) -> None:
        await ctx.yield_output(messages[-1].text.upper())

    workflow = WorkflowBuilder(start_executor=shout).build()
    async with serve({"shouter": workflow.as_agent()}) as url, openai_client(url) as o:
        completion = await o.chat.completions.create(model="shouter", messages=HELLO)
        with pytest.raises(openai.BadRequestError, match="does not take the request's options"):
            await o.chat.completions.create(model="shouter", messages=HELLO, temperature=0.5)

    assert completion.choices[0].message.content == "HELLO"


def test_bad_settings_are_clear_errors() -> None:
    from agentry.openai.server import create_app

    with pytest.raises(ValueError, match="needs an agent"):
        create_app({})
    with pytest.raises(ValueError, match="API key must not be empty"):
        create_app(greeter(), api_keys=[""])
    with pytest.raises(ValueError, match="max_request_bytes must be at least 1"):
        create_app(greeter(), max_request_bytes=0)
