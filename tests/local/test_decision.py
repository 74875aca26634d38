"""The tool-call schema, its parse, tool choice, prompt folding and answer streaming."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from agentry import Content, Message, tool
from agentry.local import LocalModelError
from agentry.local._answer_stream import AnswerTextExtractor
from agentry.local._decision import (
    Answer,
    Question,
    ToolCall,
    ToolSpec,
    decision_schema,
    inline_refs,
    parse_decision,
)
from agentry.local._generation import StopScanner
from agentry.local._move_review import next_step
from agentry.local._prompt import PromptMode, build_chat_turns
from agentry.local._request import output_schema, prompt_mode


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Point(BaseModel):
    x: int
    y: int


class Segment(BaseModel):
    start: Point
    end: Point


def _names(schema: dict[str, Any]) -> list[str]:
    options = schema.get("anyOf", [schema])
    return [option["properties"]["action"]["const"] for option in options]


def test_auto_offers_answer_ask_and_every_tool_at_the_same_position() -> None:
    schema = output_schema(prompt_mode({"tools": [get_weather, add]}))
    assert schema is not None
    assert _names(schema) == ["answer", "ask", "get_weather", "add"]
    weather = schema["anyOf"][2]["properties"]["arguments"]
    assert weather["properties"] == {"city": {"type": "string"}}
    assert weather["required"] == ["city"]


def test_required_leaves_out_the_answer_and_a_named_tool_is_the_only_option() -> None:
    required = output_schema(prompt_mode({"tools": [get_weather, add], "tool_choice": "required"}))
    assert required is not None
    assert _names(required) == ["get_weather", "add"]
    named = output_schema(
        prompt_mode(
            {
                "tools": [get_weather, add],
                "tool_choice": {"mode": "required", "required_function_name": "add"},
            }
        )
    )
    assert named is not None
    assert _names(named) == ["add"]


def test_none_and_no_tools_mean_plain_text() -> None:
    assert output_schema(prompt_mode({"tools": [add], "tool_choice": "none"})) is None
    assert output_schema(prompt_mode({})) is None


def test_a_required_tool_that_is_not_offered_is_an_error() -> None:
    with pytest.raises(LocalModelError, match=r"'missing'.*\['add'\]"):
        prompt_mode(
            {
                "tools": [add],
                "tool_choice": {"mode": "required", "required_function_name": "missing"},
            }
        )
    with pytest.raises(LocalModelError, match="no function tool"):
        prompt_mode({"tool_choice": "required"})


def test_after_the_last_round_auto_must_answer_or_ask_under_the_same_prompt() -> None:
    call = Content.from_function_call(call_id="1", name="add", arguments={"a": 1, "b": 2})
    messages = [
        Message("user", ["1+2?"]),
        Message("assistant", [call]),
        Message("tool", [Content.from_function_result(call_id="1", result=3)]),
    ]
    options: Any = {"tools": [add]}
    last = prompt_mode(options, messages, max_tool_rounds=1)
    schema = output_schema(last)
    assert schema is not None
    assert _names(schema) == ["answer"]
    earlier = prompt_mode(options, messages, max_tool_rounds=2)
    assert _names(output_schema(earlier) or {}) == ["answer", "add"]  # results in: no question
    assert output_schema(earlier) != schema
    assert build_chat_turns(messages, last) == build_chat_turns(messages, earlier)
    assert prompt_mode(options, messages, max_tool_rounds=None).allow_call
    forced: Any = {"tools": [add], "tool_choice": "required"}
    assert prompt_mode(forced, messages, max_tool_rounds=1).allow_call


def test_a_tool_may_not_take_the_name_of_a_move() -> None:
    for name in ("answer", "ask"):
        with pytest.raises(LocalModelError, match=f"'{name}'.*rename the tool"):
            decision_schema([ToolSpec(name, "", {})])


def test_structured_output_schema_is_the_response_format_with_refs_inlined() -> None:
    schema = output_schema(prompt_mode({"response_format": Segment}))
    assert schema is not None
    assert "$defs" not in json.dumps(schema)
    assert schema["properties"]["start"]["properties"]["x"] == {"type": "integer"}


def test_inline_refs_keeps_a_property_called_title_and_rejects_recursion() -> None:
    schema = {"type": "object", "properties": {"title": {"type": "string", "title": "Title"}}}
    assert inline_refs(schema) == {"type": "object", "properties": {"title": {"type": "string"}}}
    recursive = {"$defs": {"Node": {"properties": {"next": {"$ref": "#/$defs/Node"}}}}}
    with pytest.raises(LocalModelError, match="recursive"):
        inline_refs({**recursive, "$ref": "#/$defs/Node"})


def test_parse_decision_reads_calls_answers_and_questions() -> None:
    assert parse_decision('{"action": "add", "arguments": {"a": 1, "b": 2}}') == ToolCall(
        "add", {"a": 1, "b": 2}
    )
    assert parse_decision('{"action": "answer", "text": "Hi"}') == Answer("Hi")
    assert parse_decision('{"action": "ask", "question": "Which city?"}') == Question("Which city?")
    structured = '{"action": "answer", "text": {"x": 1, "y": 2}}'
    assert parse_decision(structured, structured_answer=True) == Answer('{"x": 1, "y": 2}')
    with pytest.raises(LocalModelError, match="raise max_tokens"):
        parse_decision('{"action": "add", "argum')


def test_an_answer_with_raw_line_breaks_in_its_text_is_read_whole() -> None:
    # The model writes letters and lists with real line breaks inside the JSON string.
    output = '{"action": "answer", "text": "Dear landlord,\n\nThe tap leaks.\n\tThanks"}'
    assert parse_decision(output) == Answer("Dear landlord,\n\nThe tap leaks.\n\tThanks")


def test_a_structured_answer_leaves_out_the_question() -> None:
    schema = output_schema(prompt_mode({"tools": [add], "response_format": Point}))
    assert schema is not None
    assert _names(schema) == ["answer", "add"]


def test_the_answer_streams_out_of_its_json_piece_by_piece() -> None:
    output = '{"action": "answer", "text": "Caf\\u00e9 \\"ok\\"\\nbye"}'
    extractor = AnswerTextExtractor()
    pieces = [extractor.feed(output[i : i + 3]) for i in range(0, len(output), 3)]
    assert "".join(pieces) == 'Café "ok"\nbye'
    assert extractor.streamed == 'Café "ok"\nbye'


def test_a_question_is_not_streamed_since_it_may_be_refused() -> None:
    assert AnswerTextExtractor().feed('{"action": "ask", "question": "Which city?"}') == ""


def test_a_tool_call_streams_no_answer_text() -> None:
    extractor = AnswerTextExtractor()
    assert extractor.feed('{"action": "add", "arguments": {"a": 1, "b": 2}}') == ""


def test_stop_sequences_hold_back_text_until_decided() -> None:
    scanner = StopScanner(["END"])
    assert scanner.feed("abc E") == ("abc ", False)
    assert scanner.feed("N") == ("", False)
    assert scanner.feed("X more") == ("ENX more", False)
    assert scanner.feed("tail EN") == ("tail ", False)
    assert scanner.feed("D after") == ("", True)
    assert StopScanner(["END"]).flush("x") == "x"


def test_tool_results_are_folded_into_the_question_they_answer() -> None:
    call = Content.from_function_call(
        call_id="c1", name="get_weather", arguments='{"city": "Oslo"}'
    )
    messages = [
        Message("system", ["Be brief."]),
        Message("user", ["Weather in Oslo?"]),
        Message("assistant", [call]),
        Message("tool", [Content.from_function_result(call_id="c1", result="Rain")]),
    ]
    turns = build_chat_turns(messages, PromptMode())
    assert [t["role"] for t in turns] == ["system", "user"]
    assert turns[0]["content"] == "Be brief."
    assert turns[1]["content"] == (
        'Weather in Oslo?\n\nResults:\n- get_weather(city="Oslo") returned: Rain\n'
        "The request: Weather in Oslo?\n"
        "If these results answer the request, answer it from them, with their facts and "
        "numbers; if it still needs another tool, call it with a value from them."
    )


def test_with_tools_a_call_is_a_move_and_its_result_a_turn_that_restates_the_request() -> None:
    call = Content.from_function_call(call_id="c1", name="get_weather", arguments={"city": "Oslo"})
    messages = [
        Message("user", ["Weather in Oslo?"]),
        Message("assistant", [call]),
        Message("tool", [Content.from_function_result(call_id="c1", result="Rain")]),
    ]
    mode = prompt_mode({"tools": [get_weather]})
    turns = build_chat_turns(messages, mode)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user"]
    assert json.loads(turns[2]["content"]) == {
        "action": "get_weather",
        "arguments": {"city": "Oslo"},
    }
    assert turns[3]["content"].startswith('Results:\n- get_weather(city="Oslo") returned: Rain\n')
    assert "The request: Weather in Oslo?" in turns[3]["content"]
    follow_up = [*messages, Message("assistant", ["Rain."]), Message("user", ["And Rome?"])]
    longer = build_chat_turns(follow_up, mode)
    assert longer[: len(turns)] == turns  # the next request extends the prompt: cache reuse


def test_tool_mode_lists_tools_and_earlier_answers_as_moves() -> None:
    messages = [
        Message("user", ["Hi"]),
        Message("assistant", ["Hello!"]),
        Message("user", ["2+2?"]),
    ]
    mode = prompt_mode({"tools": [add]})
    turns = build_chat_turns(messages, mode, instructions="Use tools well.")
    system = turns[0]["content"]
    assert system.startswith("Use tools well.")
    assert "- add(a: integer, b: integer): Add two numbers. Required: a, b." in system
    assert '{"action": "ask", "question": <a question for the user>}' in system
    assert json.loads(turns[2]["content"]) == {"action": "answer", "text": "Hello!"}


@tool
def find_contact(name: str) -> str:
    """Look up a person: their email address and home city."""
    return f"{name} lives in Lisbon"


def test_a_made_up_argument_leads_to_a_question_or_another_tool_then_only_a_question() -> None:
    messages = [Message("user", ["What's the weather where Maria lives?"])]
    mode = prompt_mode({"tools": [get_weather, find_contact]}, messages, max_tool_rounds=3)
    turns = build_chat_turns(messages, mode)
    made_up = ToolCall("get_weather", {"city": "Lima"})
    step = next_step(made_up, mode, turns, messages)
    assert step is not None
    lookup, lookup_turns = step
    assert lookup.barred_tools == {"get_weather"}
    assert _names(output_schema(lookup) or {}) == ["ask", "find_contact"]  # no answer, no retry
    assert lookup_turns[0] == turns[0]  # the same system prompt: the cache serves the retry
    assert "If another tool can find it" in lookup_turns[-1]["content"]
    again = next_step(ToolCall("find_contact", {"name": "Sofia"}), lookup, lookup_turns, messages)
    assert again is not None
    assert _names(output_schema(again[0]) or {}) == ["ask"]
    grounded = ToolCall("find_contact", {"name": "Maria"})
    assert next_step(grounded, lookup, lookup_turns, messages) is None
