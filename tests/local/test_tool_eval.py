"""The local tool-use evaluation: each scoring criterion, and the runner on scripted turns."""

from __future__ import annotations

import dataclasses

import pytest
from benchmarks.local_eval.cases import CASES
from benchmarks.local_eval.report import summary
from benchmarks.local_eval.runner import CaseResult, run_cases, select_cases
from benchmarks.local_eval.scoring import CRITERIA, ToolCall, TurnOutcome, score_turn
from benchmarks.local_eval.spec import Category, Contains, EvalCase, ExpectedCall, Is, Number, Turn
from benchmarks.local_eval.tools import TOOLS

from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient

WEATHER = Turn(
    "What's the weather in Paris?",
    (ExpectedCall("get_weather", {"city": Is("Paris")}),),
    ("14",),
)
PERFECT = TurnOutcome((ToolCall("get_weather", {"city": "paris"}),), "Light rain and 14 °C.")


def test_a_perfect_turn_is_a_hit_on_every_criterion() -> None:
    score = score_turn(WEATHER, PERFECT)
    assert score.criteria == dict.fromkeys(CRITERIA, True)
    assert score.hit
    assert not score.side_effect_unasked


@pytest.mark.parametrize(
    ("broken", "outcome"),
    [
        ("tools", dataclasses.replace(PERFECT, calls=())),
        (
            "arguments",
            dataclasses.replace(PERFECT, calls=(ToolCall("get_weather", {"city": "Rome"}),)),
        ),
        (
            "no_extra_call",
            dataclasses.replace(
                PERFECT, calls=(*PERFECT.calls, ToolCall("get_weather", {"city": "Paris"}))
            ),
        ),
        ("answer", dataclasses.replace(PERFECT, answer="It is 35.88 degrees.")),
        ("clean", dataclasses.replace(PERFECT, error="tool failed: boom")),
        ("clean", dataclasses.replace(PERFECT, answer="According to the tool results, 14 °C.")),
        ("clean", dataclasses.replace(PERFECT, answer='{"name": "get_weather"} 14')),
    ],
)
def test_each_criterion_failing_alone_makes_a_miss(broken: str, outcome: TurnOutcome) -> None:
    score = score_turn(WEATHER, outcome)
    assert score.failed == [broken]
    assert not score.hit


def test_a_missing_argument_wants_a_question_and_no_call() -> None:
    turn = Turn("Send an email saying I'll be late.", asks=True)
    asked = score_turn(turn, TurnOutcome((), "Who should I send it to?"))
    told = score_turn(turn, TurnOutcome((), "Sure, I will send it."))
    invented = TurnOutcome((ToolCall("send_email", {"to": "boss@example.com"}),), "Sent?")
    assert asked.hit
    assert told.failed == ["answer"]
    assert score_turn(turn, invented).failed == ["no_extra_call"]
    assert score_turn(turn, invented).side_effect_unasked


def test_a_side_effecting_call_on_a_no_tool_prompt_is_flagged_apart() -> None:
    turn = Turn("Suggest a name for a grey kitten.")
    mailed = TurnOutcome((ToolCall("send_email", {"to": "a@b.c"}),), "Try Smokey.")
    looked_up = TurnOutcome((ToolCall("get_weather", {"city": "Oslo"}),), "Try Smokey.")
    assert score_turn(turn, mailed).side_effect_unasked
    assert not score_turn(turn, looked_up).side_effect_unasked
    assert not score_turn(turn, looked_up).hit


def test_argument_rules() -> None:
    assert Is("Paris").check(" PARIS ")
    assert not Is("Paris").check("Paris, France")
    assert Contains("dentist").check("Dentist appointment")
    assert not Contains("x").check(3)
    assert Number(50).check(50)
    assert Number(50).check("50.0")
    assert Number(187.2).check(187.20)
    assert not Number(50).check("fifty")
    assert not Number(1).check(True)


def test_the_set_has_at_least_60_turns_over_the_five_categories() -> None:
    turns = dict.fromkeys(Category, 0)
    for case in CASES:
        turns[case.category] += len(case.turns)
    assert sum(turns.values()) >= 60
    assert all(count >= 8 for count in turns.values())
    names = {tool.name for tool in TOOLS}
    called = {call.name for case in CASES for turn in case.turns for call in turn.calls}
    assert called <= names


async def test_the_runner_plays_cases_to_an_agent_in_fresh_sessions() -> None:
    two_step = next(case for case in CASES if case.category is Category.TWO_TOOLS)
    follow_up = next(case for case in CASES if case.category is Category.FOLLOW_UP)
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("find_contact", {"name": "Maria"}),
            ScriptedChatClient.function_call("get_weather", {"city": "Lisbon"}),
            "Partly cloudy and 19 °C in Lisbon.",
            ScriptedChatClient.function_call("get_weather", {"city": "Paris"}),
            "Light rain, 14 °C.",
            "Montreal is probably similar.",  # answered without the tool: a miss
        ]
    )
    agent = Agent(client=client, instructions="Be helpful.", tools=list(TOOLS))
    results = await run_cases(agent, [two_step, follow_up])

    first, second = results
    assert [s.hit for s in first.scores] == [True]
    assert [c.name for c in first.scores[0].outcome.calls] == ["find_contact", "get_weather"]
    assert [s.hit for s in second.scores] == [True, False]
    assert second.scores[1].failed == ["tools", "answer"]
    # the follow-up's session holds the first turn; the two-step case's is not shared
    assert [m.role for m in client.calls[-1].messages].count("user") == 2
    table = summary(results, model="scripted")
    assert "two-tools" in table
    assert "2/3 (67%)" in table


async def test_a_failing_tool_or_model_is_scored_as_an_unclean_turn() -> None:
    case = EvalCase(Category.ONE_TOOL, (WEATHER,))
    client = ScriptedChatClient([RuntimeError("the model crashed")])
    agent = Agent(client=client, tools=list(TOOLS))
    [result] = await run_cases(agent, [case])
    assert "the model crashed" in (result.scores[0].outcome.error or "")
    assert "clean" in result.scores[0].failed


def test_a_subset_by_category_and_limit() -> None:
    chosen = select_cases(CASES, categories=[Category.NO_TOOL, Category.FOLLOW_UP], limit=2)
    assert [c.category for c in chosen] == [Category.NO_TOOL] * 2 + [Category.FOLLOW_UP] * 2


async def test_a_tool_that_fails_on_bad_arguments_makes_the_turn_unclean() -> None:
    case = next(c for c in CASES if c.turns[0].prompt.startswith("Convert 250"))
    call = {"amount": 250, "from_currency": "dollars", "to_currency": "EUR"}
    client = ScriptedChatClient(
        [ScriptedChatClient.function_call("convert_currency", call), "231.48 EUR."]
    )
    [result] = await run_cases(Agent(client=client, tools=list(TOOLS)), [case])
    score = result.scores[0]
    assert score.failed == ["arguments", "clean"]
    assert "Unknown currency code 'DOLLARS'" in (score.outcome.error or "")


def test_a_numeric_fact_is_not_found_inside_a_longer_number() -> None:
    turn = Turn("How cold is it in Reykjavik?", facts=("2",))
    assert score_turn(turn, TurnOutcome((), "It is 24 °C.")).failed == ["answer"]
    assert score_turn(turn, TurnOutcome((), "It is 2°C.")).hit


async def test_held_out_turns_are_counted_apart_and_selectable() -> None:
    held_out = select_cases(CASES, held_out=True)
    assert len(held_out) >= 4
    assert {case.category for case in held_out} == set(Category)
    assert not any(case.held_out for case in select_cases(CASES, held_out=False))
    case = next(c for c in held_out if c.category is Category.NO_TOOL)
    tuned = next(c for c in CASES if c.turns[0].prompt == "What is the capital of Australia?")
    client = ScriptedChatClient(["There are 180 minutes.", "No idea."])
    results = await run_cases(Agent(client=client, tools=list(TOOLS)), [case, tuned])
    table = summary(results, model="scripted")
    rows = {line[:24].strip(): line[24:].split()[:2] for line in table.splitlines()}
    assert rows["held-out turns"] == ["1/1", "(100%)"]
    assert rows["overall without held-out"] == ["0/1", "(0%)"]
    assert rows["overall"] == ["1/2", "(50%)"]


def test_the_summary_prints_evaluated_and_generated_tokens_per_turn() -> None:
    case = EvalCase(Category.NO_TOOL, (WEATHER, WEATHER, WEATHER))
    outcomes = [
        TurnOutcome(
            (), "Hi", seconds=1.0, output_tokens=10, input_tokens=900, cached_input_tokens=0
        ),
        TurnOutcome(
            (), "Hi", seconds=2.0, output_tokens=30, input_tokens=950, cached_input_tokens=910
        ),
        TurnOutcome(
            (), "Hi", seconds=3.0, output_tokens=20, input_tokens=990, cached_input_tokens=960
        ),
    ]
    result = CaseResult(case, [score_turn(WEATHER, outcome) for outcome in outcomes])
    table = summary([result], model="scripted")
    assert (
        "tokens per turn (median): 40 prompt tokens evaluated (not from the cache), "
        "20 generated; whole set: 970 evaluated, 60 generated"
    ) in table
