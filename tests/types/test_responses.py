import pytest
from pydantic import BaseModel

from agentry import (
    AgentResponse,
    AgentResponseUpdate,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
)
from agentry.errors import SerializationError, StructuredOutputError


def test_message_takes_plain_strings_as_text() -> None:
    message = Message(role="user", contents=["What is ", "2 + 2?"])
    assert message.text == "What is 2 + 2?"
    assert [c.type for c in message.contents] == ["text", "text"]
    assert Message("assistant", "Hi!").text == "Hi!"


def test_message_round_trips_through_json() -> None:
    message = Message(
        role="assistant",
        contents=[Content.from_text("Hi"), Content.from_function_call(call_id="1", name="f")],
        author_name="bot",
        message_id="m1",
        additional_properties={"k": [1, 2]},
    )
    assert Message.from_json(message.to_json()) == message


def test_message_from_dict_rejects_bad_input() -> None:
    with pytest.raises(SerializationError, match="field 'role' is missing"):
        Message.from_dict({"contents": []})
    with pytest.raises(SerializationError, match="not valid JSON"):
        Message.from_json("{")


def test_chat_response_folds_updates_into_messages_and_usage() -> None:
    updates = [
        ChatResponseUpdate(role="assistant", contents=["Hel"], message_id="m1", model="m"),
        ChatResponseUpdate(contents=["lo"], message_id="m1"),
        ChatResponseUpdate(
            contents=[Content.from_usage({"input_token_count": 5, "output_token_count": 2})],
            finish_reason="stop",
            response_id="r1",
        ),
    ]
    response = ChatResponse.from_updates(updates)
    assert response.text == "Hello"
    assert len(response.messages) == 1
    assert response.usage_details == {"input_token_count": 5, "output_token_count": 2}
    assert (response.finish_reason, response.response_id, response.model) == ("stop", "r1", "m")


def test_folding_a_stream_leaves_its_updates_as_they_were() -> None:
    updates = [
        ChatResponseUpdate(role="assistant", contents=[word], message_id="m1")
        for word in ("One ", "two ", "three.")
    ]
    updates.append(ChatResponseUpdate(role="assistant", contents=["Next."], message_id="m2"))
    first = ChatResponse.from_updates(updates)
    second = ChatResponse.from_updates(updates)
    assert [u.text for u in updates] == ["One ", "two ", "three.", "Next."]
    assert [m.text for m in first.messages] == ["One two three.", "Next."]
    assert second == first
    assert first.messages[0].contents[0] is not second.messages[0].contents[0]


def test_updates_of_different_roles_become_different_messages() -> None:
    updates = [
        AgentResponseUpdate(
            role="assistant", contents=[Content.from_function_call(call_id="1", name="f")]
        ),
        AgentResponseUpdate(
            role="tool", contents=[Content.from_function_result(call_id="1", result=1)]
        ),
        AgentResponseUpdate(role="assistant", contents=["done"]),
    ]
    response = AgentResponse.from_updates(updates)
    assert [m.role for m in response.messages] == ["assistant", "tool", "assistant"]
    assert response.text == "done"


def test_streamed_function_call_arguments_are_joined() -> None:
    updates = [
        ChatResponseUpdate(
            role="assistant",
            contents=[Content.from_function_call(call_id="c", name="add", arguments='{"a": 1,')],
        ),
        ChatResponseUpdate(
            contents=[Content.from_function_call(call_id="c", name="add", arguments=' "b": 2}')]
        ),
    ]
    (call,) = ChatResponse.from_updates(updates).messages[0].contents
    assert call.parse_arguments() == {"a": 1, "b": 2}


@pytest.mark.parametrize("cls", [ChatResponse, AgentResponse])
def test_to_updates_folds_back_to_the_same_response(
    cls: type[ChatResponse] | type[AgentResponse],
) -> None:
    response = cls(
        messages=[
            Message(
                "assistant", [Content.from_function_call(call_id="1", name="f", arguments="{}")]
            ),
            Message("tool", [Content.from_function_result(call_id="1", result="ok")]),
            Message("assistant", ["All done."], author_name="bot"),
        ],
        response_id="r",
        finish_reason="stop",
        usage_details={"input_token_count": 1, "output_token_count": 2, "total_token_count": 3},
    )
    folded = cls.from_updates(response.to_updates())  # type: ignore[arg-type]
    assert folded == response


def test_responses_round_trip_through_json() -> None:
    chat = ChatResponse(
        messages=[Message("assistant", ["Hi"])],
        conversation_id="conv",
        model="gpt",
        usage_details={"input_token_count": 1},
    )
    assert ChatResponse.from_json(chat.to_json()) == chat
    agent = AgentResponse(messages=[Message("assistant", ["Hi"])], agent_id="a")
    assert AgentResponse.from_json(agent.to_json()) == agent
    update = ChatResponseUpdate(role="assistant", contents=["x"], finish_reason="length")
    assert ChatResponseUpdate.from_json(update.to_json()) == update
    agent_update = AgentResponseUpdate(role="assistant", contents=["x"], agent_id="a")
    assert AgentResponseUpdate.from_json(agent_update.to_json()) == agent_update


def test_unknown_response_fields_are_refused() -> None:
    with pytest.raises(SerializationError, match="unknown ChatResponse fields"):
        ChatResponse.from_dict({"messages": [], "surprise": 1})


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"role": "user", "contents": ["hi"]}, "field 'contents\\[0\\]' should be a valid dict"),
        ({"role": "user", "contents": 5}, "field 'contents' should be a valid list, not 5"),
        (
            {"role": "user", "contents": [{"type": "text", "text": 1}]},
            "field 'contents\\[0\\].text' should be a valid string, not 1",
        ),
        ({"role": 7}, "field 'role' should be 'system', 'user', 'assistant' or 'tool', not 7"),
        ({"role": "user", "author_name": ["bot"]}, "field 'author_name'"),
    ],
)
def test_wrongly_typed_message_fields_are_refused_naming_the_field(
    data: dict[str, object], problem: str
) -> None:
    with pytest.raises(SerializationError, match=f"the message is malformed: {problem}"):
        Message.from_dict(data)


def test_wrongly_typed_response_and_update_fields_are_refused() -> None:
    with pytest.raises(SerializationError, match="field 'messages' should be a valid list"):
        AgentResponse.from_dict({"messages": 1})
    with pytest.raises(SerializationError, match=r"field 'messages\[0\]\.role' is missing"):
        ChatResponse.from_dict({"messages": [{"contents": []}]})
    with pytest.raises(SerializationError, match="field 'agent_id' should be a valid string"):
        AgentResponseUpdate.from_dict({"contents": [], "agent_id": {"id": 1}})
    with pytest.raises(SerializationError, match=r"field 'contents\[0\]\.name'"):
        ChatResponseUpdate.from_dict({"contents": [{"type": "function_call", "name": 1}]})
    with pytest.raises(SerializationError, match="must be a JSON object, not 3"):
        ChatResponseUpdate.from_json("3")


def test_many_wrong_fields_are_summarised() -> None:
    content = {"type": "text", "text": 1, "uri": 2, "name": 3, "id": 4, "message": 5}
    with pytest.raises(SerializationError, match=r"field 'contents\[0\]\.name'.* \(and 2 more\)$"):
        Message.from_dict({"role": "user", "contents": [content]})


def test_json_nested_too_deeply_is_a_serialization_error() -> None:
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(SerializationError, match="nested too deeply"):
        Message.from_json('{"role": "user", "additional_properties": {"x": ' + deep + "}}")
    with pytest.raises(SerializationError, match="nested too deeply"):
        AgentResponse.from_json('{"messages": ' + deep + "}")


class Weather(BaseModel):
    city: str
    degrees: int


def test_value_parses_text_with_the_response_format() -> None:
    response = AgentResponse(
        messages=[Message("assistant", ['{"city": "Paris", "degrees": 21}'])],
        response_format=Weather,
    )
    assert response.value == Weather(city="Paris", degrees=21)


def test_value_explains_a_mismatch() -> None:
    response = ChatResponse(messages=[Message("assistant", ["sunny"])], response_format=Weather)
    with pytest.raises(StructuredOutputError, match="does not validate as Weather"):
        _ = response.value


def test_value_with_a_json_schema_dict_is_parsed_json() -> None:
    response = ChatResponse(
        messages=[Message("assistant", ['{"a": 1}'])], response_format={"type": "object"}
    )
    assert response.value == {"a": 1}
    assert ChatResponse(messages=[Message("assistant", ["x"])]).value is None


def test_neighbouring_messages_of_one_role_stay_apart_through_updates() -> None:
    response = AgentResponse(
        messages=[Message("assistant", ["first"]), Message("assistant", ["second"])]
    )
    folded = AgentResponse.from_updates(response.to_updates())
    assert [m.text for m in folded.messages] == ["first", "second"]
