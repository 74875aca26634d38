import pytest

from agentry import Agent, Content, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ContentError, SerializationError


def test_text_content_round_trips_through_json() -> None:
    content = Content.from_text("hello", additional_properties={"lang": "en"})
    assert Content.from_dict(content.to_dict()) == content
    assert content.to_dict() == {
        "type": "text",
        "text": "hello",
        "additional_properties": {"lang": "en"},
    }


def test_function_call_arguments_accept_dict_or_json_string() -> None:
    from_dict = Content.from_function_call(call_id="1", name="add", arguments={"a": 1})
    from_text = Content.from_function_call(call_id="1", name="add", arguments='{"a": 1}')
    assert from_dict.parse_arguments() == from_text.parse_arguments() == {"a": 1}


def test_malformed_function_arguments_raise_a_clear_error() -> None:
    call = Content.from_function_call(call_id="1", name="add", arguments='{"a": ')
    with pytest.raises(ContentError, match="arguments of the call to 'add' are not valid JSON"):
        call.parse_arguments()


def test_arguments_that_are_not_an_object_are_rejected() -> None:
    call = Content.from_function_call(call_id="1", name="add", arguments="[1, 2]")
    with pytest.raises(ContentError, match="must be a JSON object"):
        call.parse_arguments()


def test_data_content_keeps_bytes_as_a_data_uri() -> None:
    content = Content.from_data(b"\x89PNG", media_type="image/png")
    assert content.type == "data"
    assert content.uri is not None
    assert content.uri.startswith("data:image/png;base64,")
    assert content.get_data_bytes() == b"\x89PNG"
    assert Content.from_dict(content.to_dict()).get_data_bytes() == b"\x89PNG"


def test_from_uri_recognises_data_uris() -> None:
    assert Content.from_uri("data:text/plain;base64,aGk=").type == "data"
    web = Content.from_uri("https://example.com/cat.png", media_type="image/png")
    assert (web.type, web.media_type) == ("uri", "image/png")


def test_approval_request_answers_with_a_response_for_the_same_call() -> None:
    call = Content.from_function_call(call_id="c1", name="delete", arguments={"path": "x"})
    request = Content.from_function_approval_request(id="c1", function_call=call)
    assert request.user_input_request
    answer = request.to_function_approval_response(approved=False)
    assert answer.type == "function_approval_response"
    assert answer.approved is False
    assert answer.function_call == call
    assert Content.from_dict(answer.to_dict()) == answer


def test_only_approval_requests_can_be_answered() -> None:
    with pytest.raises(ContentError, match="needs a function_approval_request"):
        Content.from_text("hi").to_function_approval_response(approved=True)


@pytest.mark.parametrize(
    "content",
    [
        Content.from_text_reasoning("thinking", protected_data="opaque"),
        Content.from_error("rate limited", error_code="429"),
        Content.from_usage({"input_token_count": 3, "output_token_count": 4}),
        Content.from_function_result(call_id="1", result={"temperature": 21, "unit": "C"}),
        Content.from_uri("https://example.com/a.pdf", media_type="application/pdf"),
    ],
)
def test_every_content_kind_round_trips(content: Content) -> None:
    assert Content.from_dict(content.to_dict()) == content


def test_unknown_content_type_is_a_serialization_error() -> None:
    with pytest.raises(SerializationError, match="unknown content type 'video'"):
        Content.from_dict({"type": "video"})


def test_unknown_fields_are_refused_instead_of_dropped() -> None:
    with pytest.raises(SerializationError, match="unknown content fields"):
        Content.from_dict({"type": "text", "text": "a", "colour": "red"})


def test_streamed_text_and_call_arguments_merge() -> None:
    first = Content.from_text("Hel")
    assert first.can_merge(Content.from_text("lo"))
    assert first.merge(Content.from_text("lo")).text == "Hello"
    call = Content.from_function_call(call_id="1", name="add", arguments='{"a"')
    rest = Content.from_function_call(call_id="1", name="add", arguments=": 2}")
    assert call.merge(rest).parse_arguments() == {"a": 2}
    assert not call.can_merge(Content.from_function_call(call_id="2", name="add"))


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"type": "text", "text": {"a": 1}}, "field 'text' should be a valid string, not a dict"),
        ({"type": "function_call", "call_id": ["1"]}, "field 'call_id' should be a valid string"),
        (
            {"type": "function_call", "name": "f", "arguments": [1, 2]},
            "field 'arguments' should be a valid string or a valid dictionary, not a list",
        ),
        ({"type": "text", "additional_properties": "x"}, "field 'additional_properties'"),
        ({"type": "function_approval_response", "approved": "yes"}, "field 'approved'"),
        ({"type": "usage", "usage_details": 3}, "field 'usage_details'"),
        ({"text": "hi"}, "field 'type' is missing"),
        ("text", "a content must be a JSON object, not 'text'"),
    ],
)
def test_wrongly_typed_content_fields_are_refused_naming_the_field(
    data: object, problem: str
) -> None:
    with pytest.raises(SerializationError, match=problem):
        Content.from_dict(data)  # type: ignore[arg-type]


def test_an_approval_holds_a_function_call_and_nothing_deeper() -> None:
    call = {"type": "function_call", "call_id": "1", "name": "f"}
    request = {"type": "function_approval_request", "id": "1", "function_call": call}
    assert Content.from_dict(request).function_call == Content.from_dict(call)
    with pytest.raises(
        SerializationError, match=r"'function_call\.type' should be 'function_call'"
    ):
        Content.from_dict({**request, "function_call": {"type": "text", "text": "x"}})
    nested = {**call, "function_call": call}
    with pytest.raises(SerializationError, match=r"unknown content fields \['function_call\."):
        Content.from_dict({**request, "function_call": nested})


def test_deeply_nested_call_arguments_are_a_content_error() -> None:
    deep = '{"a":' + "[" * 5000 + "]" * 5000 + "}"
    call = Content.from_function_call(call_id="1", name="f", arguments=deep)
    with pytest.raises(ContentError, match="arguments of the call to 'f' are nested too deeply"):
        call.parse_arguments()


async def test_deeply_nested_call_arguments_reach_the_model_as_an_error_result() -> None:
    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    deep = '{"text":' + "[" * 1500 + "]" * 1500 + "}"
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("echo", deep, call_id="c1"), "Sorry, let me retry."]
    )
    response = await Agent(client=client, tools=[echo]).run("go")
    assert response.text == "Sorry, let me retry."
    result = client.calls[1].messages[-1].contents[0]
    assert (result.type, result.call_id) == ("function_result", "c1")
    assert "nested too deeply" in str(result.result)


def test_streamed_reasoning_merges_until_its_protected_data_closes_it() -> None:
    thinking = Content.from_text_reasoning("Look it up")
    thinking = thinking.merge(Content.from_text_reasoning(" first."))
    signed = thinking.merge(Content.from_text_reasoning("", protected_data="signature"))

    assert (signed.text, signed.protected_data) == ("Look it up first.", "signature")
    # The next reasoning block (here a redacted one) stays apart, with its own data.
    assert not signed.can_merge(Content.from_text_reasoning("", protected_data="redacted"))
    assert not signed.can_merge(Content.from_text_reasoning("Then answer."))


def _fields(content: Content) -> dict[str, object]:
    return {name: getattr(content, name) for name in Content.__slots__}


def test_text_and_result_factories_set_every_field_as_the_constructor_does() -> None:
    error = ValueError("boom")
    assert _fields(Content.from_text("hi")) == _fields(Content("text", text="hi"))
    assert _fields(Content.from_function_result(call_id="c1", result=3, exception=error)) == (
        _fields(Content("function_result", call_id="c1", result=3, exception=error))
    )
    marked = Content.from_text("hi", media_type="text/plain")
    assert (marked.text, marked.media_type) == ("hi", "text/plain")


def test_a_subclass_factory_builds_the_subclass() -> None:
    class Marked(Content):
        __slots__ = ()

    assert type(Marked.from_text("hi")) is Marked
    assert type(Marked.from_function_result(call_id="c1", result=1)) is Marked
