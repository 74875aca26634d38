"""`FallbackChatClient` on the scripted model double: when it moves on, what the answer
says about who gave it, and the usage of the clients that failed."""

from __future__ import annotations

import pytest

from agentry import (
    Agent,
    FallbackChatClient,
    RetryPolicy,
)
from agentry.clients import ANSWERED_BY
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ChatClientConnectionError, ChatClientError, StreamInterruptedError
from tests.clients.answers import BreaksAfterText, respond

FAST = RetryPolicy(max_attempts=2, initial_delay=0.001)


def down() -> ChatClientConnectionError:
    return ChatClientConnectionError("cannot reach the primary")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_the_next_client_answers_when_the_first_has_spent_its_retries(stream: bool) -> None:
    primary = ScriptedChatClient([down(), down()], model="big", retry=FAST)
    backup = ScriptedChatClient(["From the backup."], model="small", retry=FAST)
    client = FallbackChatClient({"primary": primary, "backup": backup})

    if stream:
        response_stream = client.get_response("Hi", stream=True)
        updates = [update async for update in response_stream]
        response = await response_stream.get_final_response()
        assert all((u.additional_properties or {}).get(ANSWERED_BY) == "backup" for u in updates)
    else:
        response = await client.get_response("Hi")

    assert response.text == "From the backup."
    assert response.model == "small"
    assert response.additional_properties == {ANSWERED_BY: "backup"}
    assert response.messages[0].additional_properties == {ANSWERED_BY: "backup"}
    assert len(primary.calls) == 2  # its own policy: two attempts, then the backup


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_an_error_that_is_not_transient_is_raised_without_asking_the_next(
    stream: bool,
) -> None:
    backup = ScriptedChatClient(["never"])
    client = FallbackChatClient(
        [ScriptedChatClient([ChatClientError("bad key", status_code=401)]), backup]
    )

    with pytest.raises(ChatClientError, match="bad key"):
        await respond(client, "Hi", stream=stream)

    assert backup.calls == []


async def test_chosen_error_types_move_on_too() -> None:
    refused = ChatClientError("this model refuses the request", status_code=400)
    client = FallbackChatClient(
        [ScriptedChatClient([refused]), ScriptedChatClient(["Answered."])],
        fallback_on=(ChatClientError,),
    )

    assert (await client.get_response("Hi")).text == "Answered."


async def test_when_every_client_fails_the_last_failure_is_raised() -> None:
    client = FallbackChatClient(
        [
            ScriptedChatClient([down()], retry=None),
            ScriptedChatClient([ChatClientError("also down", status_code=503)], retry=None),
        ]
    )

    with pytest.raises(ChatClientError, match="also down"):
        await client.get_response("Hi")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_the_usage_of_failed_clients_is_added_to_the_answer(stream: bool) -> None:
    billed = ChatClientError("overloaded", status_code=529, usage_details={"input_token_count": 7})
    answer = ScriptedChatClient.reply(
        "Done.", usage_details={"input_token_count": 3, "output_token_count": 2}
    )
    billed_again = ChatClientError(
        "overloaded", status_code=529, usage_details={"input_token_count": 7}
    )
    primary = ScriptedChatClient([billed, billed_again], retry=FAST)
    client = FallbackChatClient([primary, ScriptedChatClient([answer])])

    response = await respond(client, "Hi", stream=stream)

    assert len(primary.calls) == 2
    assert response.usage_details == {"input_token_count": 17, "output_token_count": 2}


async def test_a_stream_does_not_move_on_once_part_of_the_answer_went_out() -> None:
    backup = ScriptedChatClient(["never"])
    client = FallbackChatClient([BreaksAfterText(retry=FAST), backup])

    with pytest.raises(StreamInterruptedError):
        await client.get_response("Hi", stream=True).get_final_response()

    assert backup.calls == []


async def test_a_call_policy_reaches_every_client_and_the_fallback_does_not_retry() -> None:
    primary = ScriptedChatClient([down(), down(), down()], retry=None)
    backup = ScriptedChatClient(["Backup."], retry=None)
    client = FallbackChatClient([primary, backup])
    policy = RetryPolicy(max_attempts=3, initial_delay=0.001)

    response = await client.get_response("Hi", options={"retry": policy})

    assert response.text == "Backup."
    assert len(primary.calls) == 3


async def test_an_agent_runs_on_a_fallback_and_its_messages_say_who_answered() -> None:
    agent = Agent(
        client=FallbackChatClient(
            [
                ScriptedChatClient([down(), down()], retry=None),
                ScriptedChatClient(["Hi there.", "Hi there."]),
            ]
        )
    )

    response = await agent.run("Hi")
    streamed = await agent.run("Hi again", stream=True).get_final_response()

    assert response.text == "Hi there."
    for answer in (response, streamed):
        properties = answer.messages[-1].additional_properties or {}
        assert properties[ANSWERED_BY] == "ScriptedChatClient(scripted)#2"


def test_clients_are_named_after_their_class_and_model() -> None:
    client = FallbackChatClient(
        [ScriptedChatClient(model="a"), ScriptedChatClient(model="b"), ScriptedChatClient()]
    )

    assert [name for name, _ in client.clients] == [
        "ScriptedChatClient(a)",
        "ScriptedChatClient(b)",
        "ScriptedChatClient(scripted)",
    ]


def test_a_fallback_needs_clients() -> None:
    with pytest.raises(ValueError, match="at least one client"):
        FallbackChatClient([])
    with pytest.raises(TypeError, match="'backup' is a str, not a chat client"):
        FallbackChatClient({"primary": ScriptedChatClient(), "backup": "gpt-4o"})  # type: ignore[dict-item]
