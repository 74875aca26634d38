"""An answer that leaves out the tool result it was given gets the result restated."""

from __future__ import annotations

from agentry import Content, Message
from agentry.local._answer_grounding import unstated_result


def _turn(request: str, arguments: dict[str, object], result: object) -> list[Message]:
    call = Content.from_function_call(call_id="c1", name="get_weather", arguments=arguments)
    return [
        Message("user", [request]),
        Message("assistant", [call]),
        Message("tool", [Content.from_function_result(call_id="c1", result=result)]),
    ]


def test_an_answer_without_any_fact_of_the_result_gets_the_result() -> None:
    messages = _turn("Is it raining in Tokyo today?", {"city": "Tokyo"}, "Tokyo: sunny, 22 °C")
    answer = "No, it is not raining in Tokyo today."
    assert unstated_result(answer, messages) == "Tokyo: sunny, 22 °C"


def test_an_answer_with_a_number_or_word_of_the_result_stands() -> None:
    messages = _turn("Is it raining in Tokyo today?", {"city": "Tokyo"}, "Tokyo: sunny, 22 °C")
    assert unstated_result("It is 22 °C in Tokyo.", messages) is None
    assert unstated_result("No, it is sunny.", messages) is None


def test_words_the_request_already_holds_are_not_facts_of_the_result() -> None:
    messages = _turn("Weather in Oslo?", {"city": "Oslo"}, "Oslo")
    assert unstated_result("I could not tell.", messages) is None  # nothing new to restate
    echoed = _turn("Weather in Oslo?", {"city": "Oslo"}, "Oslo: snow, -3 °C")
    assert unstated_result("The weather in Oslo is fine.", echoed) == "Oslo: snow, -3 °C"


def test_only_the_last_result_since_the_user_spoke_counts() -> None:
    earlier = _turn("Weather in Oslo?", {"city": "Oslo"}, "Oslo: snow, -3 °C")
    messages = [*earlier, Message("assistant", ["Snow, -3 °C."]), Message("user", ["Thanks!"])]
    assert unstated_result("You're welcome!", messages) is None


def test_a_failed_call_is_not_restated() -> None:
    call = Content.from_function_call(call_id="c1", name="get_weather", arguments={"city": "X"})
    failed = Content.from_function_result(
        call_id="c1", result="Error: no such city", exception=ValueError("no such city")
    )
    messages = [Message("user", ["Weather in X?"]), Message("assistant", [call])]
    messages.append(Message("tool", [failed]))
    assert unstated_result("Sorry, I could not find it.", messages) is None
