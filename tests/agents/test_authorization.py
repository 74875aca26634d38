"""A tool that needs the caller's authorization pauses the run and resumes with the answer."""

from __future__ import annotations

import json

import pytest

from agentry import (
    Agent,
    AuthorizationRequired,
    FunctionInvocationContext,
    Message,
    require_authorization,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient, ScriptItem
from agentry.types import ChatOptions

GOOD_TOKEN = "ghp_good_token_1234"

# An application's token store, filled once the person completes an out-of-band flow.
calendar_tokens: dict[str, str] = {}


@tool
def list_repos(owner: str, context: FunctionInvocationContext) -> str:
    """List the owner's repositories."""
    token = require_authorization(
        context, "A GitHub token that can read repositories", url="https://github.com/settings"
    )["token"]
    if token != GOOD_TOKEN:
        raise AuthorizationRequired(
            "A GitHub token that can read repositories", reason="GitHub refused the token"
        )
    return f"{owner}/agentry, {owner}/notes"


@tool
def read_calendar() -> str:
    """Read the user's calendar."""
    if "calendar" not in calendar_tokens:
        raise AuthorizationRequired(
            "Access to your calendar",
            scheme="oauth2",
            url="https://example.com/consent",
            flow="out_of_band",
        )
    return "Lunch at noon"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def last_result(messages: list[Message], options: ChatOptions) -> str:
    del options
    return f"Answer: {messages[-1].contents[-1].result}"


def repos_client(*answers: ScriptItem) -> ScriptedChatClient:
    return ScriptedChatClient(
        [ScriptedChatClient.function_call("list_repos", {"owner": "ada"}, call_id="c1"), *answers]
    )


async def test_a_tool_asking_for_authorization_pauses_the_run_with_a_request() -> None:
    client = repos_client()
    agent = Agent(client=client, tools=[list_repos])
    response = await agent.run("list ada's repositories", session=agent.create_session())
    (request,) = response.user_input_requests
    assert request.type == "authorization_request"
    assert request.function_call is not None
    assert (request.id, request.function_call.name) == ("c1", "list_repos")
    assert (request.scheme, request.flow) == ("bearer", "in_band")
    assert request.text == "A GitHub token that can read repositories"
    assert request.uri == "https://github.com/settings"
    assert not [c for m in response.messages for c in m.contents if c.type == "function_result"]
    assert len(client.calls) == 1


async def test_credentials_reach_the_tool_and_are_kept_nowhere() -> None:
    client = repos_client(last_result)
    agent = Agent(client=client, tools=[list_repos])
    session = agent.create_session()
    first = await agent.run("list ada's repositories", session=session)
    answer = first.user_input_requests[0].to_authorization_response({"token": GOOD_TOKEN})
    second = await agent.run(Message("user", [answer]), session=session)
    assert second.text == "Answer: ada/agentry, ada/notes"
    sent = client.calls[1].messages
    assert all(
        c.type not in ("authorization_request", "authorization_response")
        for m in sent
        if m.role != "assistant"
        for c in m.contents
    )
    assert GOOD_TOKEN not in json.dumps(session.to_dict())
    assert GOOD_TOKEN not in json.dumps([m.to_dict() for m in sent])


async def test_refused_credentials_ask_again_with_the_reason() -> None:
    client = repos_client(last_result)
    agent = Agent(client=client, tools=[list_repos])
    session = agent.create_session()
    first = await agent.run("list ada's repositories", session=session)
    wrong = first.user_input_requests[0].to_authorization_response({"token": "expired"})
    second = await agent.run(Message("user", [wrong]), session=session)
    (again,) = second.user_input_requests
    assert (again.id, again.message) == ("c1", "GitHub refused the token")
    assert len(client.calls) == 1  # the model was not asked in between
    right = again.to_authorization_response({"token": GOOD_TOKEN})
    third = await agent.run(Message("user", [right]), session=session)
    assert third.text == "Answer: ada/agentry, ada/notes"


async def test_a_declined_authorization_tells_the_model_the_call_did_not_run() -> None:
    client = repos_client(last_result)
    agent = Agent(client=client, tools=[list_repos])
    session = agent.create_session()
    first = await agent.run("list ada's repositories", session=session)
    declined = first.user_input_requests[0].to_authorization_response(approved=False)
    second = await agent.run(Message("user", [declined]), session=session)
    assert "did not authorize" in second.text


async def test_other_calls_of_the_turn_keep_their_results() -> None:
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("add", {"a": 2, "b": 3}, "c0"), ("list_repos", {"owner": "ada"}, "c1")]
            ),
            lambda messages, options: (
                "seen "
                + ", ".join(
                    f"{c.call_id}={c.result}"
                    for m in messages
                    for c in m.contents
                    if c.type == "function_result"
                )
            ),
        ]
    )
    agent = Agent(client=client, tools=[add, list_repos])
    session = agent.create_session()
    first = await agent.run("add and list", session=session)
    results = [c for m in first.messages for c in m.contents if c.type == "function_result"]
    assert [(c.call_id, c.result) for c in results] == [("c0", 5)]
    answer = first.user_input_requests[0].to_authorization_response({"token": GOOD_TOKEN})
    second = await agent.run(Message("user", [answer]), session=session)
    assert second.text == "seen c0=5, c1=ada/agentry, ada/notes"


async def test_credentials_are_granted_to_the_answered_call_alone() -> None:
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("list_repos", {"owner": "ada"}, "c1"), ("list_repos", {"owner": "bob"}, "c2")]
            )
        ]
    )
    agent = Agent(client=client, tools=[list_repos])
    session = agent.create_session()
    first = await agent.run("list both", session=session)
    assert [r.id for r in first.user_input_requests] == ["c1", "c2"]
    answer = first.user_input_requests[0].to_authorization_response({"token": GOOD_TOKEN})
    second = await agent.run(Message("user", [answer]), session=session)
    results = [c for m in second.messages for c in m.contents if c.type == "function_result"]
    assert [(c.call_id, c.result) for c in results] == [("c1", "ada/agentry, ada/notes")]
    assert [r.id for r in second.user_input_requests] == ["c2"]


async def test_an_out_of_band_authorization_runs_the_call_again_once_done() -> None:
    calendar_tokens.clear()
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("read_calendar", {}, call_id="k1"), last_result]
    )
    agent = Agent(client=client, tools=[read_calendar])
    session = agent.create_session()
    first = await agent.run("what is on today?", session=session)
    (request,) = first.user_input_requests
    assert (request.flow, request.scheme, request.uri) == (
        "out_of_band",
        "oauth2",
        "https://example.com/consent",
    )
    calendar_tokens["calendar"] = "granted by the consent page"
    second = await agent.run(
        Message("user", [request.to_authorization_response()]), session=session
    )
    assert second.text == "Answer: Lunch at noon"


async def test_authorization_works_without_a_session_when_the_caller_resends_the_request() -> None:
    client = repos_client(last_result)
    agent = Agent(client=client, tools=[list_repos])
    first = await agent.run("list ada's repositories")
    request = first.user_input_requests[0]
    second = await agent.run(
        [
            "list ada's repositories",
            Message("user", [request.to_authorization_response({"token": GOOD_TOKEN})]),
        ]
    )
    assert second.text == "Answer: ada/agentry, ada/notes"
    assert [m.role for m in client.calls[1].messages][-2:] == ["assistant", "tool"]


async def test_streaming_surfaces_authorization_requests_like_a_plain_run() -> None:
    agent = Agent(client=repos_client(), tools=[list_repos])
    stream = agent.run("list", stream=True, session=agent.create_session())
    streamed = [r async for u in stream for r in u.user_input_requests]
    final = await stream.get_final_response()
    plain = await Agent(client=repos_client(), tools=[list_repos]).run(
        "list", session=agent.create_session()
    )
    assert [r.to_dict() for r in streamed] == [r.to_dict() for r in plain.user_input_requests]

    def shape(messages: list[Message]) -> list[tuple[str, list[dict[str, object]]]]:
        return [(m.role, [c.to_dict() for c in m.contents]) for m in messages]

    assert shape(final.messages) == shape(plain.messages)


def test_a_tool_called_outside_a_run_raises_a_clear_error() -> None:
    calendar_tokens.clear()
    with pytest.raises(
        AuthorizationRequired, match="authorization needed: Access to your calendar"
    ):
        read_calendar.func()  # type: ignore[misc]


def test_an_unknown_flow_is_refused() -> None:
    with pytest.raises(ValueError, match='flow must be "in_band" or "out_of_band"'):
        AuthorizationRequired("a token", flow="sideways")  # type: ignore[arg-type]
