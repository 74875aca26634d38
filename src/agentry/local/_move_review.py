"""Reviewing the model's move before it leaves the client, and the step that replaces it.

Each refused move is decided again under the same system prompt (a note may end the last
user turn), so llama.cpp's cache serves the retry:

- a repeated call becomes an answer from the results at hand;
- a call with a made-up required argument becomes a question about it, or a call of another
  tool that can find it;
- a question that only says the request back becomes an answer or a call;
- a question (or an answer that is a question) for a value the request gives (a date, an
  address) becomes a call of the tool that takes it;
- a question for a value another tool can look up becomes a call of that tool (its arguments
  checked as any call's: one that is made up becomes a question);
- an answer that only says the request back is asked for once more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agentry.local._call_checks import (
    CallVerdict,
    check_call,
    repeats_request,
    ungrounded_argument,
)
from agentry.local._decision import Answer, Question, ToolCall
from agentry.local._prompt import PromptMode, has_note, missing_argument_note, with_note
from agentry.local._question_checks import (
    AskedArgument,
    asked_argument,
    given_value,
    lookup_tool,
)
from agentry.local._request import lookup_mode, refusal_mode
from agentry.types import Message

__all__ = ["ECHO_NOTE", "next_step"]

Step = tuple[PromptMode, list[dict[str, str]]]

ECHO_NOTE = "(Reply with the answer itself, not the request said back.)"


def next_step(
    decision: ToolCall | Answer | Question | None,
    mode: PromptMode,
    turns: list[dict[str, str]],
    messages: Sequence[Message],
) -> Step | None:
    """The step that replaces a refused move, or `None` to keep the move."""
    if isinstance(decision, ToolCall) and (mode.allow_answer or mode.must_call):
        return _call_step(decision, mode, turns, messages)
    if isinstance(decision, Question) and mode.allow_call and not mode.must_call:
        if mode.ask_only:  # after a made-up argument: only a look-up may replace the question
            return _lookup_step(decision.text, mode, turns, messages)
        return _question_step(decision, mode, turns, messages)
    if isinstance(decision, Answer) and _is_question(decision) and mode.allow_call:
        step = _redirected_question(decision.text, mode, turns, messages)
        if step is not None:
            return step
    if (
        isinstance(decision, Answer)
        and mode.answer_schema is None
        and not has_note(turns, ECHO_NOTE)
        and repeats_request(decision.text, messages, share=1.0)
    ):
        return replace(mode, allow_ask=False), with_note(turns, ECHO_NOTE)
    return None


def _call_step(
    call: ToolCall, mode: PromptMode, turns: list[dict[str, str]], messages: Sequence[Message]
) -> Step | None:
    verdict = check_call(call, mode.tools, messages)
    if verdict is CallVerdict.REPEATED:
        return refusal_mode(mode, ask_only=False), turns
    if verdict is CallVerdict.UNGROUNDED:
        missing = ungrounded_argument(call, mode.tools, messages)
        spec = next((spec for spec in mode.tools if spec.name == call.name), None)
        if missing is None or spec is None:
            return lookup_mode(mode, call.name), turns
        if not mode.barred_tools:
            made_up = AskedArgument(spec, missing)
            looked_up = _lookup_step(str(call.arguments[missing]), mode, turns, messages, made_up)
            if looked_up is not None:
                return looked_up
        return lookup_mode(mode, call.name), with_note(turns, missing_argument_note(spec, missing))
    return None


def _question_step(
    question: Question, mode: PromptMode, turns: list[dict[str, str]], messages: Sequence[Message]
) -> Step | None:
    if repeats_request(question.text, messages):
        return replace(mode, allow_ask=False), turns
    return _redirected_question(question.text, mode, turns, messages)


def _redirected_question(
    question: str, mode: PromptMode, turns: list[dict[str, str]], messages: Sequence[Message]
) -> Step | None:
    """The step in place of a question for a value the request gives, or that another tool
    can look up; `None` for a question to keep."""
    asked = asked_argument(question, mode.tools)
    if asked is None:
        return None
    given = given_value(asked, _request(messages))
    if given is not None:
        note = f"(The request gives {asked.described}: {given}. Call {asked.tool.name}.)"
        return _calling(mode, asked.tool.name), with_note(turns, note)
    return _lookup_step(question, mode, turns, messages, asked)


def _lookup_step(
    mention: str,
    mode: PromptMode,
    turns: list[dict[str, str]],
    messages: Sequence[Message],
    asked: AskedArgument | None = None,
) -> Step | None:
    """A call of another tool that can find the argument `mention` asks for or made up."""
    asked = asked or asked_argument(mention, mode.tools)
    if asked is None:
        return None
    lookup = lookup_tool(asked, mention, _request(messages), mode.tools)
    if lookup is None:
        return None
    note = (
        f"({lookup.name} can find {asked.described} of {asked.tool.name}: call it with "
        "what the request says.)"
    )
    return _calling(mode, lookup.name), with_note(turns, note)


def _calling(mode: PromptMode, tool: str) -> PromptMode:
    """The step that must call `tool` (its arguments still checked as any call's)."""
    barred = frozenset(spec.name for spec in mode.tools if spec.name != tool)
    return replace(mode, must_call=True, ask_only=False, barred_tools=barred)


def _request(messages: Sequence[Message]) -> str:
    return next((m.text for m in reversed(messages) if m.role == "user"), "")


def _is_question(answer: Answer) -> bool:
    return answer.text.rstrip().endswith("?")
