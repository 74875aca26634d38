"""Questions, answers and results reviewed before they leave the client: no model needed."""

from __future__ import annotations

from typing import Annotated, Any

from agentry import Content, Message, tool
from agentry.local._answer_stream import AnswerTextExtractor
from agentry.local._decision import Answer, Question, ToolCall
from agentry.local._facts import content_words
from agentry.local._move_review import ECHO_NOTE, next_step
from agentry.local._prompt import build_chat_turns
from agentry.local._request import output_schema, prompt_mode


@tool
def lookup_member(member: Annotated[str, "The member's first name"]) -> str:
    """Find a club member: their phone number and email address."""
    return f"{member}: phone 555-0100, email {member.lower()}@club.example"


@tool
def send_invite(
    email: Annotated[str, "The email address of the guest"],
    event: Annotated[str, "What the invitation is for"],
) -> str:
    """Send an invitation by email."""
    return f"Invitation sent to {email}."


@tool
def book_room(
    room: Annotated[str, "The meeting room's name"],
    day: Annotated[str, "The day, as YYYY-MM-DD"],
) -> str:
    """Book a meeting room for a day."""
    return f"{room} booked on {day}."


@tool
def get_train_status(train: Annotated[str, "The train number, e.g. 'ICE 578'"]) -> str:
    """Get a train's route and delay."""
    return f"{train} from Bonn to Basel: 5 minutes late"


@tool
def get_forecast(town: Annotated[str, "The town"]) -> str:
    """Get tomorrow's forecast for a town."""
    return f"{town}: rain, 11 °C"


TOOLS: list[Any] = [lookup_member, send_invite, book_room, get_train_status, get_forecast]


def _names(schema: dict[str, Any] | None) -> list[str]:
    assert schema is not None
    return [option["properties"]["action"]["const"] for option in schema.get("anyOf", [schema])]


def _review(request: str, move: Question | Answer) -> Any:
    messages = [Message("user", [request])]
    mode = prompt_mode({"tools": TOOLS}, messages, max_tool_rounds=3)
    turns = build_chat_turns(messages, mode)
    return next_step(move, mode, turns, messages), turns, messages


def test_a_question_for_a_value_another_tool_can_look_up_becomes_a_call_of_that_tool() -> None:
    request = "Invite Ingrid to the quiz night."
    step, turns, _ = _review(request, Question("What is Ingrid's email address?"))
    assert step is not None
    mode, new_turns = step
    assert _names(output_schema(mode)) == ["lookup_member"]
    assert new_turns[0] == turns[0]  # the same system prompt: the cache serves the retry
    assert "lookup_member can find the email" in new_turns[-1]["content"]
    messages = [Message("user", [request])]
    assert (
        next_step(ToolCall("lookup_member", {"member": "Ingrid"}), mode, new_turns, messages)
        is None
    )
    made_up = next_step(ToolCall("lookup_member", {"member": "Sigrid"}), mode, new_turns, messages)
    assert made_up is not None
    assert _names(output_schema(made_up[0])) == ["ask"]


def test_a_value_made_up_for_someone_the_request_names_is_looked_up_instead() -> None:
    invite = {"email": "ingrid@example.com", "event": "quiz night"}
    messages = [Message("user", ["Invite Ingrid to the quiz night."])]
    mode = prompt_mode({"tools": TOOLS}, messages, max_tool_rounds=3)
    step = next_step(
        ToolCall("send_invite", invite), mode, build_chat_turns(messages, mode), messages
    )
    assert step is not None
    assert _names(output_schema(step[0])) == ["lookup_member"]
    by_name = ToolCall("send_invite", {"email": "Ingrid", "event": "quiz night"})
    step = next_step(by_name, mode, build_chat_turns(messages, mode), messages)
    assert step is not None  # a name where an address belongs: looked up too
    assert _names(output_schema(step[0])) == ["lookup_member"]
    nobody = [Message("user", ["Invite my neighbour to the quiz night."])]
    guessed = {"email": "neighbour@example.com", "event": "quiz night"}
    turns = build_chat_turns(nobody, mode)
    step = next_step(ToolCall("send_invite", guessed), mode, turns, nobody)
    assert step is not None
    assert _names(output_schema(step[0]))[0] == "ask"
    assert "does not say the email" in step[1][-1]["content"]
    # asked after that, for someone named, the look-up still replaces the question
    named = [Message("user", ["Invite Ingrid to the quiz night."])]
    looked_up = next_step(Question("What is Ingrid's email?"), step[0], turns, named)
    assert looked_up is not None
    assert _names(output_schema(looked_up[0])) == ["lookup_member"]


def test_a_question_written_as_an_answer_is_turned_into_the_look_up_too() -> None:
    step, _, _ = _review("Invite Ingrid to the quiz night.", Answer("What is Ingrid's email?"))
    assert step is not None
    assert _names(output_schema(step[0])) == ["lookup_member"]


def test_a_question_about_nothing_the_request_names_stays_a_question() -> None:
    step, _, _ = _review("Send an invitation to the quiz night.", Question("Who is the guest?"))
    assert step is None
    step, _, _ = _review("Invite my neighbour.", Question("What is your neighbour's email?"))
    assert step is None


def test_a_question_for_a_date_the_request_gives_becomes_a_call_of_the_tool_that_takes_it() -> None:
    request = "Book the Blue Room on 2027-01-15."
    step, _, _ = _review(request, Question("Which day should I book it for?"))
    assert step is not None
    mode, turns = step
    assert _names(output_schema(mode)) == ["book_room"]
    assert turns[-1]["content"].endswith(
        "(The request gives the day (The day, as YYYY-MM-DD): 2027-01-15. Call book_room.)"
    )
    undated, _, _ = _review("Book the Blue Room.", Question("Which day should I book it for?"))
    assert undated is None


def test_an_answer_that_only_says_the_request_back_is_asked_for_once_more() -> None:
    request = "What is the longest river in Africa?"
    step, _, messages = _review(request, Answer("What is the longest river in Africa?"))
    assert step is not None
    mode, turns = step
    assert turns[-1]["content"].endswith(ECHO_NOTE)
    assert "ask" not in _names(output_schema(mode))
    assert next_step(Answer("What is the longest river in Africa?"), mode, turns, messages) is None
    assert _review(request, Answer("The Nile."))[0] is None
    assert _review("Is it cold in Oslo?", Answer("It is cold in Oslo today."))[0] is None


def test_an_answer_is_held_back_while_it_only_says_the_request_back() -> None:
    extractor = AnswerTextExtractor("Is it cold in Oslo?")
    start = '{"action": "answer", "text": "'
    assert extractor.feed(start + "It is col") == ""
    assert extractor.feed("d in Oslo") == ""
    assert extractor.feed(" tod") == ""
    assert extractor.feed('ay."}') == "It is cold in Oslo today."
    echo = AnswerTextExtractor("Is it cold in Oslo?")
    assert echo.feed(start + 'Is it cold in Oslo?"}') == ""
    assert echo.streamed == ""


def _round(call_id: str, name: str, arguments: dict[str, Any], result: str) -> list[Message]:
    call = Content.from_function_call(call_id=call_id, name=name, arguments=arguments)
    output = Content.from_function_result(call_id=call_id, result=result)
    return [Message("assistant", [call]), Message("tool", [output])]


def _last_reminder(request: str, *rounds: list[Message]) -> str:
    messages = [Message("user", [request]), *(m for messages in rounds for m in messages)]
    mode = prompt_mode({"tools": TOOLS}, messages, max_tool_rounds=3)
    return build_chat_turns(messages, mode)[-1]["content"]


TRAIN = _round("1", "get_train_status", {"train": "ICE 578"}, "ICE 578: 5 minutes late")


def test_after_a_result_the_part_of_the_request_still_open_is_named_with_its_tool() -> None:
    request = "Is train ICE 578 late, and what's the forecast in Basel?"
    assert _last_reminder(request, TRAIN).endswith(
        'Its part "what\'s the forecast in Basel" is not done yet: call get_forecast '
        "with a value from the results."
    )
    forecast = _round("2", "get_forecast", {"town": "Basel"}, "Basel: rain")
    assert "If these results answer the request" in _last_reminder(request, TRAIN, forecast)


def test_an_open_part_may_name_its_tool_by_the_tool_description() -> None:
    request = "Is train ICE 578 late, and how will tomorrow be in Basel?"
    assert "call get_forecast" in _last_reminder(request, TRAIN)


def test_a_request_of_one_part_gets_the_plain_reminder() -> None:
    assert "not done yet" not in _last_reminder("Is train ICE 578 late?", TRAIN)


def test_content_words_leave_out_function_words_and_plurals() -> None:
    assert content_words("What's Ingrid's email? send_invite to the flights ID 7") == {
        "ingrid",
        "email",
        "send",
        "invite",
        "flight",
        "7",
    }
