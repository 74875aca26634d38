"""A2A `auth-required`: in band (credentials on the same task) and out of band (a flow
completed elsewhere), over 127.0.0.1 with the a2a-sdk client and with `A2AAgent`."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from a2a.client import Client
from a2a.server.agent_execution import RequestContext
from a2a.server.context import ServerCallContext
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageRequest,
    Task,
    TaskState,
    TaskStatus,
)
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from agentry import (
    Agent,
    AuthorizationRequired,
    Content,
    FunctionInvocationContext,
    Message,
    require_authorization,
    tool,
)
from agentry.a2a import A2AAgent, A2AApp, A2AConfigError, AgentryAgentExecutor, create_app
from agentry.a2a._authorizations import OutOfBandWaits, take_credentials
from agentry.a2a._parts import data_of
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import ChatOptions

from .conftest import BINDINGS, a2a_client, serve
from .helpers import artifact_text, send_blocking, user_message

pytestmark = pytest.mark.timeout(60)

TOKEN = "ghp_a2a_secret_token_4242"
GITHUB_NEEDS = "A GitHub token that can read repositories"

# The application's token store, filled by its OAuth callback once the person consents.
calendar_tokens: dict[str, str] = {}


@pytest.fixture(autouse=True)
def no_calendar_token() -> None:
    calendar_tokens.clear()


@tool
def list_repos(owner: str, context: FunctionInvocationContext) -> str:
    """List the owner's repositories."""
    token = require_authorization(context, GITHUB_NEEDS, url="https://github.com/settings")
    if token["token"] != TOKEN:
        raise AuthorizationRequired(GITHUB_NEEDS, reason="GitHub refused the token")
    return f"{owner}/agentry"


@tool
def read_calendar(context: FunctionInvocationContext) -> str:
    """Read the user's calendar."""
    if "calendar" not in calendar_tokens:
        raise AuthorizationRequired(
            "Access to your calendar",
            scheme="oauth2",
            url=f"https://auth.example.com/authorize?state={context.call_id}",
            flow="out_of_band",
        )
    return "Lunch at noon"


def found(messages: list[Message], options: ChatOptions) -> str:
    del options
    return f"Found {messages[-1].contents[-1].result}."


def github_agent() -> Agent:
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("list_repos", {"owner": "ada"}, call_id="c1"), found]
    )
    return Agent(client=client, name="github", tools=[list_repos])


def calendar_agent() -> Agent:
    look = Content.from_function_call(call_id="k1", name="read_calendar", arguments={})
    client = ScriptedChatClient([Message("assistant", ["Let me look. ", look]), found])
    return Agent(client=client, name="calendar", tools=[read_calendar])


def status_data(task: Task) -> list[Any]:
    return [data_of(p) for p in task.status.message.parts if p.HasField("data")]


def status_text(task: Task) -> str:
    return " ".join(p.text for p in task.status.message.parts if p.text)


def credentials(value: Any, request_id: str | None = "c1") -> dict[str, Any]:
    return (
        {"credentials": value} if request_id is None else {"id": request_id, "credentials": value}
    )


FINAL_STATES = (
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
)


async def until_ended(client: Client, task_id: str) -> Task:
    """The task once it has ended (polled; the test's timeout guards the wait)."""
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state in FINAL_STATES:
            return task
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("binding", BINDINGS)
async def test_in_band_credentials_on_the_same_task_resume_it(binding: str) -> None:
    async with (
        serve(github_agent()) as server,
        a2a_client(server.url, binding, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("list ada's repositories"))
        done = await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials({"token": TOKEN}))
        )
    assert waiting.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert status_data(waiting) == [
        {
            "kind": "authorization_request",
            "id": "c1",
            "scheme": "bearer",
            "description": GITHUB_NEEDS,
            "flow": "in_band",
            "url": "https://github.com/settings",
            "call_id": "c1",
            "name": "list_repos",
            "arguments": {"owner": "ada"},
        }
    ]
    assert "Send a bearer credential for list_repos" in status_text(waiting)
    assert '"credentials"' in status_text(waiting)
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Found ada/agentry."


async def test_missing_or_malformed_credentials_keep_the_task_waiting_and_say_why() -> None:
    async with serve(github_agent()) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("list ada's repositories"))
        no_credentials = await send_blocking(client, user_message("here", task_id=waiting.id))
        malformed = await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials("just-a-string"))
        )
        wrong_id = await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials({"token": TOKEN}, "c9"))
        )
        without_id = await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials({"token": TOKEN}, None))
        )
    assert no_credentials.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert "still waits for a bearer credential for list_repos" in status_text(no_credentials)
    assert malformed.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert "credentials for request c1 were not accepted" in status_text(malformed)
    assert "mapping of names to strings" in status_text(malformed)
    assert wrong_id.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert "No request with id 'c9' waits for credentials" in status_text(wrong_id)
    assert without_id.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(without_id) == "Found ada/agentry."


async def test_refused_credentials_ask_again_with_the_reason() -> None:
    async with serve(github_agent()) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("list ada's repositories"))
        refused = await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials({"token": "expired"}))
        )
        done = await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials({"token": TOKEN}))
        )
    assert refused.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert status_data(refused)[0]["reason"] == "GitHub refused the token"
    assert "were not accepted: GitHub refused the token" in status_text(refused)
    assert artifact_text(done) == "Found ada/agentry."


async def test_declining_tells_the_agent_the_call_did_not_run() -> None:
    async with serve(github_agent()) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("list ada's repositories"))
        done = await send_blocking(client, user_message("no", task_id=waiting.id))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert "did not authorize" in artifact_text(done)


async def test_credentials_are_kept_out_of_the_task_store_and_the_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="agentry")
    database = tmp_path / "tasks.sqlite"
    async with (
        serve(github_agent(), database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("list ada's repositories"))
        await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials({"token": TOKEN}))
        )
        stored = await client.get_task(GetTaskRequest(id=waiting.id))
    sent = [data_of(p) for m in stored.history for p in m.parts if p.HasField("data")]
    assert {"credentials": "[withheld]", "id": "c1"} in sent
    assert artifact_text(stored) == "Found ada/agentry."
    files = [path.read_bytes() for path in tmp_path.iterdir() if path.is_file()]
    assert files
    assert all(TOKEN.encode() not in content for content in files)
    assert all(TOKEN not in record.getMessage() for record in caplog.records)


async def test_a_task_waiting_for_credentials_resumes_after_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "tasks.sqlite"
    async with (
        serve(github_agent(), database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("list ada's repositories"))
    restarted = Agent(client=ScriptedChatClient([found]), name="github", tools=[list_repos])
    async with (
        serve(restarted, database=database) as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        done = await send_blocking(
            client, user_message(task_id=waiting.id, data=credentials({"token": TOKEN}))
        )
    assert artifact_text(done) == "Found ada/agentry."


@pytest.mark.parametrize("binding", BINDINGS)
async def test_out_of_band_the_run_waits_until_the_host_completes_it(binding: str) -> None:
    async with (
        serve(calendar_agent()) as server,
        a2a_client(server.url, binding, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("what is on today?"))
        (request,) = status_data(waiting)
        calendar_tokens["calendar"] = "granted"
        assert server.app.complete_authorization(waiting.id)
        done = await until_ended(client, waiting.id)
    assert waiting.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert request["flow"] == "out_of_band"
    assert request["url"] == "https://auth.example.com/authorize?state=k1"
    assert "the task goes on once that is done" in status_text(waiting)
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Let me look. Found Lunch at noon."


async def test_out_of_band_a_streaming_client_sees_the_task_go_on() -> None:
    states: list[int] = []
    task_id = ""
    async with serve(calendar_agent()) as server, a2a_client(server.url) as client:
        async for event in client.send_message(user_message("what is on today?")):
            if event.HasField("status_update"):
                task_id = event.status_update.task_id
                state = event.status_update.status.state
                states.append(state)
                if state == TaskState.TASK_STATE_AUTH_REQUIRED:
                    calendar_tokens["calendar"] = "granted"
                    assert server.app.complete_authorization(request_id="k1")
        done = await client.get_task(GetTaskRequest(id=task_id))
    after = states[states.index(TaskState.TASK_STATE_AUTH_REQUIRED) :]
    assert after[:2] == [TaskState.TASK_STATE_AUTH_REQUIRED, TaskState.TASK_STATE_WORKING]
    assert after[-1] == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Let me look. Found Lunch at noon."


async def test_out_of_band_a_message_on_the_task_checks_again() -> None:
    async with serve(calendar_agent()) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("what is on today?"))
        too_early = await send_blocking(client, user_message("done?", task_id=waiting.id))
        calendar_tokens["calendar"] = "granted"
        done = await send_blocking(client, user_message("done", task_id=waiting.id))
        assert not server.app.complete_authorization(waiting.id)
    assert too_early.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert artifact_text(done) == "Let me look. Found Lunch at noon."


async def test_complete_authorization_needs_one_id() -> None:
    async with serve(calendar_agent()) as server:
        with pytest.raises(ValueError, match="needs the task_id of the waiting task"):
            server.app.complete_authorization()
        assert not server.app.complete_authorization(request_id="unknown")


@pytest.mark.parametrize("agent", [github_agent, calendar_agent])
async def test_a_task_waiting_for_authorization_can_be_canceled(agent: Any) -> None:
    async with serve(agent()) as server, a2a_client(server.url, streaming=False) as client:
        waiting = await send_blocking(client, user_message("go"))
        canceled = await client.cancel_task(CancelTaskRequest(id=waiting.id))
        assert not server.app.complete_authorization(waiting.id)
        stored = await client.get_task(GetTaskRequest(id=waiting.id))
    assert waiting.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    assert stored.status.state == TaskState.TASK_STATE_CANCELED


async def test_a_message_reply_server_asks_for_authorization_with_a_task() -> None:
    async with (
        serve(calendar_agent(), reply_with="message") as server,
        a2a_client(server.url, streaming=False) as client,
    ):
        waiting = await send_blocking(client, user_message("what is on today?"))
        calendar_tokens["calendar"] = "granted"
        assert server.app.complete_authorization(waiting.id)
        done = await until_ended(client, waiting.id)
    assert waiting.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
    assert artifact_text(done) == "Let me look. Found Lunch at noon."


@pytest.mark.parametrize("streaming", [True, False])
async def test_a2a_agent_surfaces_the_request_and_sends_the_credentials(streaming: bool) -> None:
    async with (
        serve(github_agent()) as server,
        A2AAgent(url=server.url, streaming=streaming) as remote,
    ):
        session = remote.create_session()
        waiting = await remote.run("list ada's repositories", session=session)
        (request,) = waiting.user_input_requests
        refused = await remote.run(
            Message("user", [request.to_authorization_response({"token": "expired"})]),
            session=session,
        )
        (again,) = refused.user_input_requests
        done = await remote.run(
            Message("user", [again.to_authorization_response({"token": TOKEN})]),
            session=session,
        )
    assert request.type == "authorization_request"
    assert (request.id, request.scheme, request.flow, request.text) == (
        "c1",
        "bearer",
        "in_band",
        GITHUB_NEEDS,
    )
    assert request.function_call is not None
    assert request.function_call.name == "list_repos"
    assert again.message == "GitHub refused the token"
    assert done.text == "Found ada/agentry."
    assert TOKEN not in str(session.to_dict())


def oauth_callback(served: dict[str, A2AApp]) -> Route:
    """The application's OAuth callback: it stores the token and lets the task go on."""

    async def callback(request: Request) -> PlainTextResponse:
        calendar_tokens["calendar"] = f"exchanged {request.query_params['code']}"
        resumed = served["app"].complete_authorization(request_id=request.query_params["state"])
        return PlainTextResponse("You can close this page." if resumed else "Nothing waits.")

    return Route("/oauth/callback", callback)


@pytest.mark.parametrize("streaming", [True, False])
async def test_a2a_agent_follows_a_task_authorized_through_the_host_callback(
    streaming: bool,
) -> None:
    served: dict[str, A2AApp] = {}
    async with (
        serve(calendar_agent(), routes=[oauth_callback(served)]) as server,
        A2AAgent(url=server.url, streaming=streaming) as remote,
        httpx.AsyncClient() as browser,
    ):
        served["app"] = server.app
        session = remote.create_session()
        waiting = await remote.run("what is on today?", session=session)
        (request,) = waiting.user_input_requests
        # The person consents; the provider redirects the browser to the callback with
        # the `state` the tool put in the consent URL.
        state = parse_qs(urlsplit(request.uri or "").query)["state"][0]
        page = await browser.get(f"{server.url}/oauth/callback?state={state}&code=abc")
        async with a2a_client(server.url) as client:
            (task,) = (await client.list_tasks(ListTasksRequest())).tasks
            await until_ended(client, task.id)  # the task went on and ended meanwhile
        done = await remote.run(
            Message("user", [request.to_authorization_response()]), session=session
        )
    assert (request.flow, request.scheme) == ("out_of_band", "oauth2")
    assert waiting.text.startswith("Let me look. The agent needs authorization.")
    assert page.text == "You can close this page."
    assert done.text == "Found Lunch at noon."
    assert not done.user_input_requests


@pytest.mark.parametrize("streaming", [True, False])
async def test_a2a_agent_follows_a_task_still_running_when_the_caller_answers(
    streaming: bool,
) -> None:
    model_may_answer = asyncio.Event()
    polled_twice = asyncio.Event()
    task_reads: list[str] = []

    async def answer_when_allowed(messages: list[Message], options: ChatOptions) -> str:
        await model_may_answer.wait()
        return found(messages, options)

    async def watch(request: httpx.Request) -> None:
        if '"GetTask"' in request.content.decode():
            task_reads.append("GetTask")
            if len(task_reads) == 2:
                polled_twice.set()

    look = Content.from_function_call(call_id="k1", name="read_calendar", arguments={})
    model = ScriptedChatClient([Message("assistant", ["Let me look. ", look]), answer_when_allowed])
    agent = Agent(client=model, name="calendar", tools=[read_calendar])
    async with (
        serve(agent) as server,
        httpx.AsyncClient(timeout=30) as http,
        A2AAgent(url=server.url, streaming=streaming, httpx_client=http) as remote,
        a2a_client(server.url) as client,
    ):
        session = remote.create_session()
        waiting = await remote.run("what is on today?", session=session)
        (request,) = waiting.user_input_requests
        calendar_tokens["calendar"] = "granted"
        assert server.app.complete_authorization(request_id="k1")
        (task,) = (await client.list_tasks(ListTasksRequest())).tasks
        while task.status.state != TaskState.TASK_STATE_WORKING:  # the run went on
            await asyncio.sleep(0.02)
            task = await client.get_task(GetTaskRequest(id=task.id))
        # The run's model waits: the caller's answer finds the task working, and the run
        # reads the task until it ends.
        http.event_hooks["request"] = [watch]
        answer = Message("user", [request.to_authorization_response()])
        run = asyncio.ensure_future(remote.run(answer, session=session))
        await polled_twice.wait()
        model_may_answer.set()
        done = await run
    assert done.text == "Found Lunch at noon."


@pytest.mark.parametrize("streaming", [True, False])
async def test_a2a_agent_saying_the_flow_is_done_makes_the_server_check_again(
    streaming: bool,
) -> None:
    async with (
        serve(calendar_agent()) as server,
        A2AAgent(url=server.url, streaming=streaming) as remote,
    ):
        session = remote.create_session()
        waiting = await remote.run("what is on today?", session=session)
        (request,) = waiting.user_input_requests
        still = await remote.run(
            Message("user", [request.to_authorization_response()]), session=session
        )
        calendar_tokens["calendar"] = "granted"
        (again,) = still.user_input_requests
        done = await remote.run(
            Message("user", [again.to_authorization_response()]), session=session
        )
    assert again.flow == "out_of_band"
    assert done.text == "Found Lunch at noon."


async def test_a_run_stops_waiting_out_of_band_after_the_idle_timeout() -> None:
    waits = OutOfBandWaits()
    request = Content.from_authorization_request(id="k1", description="x", flow="out_of_band")
    assert await waits.wait("t1", [request], timeout=0.01) == "timeout"
    assert waits.task_of("k1") is None
    assert not waits.end("t1", "completed")
    app = create_app(calendar_agent(), database=None, idle_task_timeout=42)
    assert app.executor.out_of_band_wait == 42
    with pytest.raises(A2AConfigError, match="out_of_band_wait must be positive"):
        AgentryAgentExecutor(calendar_agent(), out_of_band_wait=0)


def test_an_executor_hosted_by_hand_takes_the_credentials_out_of_the_message() -> None:
    message = user_message(task_id="t1", data=credentials({"token": TOKEN})).message
    context = RequestContext(
        ServerCallContext(),
        request=SendMessageRequest(message=message),
        task_id="t1",
        task=Task(id="t1", status=TaskStatus(state=TaskState.TASK_STATE_AUTH_REQUIRED)),
    )
    assert take_credentials(context) == {"c1": {"token": TOKEN}}
    assert context.message is not None
    assert [data_of(p) for p in context.message.parts] == [
        {"credentials": "[withheld]", "id": "c1"}
    ]
