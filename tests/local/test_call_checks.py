"""Refusing a decided call: a repeat since the user last spoke, or an argument made up."""

from __future__ import annotations

from typing import Annotated

from agentry import Content, Message, tool
from agentry.local._call_checks import CallVerdict, check_call, repeats_request
from agentry.local._decision import ToolCall
from agentry.local._request import tool_specs


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


@tool
def convert(amount: float, currency: str) -> str:
    """Convert an amount of money."""
    return f"{amount} {currency}"


@tool
def add_event(title: str, date: str) -> str:
    """Add a calendar event."""
    return f"{title} on {date}"


TOOLS = tool_specs([get_weather, convert, add_event])


def _round(name: str, arguments: dict[str, object], result: str) -> list[Message]:
    call = Content.from_function_call(call_id=name, name=name, arguments=arguments)
    return [
        Message("assistant", [call]),
        Message("tool", [Content.from_function_result(call_id=name, result=result)]),
    ]


def test_a_call_repeated_since_the_user_spoke_is_refused_and_a_new_one_allowed() -> None:
    messages = [
        Message("user", ["Weather in Paris?"]),
        *_round("get_weather", {"city": "Paris"}, "Paris: rain"),
    ]
    again = ToolCall("get_weather", {"city": "Paris"})
    assert check_call(again, TOOLS, messages) is CallVerdict.REPEATED
    follow_up = [*messages, Message("assistant", ["Rain."]), Message("user", ["Paris again?"])]
    assert check_call(again, TOOLS, follow_up) is CallVerdict.ALLOWED


def test_a_required_value_nowhere_in_the_conversation_is_made_up() -> None:
    messages = [Message("user", ["What's the weather like?"])]
    assert check_call(ToolCall("get_weather", {"city": "London"}), TOOLS, messages) is (
        CallVerdict.UNGROUNDED
    )
    asked = [Message("user", ["What's the weather like in london?"])]
    assert check_call(ToolCall("get_weather", {"city": "London"}), TOOLS, asked) is (
        CallVerdict.ALLOWED
    )


def test_a_value_from_a_tool_result_is_grounded() -> None:
    messages = [
        Message("user", ["What's the weather where Maria lives?"]),
        *_round("find_contact", {"name": "Maria"}, "Maria Lopez lives in Lisbon"),
    ]
    call = ToolCall("get_weather", {"city": "Lisbon"})
    assert check_call(call, TOOLS, messages) is CallVerdict.ALLOWED


def test_numbers_must_appear_and_short_codes_may_be_derived() -> None:
    messages = [Message("user", ["Convert 250 US dollars to euros."])]
    allowed = ToolCall("convert", {"amount": 250.0, "currency": "EUR"})
    assert check_call(allowed, TOOLS, messages) is CallVerdict.ALLOWED
    invented = ToolCall("convert", {"amount": 100, "currency": "EUR"})
    assert check_call(invented, TOOLS, messages) is CallVerdict.UNGROUNDED
    no_date = [Message("user", ["Add a dentist appointment to my calendar."])]
    dated = ToolCall("add_event", {"title": "Dentist appointment", "date": "2026-12-01"})
    assert check_call(dated, TOOLS, no_date) is CallVerdict.UNGROUNDED
    with_date = [Message("user", ["Add a dentist appointment on 2026-12-01."])]
    assert check_call(dated, TOOLS, with_date) is CallVerdict.ALLOWED


def test_an_empty_required_value_is_missing() -> None:
    messages = [Message("user", ["Weather?"])]
    assert check_call(ToolCall("get_weather", {"city": " "}), TOOLS, messages) is (
        CallVerdict.UNGROUNDED
    )


def test_a_question_that_only_says_the_request_back_asks_nothing() -> None:
    messages = [Message("user", ["Do I need a warm coat in Oslo this afternoon?"])]
    assert repeats_request("Do you need a warm coat in Oslo this afternoon?", messages)
    assert not repeats_request("Which city do you want the weather for?", messages)
    maria = [Message("user", ["What's the weather like where Maria lives?"])]
    assert repeats_request("Where Maria lives?", maria)


def test_an_email_address_must_be_given_word_for_word() -> None:
    @tool
    def send_email(to: str, body: str) -> str:
        """Send an email."""
        return f"Sent to {to}"

    tools = tool_specs([send_email])
    asked = [Message("user", ["Send an email saying I'll be late for the meeting."])]
    made_up = ToolCall("send_email", {"to": "meeting@example.com", "body": "I'll be late."})
    assert check_call(made_up, tools, asked) is CallVerdict.UNGROUNDED
    named = [Message("user", ["Email Priya that the order is late."])]
    guessed = ToolCall("send_email", {"to": "Priya@example.com", "body": "The order is late."})
    assert check_call(guessed, tools, named) is CallVerdict.UNGROUNDED
    looked_up = [*named, *_round("find_contact", {"name": "Priya"}, "email priya.nair@example.com")]
    found = ToolCall("send_email", {"to": "Priya.Nair@example.com", "body": "The order is late."})
    assert check_call(found, tools, looked_up) is CallVerdict.ALLOWED


@tool
def exchange(
    amount: float,
    source: Annotated[str, "ISO code of the currency the amount is in, e.g. 'USD'"],
    target: Annotated[str, "ISO code of the currency wanted, e.g. 'EUR'"],
) -> str:
    """Exchange money."""
    return f"{amount} {source} in {target}"


def test_a_short_code_copied_from_the_argument_example_must_be_spelled_by_the_user() -> None:
    specs = tool_specs([exchange])

    def verdict(request: str, source: str, target: str) -> CallVerdict:
        call = ToolCall("exchange", {"amount": 100, "source": source, "target": target})
        return check_call(call, specs, [Message("user", [request])])

    assert verdict("Exchange 100 US dollars to euros.", "USD", "EUR") is CallVerdict.ALLOWED
    assert verdict("Exchange 100 USD into Euro", "USD", "EUR") is CallVerdict.ALLOWED
    assert verdict("Exchange 100 yen for me.", "JPY", "EUR") is CallVerdict.UNGROUNDED
    assert verdict("Exchange 100 British pounds to yen.", "GBP", "JPY") is CallVerdict.ALLOWED


@tool
def mail(to: Annotated[str, "The recipient's email address"], body: str) -> str:
    """Send an email."""
    return f"Sent to {to}."


def test_an_email_address_argument_must_hold_an_address() -> None:
    messages = [Message("user", ["Mail Maria that the report is ready."])]
    specs = tool_specs([mail])
    named = ToolCall("mail", {"to": "Maria", "body": "The report is ready."})
    assert check_call(named, specs, messages) is CallVerdict.UNGROUNDED
    quoted = [Message("user", ["Mail maria@example.com that the report is ready."])]
    addressed = ToolCall("mail", {"to": "maria@example.com", "body": "The report is ready."})
    assert check_call(addressed, specs, quoted) is CallVerdict.ALLOWED
