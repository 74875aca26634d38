"""Authorization requests and responses: what they hold, and that credentials stay in memory."""

import pytest

from agentry import AgentResponse, AgentResponseUpdate, Content, Message
from agentry.errors import ContentError

SECRET = "ghp_very_secret_token"


def calendar_request() -> Content:
    call = Content.from_function_call(call_id="c1", name="read_calendar", arguments={})
    return Content.from_authorization_request(
        id="c1",
        description="Access to your calendar",
        scheme="oauth2",
        url="https://example.com/consent",
        flow="out_of_band",
        function_call=call,
        reason="the consent was withdrawn",
    )


def test_an_authorization_request_round_trips_and_asks_the_caller() -> None:
    request = calendar_request()
    assert request.user_input_request
    assert (request.text, request.scheme, request.uri, request.flow, request.message) == (
        "Access to your calendar",
        "oauth2",
        "https://example.com/consent",
        "out_of_band",
        "the consent was withdrawn",
    )
    assert Content.from_dict(request.to_dict()) == request
    response = AgentResponse(messages=[Message("assistant", [request])])
    assert response.user_input_requests == [request]
    assert AgentResponseUpdate(contents=[request]).user_input_requests == [request]


def test_credentials_are_never_serialized_nor_shown() -> None:
    answer = calendar_request().to_authorization_response({"token": SECRET})
    assert answer.type == "authorization_response"
    assert answer.credentials == {"token": SECRET}
    assert answer.function_call is not None
    assert SECRET not in str(answer.to_dict())
    assert SECRET not in repr(answer)
    assert SECRET not in Message("user", [answer]).to_json()
    assert Content.from_dict(answer.to_dict()).credentials is None


def test_an_answer_keeps_its_own_copy_of_the_credentials() -> None:
    given = {"token": SECRET}
    answer = calendar_request().to_authorization_response(given)
    given["token"] = "changed"
    assert answer.credentials == {"token": SECRET}


@pytest.mark.parametrize(
    ("credentials", "problem"),
    [
        ("just-a-token", "credentials must be a mapping of names to strings"),
        ({"token": 42}, "the entry 'token' holds a int"),
    ],
)
def test_malformed_credentials_are_refused(credentials: object, problem: str) -> None:
    with pytest.raises(ContentError, match=problem):
        calendar_request().to_authorization_response(credentials)  # type: ignore[arg-type]


def test_a_declined_answer_carries_no_credentials() -> None:
    declined = calendar_request().to_authorization_response(approved=False)
    assert (declined.approved, declined.credentials) == (False, None)
    with pytest.raises(ContentError, match="carries no credentials"):
        Content.from_authorization_response(id="c1", credentials={"t": "x"}, approved=False)


def test_only_authorization_requests_can_be_answered_with_credentials() -> None:
    with pytest.raises(ContentError, match="needs an authorization_request"):
        Content.from_text("hi").to_authorization_response({"token": SECRET})


def test_an_unknown_flow_is_refused() -> None:
    with pytest.raises(ContentError, match='flow must be "in_band" or "out_of_band"'):
        Content.from_authorization_request(id="c1", description="x", flow="maybe")  # type: ignore[arg-type]
