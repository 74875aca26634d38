from __future__ import annotations

import pytest

from agentry import Message
from agentry.orchestrations import (
    AllOf,
    AnyOf,
    KeywordTermination,
    MaxRounds,
    PredicateTermination,
    TerminationCondition,
    TerminationContext,
)
from agentry.orchestrations._termination import as_termination


def context(*texts: str, rounds: int = 0, role: str = "assistant") -> TerminationContext:
    return TerminationContext(conversation=[Message(role, [t]) for t in texts], rounds=rounds)


def test_max_rounds_stops_at_the_limit() -> None:
    assert MaxRounds(3).check(context(rounds=2)) is None
    assert MaxRounds(3).check(context(rounds=3)) == "reached the limit of 3 rounds"


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_max_rounds_rejects_bad_limits(bad: object) -> None:
    with pytest.raises(ValueError, match="positive number of rounds"):
        MaxRounds(bad)  # type: ignore[arg-type]


def test_keyword_looks_at_the_last_message_only() -> None:
    stop = KeywordTermination("DONE")
    assert stop.check(context("we are done")) == "the keyword 'DONE' was said"
    assert stop.check(context("done", "not yet")) is None
    assert stop.check(context()) is None


def test_keyword_can_be_case_sensitive_and_limited_to_roles() -> None:
    assert KeywordTermination("DONE", case_sensitive=True).check(context("done")) is None
    from_user = KeywordTermination("bye", roles=["user"])
    assert from_user.check(context("bye")) is None
    assert from_user.check(context("bye", role="user")) is not None


def test_keyword_needs_a_keyword() -> None:
    with pytest.raises(ValueError, match="at least one non-empty keyword"):
        KeywordTermination()


def test_predicate_reports_its_reason() -> None:
    def long_enough(ctx: TerminationContext) -> bool:
        return len(ctx.conversation) >= 2

    assert PredicateTermination(long_enough).check(context("a")) is None
    assert PredicateTermination(long_enough).check(context("a", "b")) == "long_enough held"
    custom = PredicateTermination(long_enough, reason="enough said")
    assert custom.check(context("a", "b")) == "enough said"


async def test_an_async_predicate_is_awaited() -> None:
    async def stop(ctx: TerminationContext) -> bool:
        return ctx.rounds > 1

    assert await PredicateTermination(stop).check_async(context(rounds=1)) is None
    assert await PredicateTermination(stop).check_async(context(rounds=2)) == "stop held"
    with pytest.raises(TypeError, match="check_async"):
        PredicateTermination(stop).check(context(rounds=2))


async def test_or_stops_on_either_and_and_needs_both() -> None:
    either = MaxRounds(5) | KeywordTermination("DONE")
    both = MaxRounds(5) & KeywordTermination("DONE")
    assert isinstance(either, AnyOf)
    assert isinstance(both, AllOf)
    assert await either.check_async(context("DONE", rounds=1)) == "the keyword 'DONE' was said"
    assert await both.check_async(context("DONE", rounds=1)) is None
    reason = await both.check_async(context("DONE", rounds=5))
    assert reason == "reached the limit of 5 rounds and the keyword 'DONE' was said"
    assert both.check(context("DONE", rounds=5)) == reason


def test_numbers_and_functions_combine_too() -> None:
    combined = 3 | KeywordTermination("x")
    assert combined.check(context("no", rounds=3)) == "reached the limit of 3 rounds"
    both = KeywordTermination("x") & (lambda ctx: ctx.rounds > 1)  # pyright: ignore[reportUnknownLambdaType, reportUnknownMemberType]
    assert both.check(context("x", rounds=1)) is None
    assert both.check(context("x", rounds=2)) is not None


def test_combinations_flatten() -> None:
    combined = MaxRounds(1) | MaxRounds(2) | MaxRounds(3)
    assert isinstance(combined, AnyOf)
    assert len(combined.conditions) == 3


def test_as_termination_accepts_numbers_and_functions() -> None:
    assert isinstance(as_termination(4), MaxRounds)
    assert isinstance(as_termination(lambda ctx: False), PredicateTermination)  # pyright: ignore[reportUnknownLambdaType]
    condition = MaxRounds(1)
    assert as_termination(condition) is condition
    with pytest.raises(TypeError, match="termination must be"):
        as_termination("soon")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def test_a_subclass_must_implement_check() -> None:
    with pytest.raises(NotImplementedError):
        TerminationCondition().check(context())
