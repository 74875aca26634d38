"""Turning agentry messages into the chat turns a small local model reads well.

Small models answer best when a tool's result sits in the same turn as the question it
serves: fed back as a turn of its own, the model tends to call the same tool again. So tool
calls and their results are restated plainly in the user turn they answer, with the reminder
to answer from them.

The system prompt depends only on the instructions, the tools and the answer's shape, never on
whether this step may still call a tool: the step that must answer shares the calling step's
prompt prefix, so llama.cpp reuses its cached evaluation.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from agentry.local._decision import ToolSpec, inline_refs
from agentry.local._request_parts import OpenPart, open_parts
from agentry.tools import tool_result_to_text
from agentry.types import Content, Message

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "PromptMode",
    "build_chat_turns",
    "has_note",
    "missing_argument_note",
    "with_note",
]

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."


@dataclass(frozen=True)
class PromptMode:
    """How the model must reply.

    Attributes:
        tools: The tools the model is shown (empty: plain text or structured output).
        allow_answer: With tools, whether answering (or asking) without a call is allowed.
        allow_ask: With tools, whether asking the user is allowed at this step.
        allow_call: With tools, whether calling one is allowed at this step.
        ask_only: With tools, whether answering is ruled out at this step: the model asks
            the user, or calls a tool when `allow_call` (other than `barred_tools`).
        must_call: With tools, whether this step must call a tool other than
            `barred_tools`: a look-up the client chose in place of a question.
        barred_tools: With tools, the tools this step may not call (still listed, so the
            prompt stays the same).
        answer_schema: The JSON schema a structured answer must match.
    """

    tools: Sequence[ToolSpec] = ()
    allow_answer: bool = True
    allow_ask: bool = True
    allow_call: bool = True
    ask_only: bool = False
    must_call: bool = False
    barred_tools: frozenset[str] = frozenset()
    answer_schema: dict[str, Any] | None = None

    @property
    def decides(self) -> bool:
        """Whether the reply is a JSON move (answer, question or tool call)."""
        return bool(self.tools)


def build_chat_turns(
    messages: Sequence[Message], mode: PromptMode, instructions: str | None = None
) -> list[dict[str, str]]:
    """Chat turns (`role` and `content`) for the model's chat template.

    Args:
        messages: The conversation, system messages included.
        mode: How the model must reply.
        instructions: Extra system instructions from the chat options.
    """
    system_parts: list[str] = []
    turns: list[dict[str, str]] = []
    calls: dict[str, Content] = {}
    request = ""
    done: list[str] = []  # the calls made for the request, with their results
    previous = ""  # the reminder that ends the last results turn
    for message in messages:
        if message.role == "system":
            system_parts.append(_plain_text(message.contents))
            continue
        for content in message.contents:
            if content.type == "function_call":
                calls[content.call_id or ""] = content
                if mode.decides:
                    # The transcript shows each call as the move it was, so a new request
                    # of the same kind is seen to need a call too.
                    _add_turn(turns, "assistant", _call_move(content))
            elif content.type == "function_result":
                note = _tool_note(content, calls.get(content.call_id or ""))
                done.append(note.removeprefix("- "))
                reminder = _reminder(request, open_parts(request, done, mode.tools))
                _add_tool_note(
                    turns, note, own_turn=mode.decides, reminder=reminder, previous=previous
                )
                previous = reminder
        text = _plain_text(message.contents)
        if not text:
            continue
        if message.role == "assistant":
            _add_turn(turns, "assistant", _assistant_text(text, mode))
        else:
            _add_turn(turns, "user", text)
            request, done, previous = text, [], ""
    if instructions and all(instructions not in part for part in system_parts):
        system_parts.append(instructions)
    system = "\n\n".join(p for p in system_parts if p) or DEFAULT_SYSTEM_PROMPT
    return [{"role": "system", "content": system + _reply_rules(mode)}, *turns]


def _call_move(call: Content) -> str:
    try:
        arguments: object = call.parse_arguments()
    except ValueError:
        arguments = str(call.arguments)
    return json.dumps({"action": call.name, "arguments": arguments}, ensure_ascii=False)


def with_note(turns: list[dict[str, str]], note: str) -> list[dict[str, str]]:
    """`turns` with `note` after the last user turn's text.

    Only the end of the prompt changes, so the cached evaluation of the rest is reused.
    """
    last = turns[-1]
    if last["role"] != "user":
        return [*turns, {"role": "user", "content": note}]
    return [*turns[:-1], {"role": "user", "content": f"{last['content']}\n\n{note}"}]


def has_note(turns: Sequence[dict[str, str]], note: str) -> bool:
    """Whether the last turn already ends with `note`."""
    return bool(turns) and turns[-1]["content"].endswith(note)


def missing_argument_note(spec: ToolSpec, argument: str) -> str:
    """The note that `argument` of `spec` was not given."""
    return (
        f"(The request does not say {spec.describe(argument)}. If another tool "
        "can find it from what the request says, call that tool; otherwise ask the user for it.)"
    )


def _plain_text(contents: Sequence[Content]) -> str:
    pieces: list[str] = []
    for content in contents:
        if content.type == "text" and content.text:
            pieces.append(content.text)
        elif content.type in ("data", "uri"):
            pieces.append(f"[attached {content.media_type or 'file'}]")
        elif content.type == "error" and content.message:
            pieces.append(f"[error: {content.message}]")
    return "\n".join(pieces)


def _assistant_text(text: str, mode: PromptMode) -> str:
    if not mode.decides:
        return text
    answer: object = text
    if mode.answer_schema is not None:
        with contextlib.suppress(json.JSONDecodeError):
            answer = json.loads(text)
    return json.dumps({"action": "answer", "text": answer}, ensure_ascii=False)


def _tool_note(result: Content, call: Content | None) -> str:
    output = tool_result_to_text(result.result)
    if call is None:
        return f"- a tool returned: {output}"
    try:
        arguments = ", ".join(
            f"{name}={json.dumps(value, ensure_ascii=False)}"
            for name, value in call.parse_arguments().items()
        )
    except ValueError:
        arguments = str(call.arguments)
    return f"- {call.name}({arguments}) returned: {output}"


def _add_turn(turns: list[dict[str, str]], role: str, text: str) -> None:
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"] += "\n\n" + text
    else:
        turns.append({"role": role, "content": text})


RESULTS_HEADING = "Results:"


def _reminder(request: str, still_open: Sequence[OpenPart] = ()) -> str:
    request_line = f"\nThe request: {request}" if request else ""
    if still_open:
        part = still_open[0]
        return (
            f'{request_line}\nIts part "{part.text}" is not done yet: call '
            f"{' or '.join(part.tools)} with a value from the results."
        )
    return (
        f"{request_line}\nIf these results answer the request, answer it from them, with their "
        "facts and numbers; if it still needs another tool, call it with a value from them."
    )


def _add_tool_note(
    turns: list[dict[str, str]], note: str, *, own_turn: bool, reminder: str, previous: str
) -> None:
    """Add a result under the results heading, followed by `reminder` (the request restated,
    in place of the `previous` one): in the question's turn, or in a turn of its own after the
    call's turn."""
    block = f"\n\n{RESULTS_HEADING}\n"
    last = turns[-1] if turns else None
    if (
        last is not None
        and last["role"] == "user"
        and previous
        and last["content"].endswith(previous)
    ):
        last["content"] = last["content"].removesuffix(previous) + "\n" + note + reminder
    elif last is not None and last["role"] == "user" and not own_turn:
        last["content"] += block + note + reminder
    else:
        turns.append({"role": "user", "content": block.lstrip() + note + reminder})


def _reply_rules(mode: PromptMode) -> str:
    if mode.decides:
        return _tool_rules(mode)
    if mode.answer_schema is not None:
        schema = json.dumps(inline_refs(mode.answer_schema), ensure_ascii=False)
        return f"\n\nReply with one JSON object that matches this JSON schema:\n{schema}"
    return ""


def _tool_rules(mode: PromptMode) -> str:
    lines = ["", "", "Tools:", *(_signature(spec) for spec in mode.tools), ""]
    if not mode.allow_answer:
        lines.append(
            'Reply with one JSON object: {"action": <tool name>, "arguments": <its arguments>}.'
        )
        return "\n".join(lines)
    lines += [
        "Reply with one JSON object, one of:",
        '{"action": "answer", "text": <your reply to the user>}',
        *(
            ['{"action": "ask", "question": <a question for the user>}']
            if mode.answer_schema is None
            else []
        ),
        '{"action": <tool name>, "arguments": <its arguments>}',
        "",
        _RULES,
        "",
        _EXAMPLES,
    ]
    return "\n".join(lines)


def _argument(name: str, schema: object) -> str:
    """`name: type`, with the argument's description in brackets when it has one."""
    if not isinstance(schema, dict):
        return f"{name}: any"
    fields = cast("dict[str, object]", schema)
    described = f" ({fields['description']})" if fields.get("description") else ""
    return f"{name}: {fields.get('type', 'any')}{described}"


def _signature(spec: ToolSpec) -> str:
    """`- name(arg: type, ...): description Required: ...`, as a person would list it."""
    properties: dict[str, object] = spec.parameters.get("properties") or {}
    arguments = ", ".join(_argument(name, schema) for name, schema in properties.items())
    description = spec.description.strip() or spec.name
    required = spec.required
    needs = f" Required: {', '.join(required)}." if required else ""
    return f"- {spec.name}({arguments}): {description}{needs}"


_RULES = """Rules:
- Answer yourself when no tool's description fits the request: greetings, thanks, general \
knowledge, math, writing, advice and translation need no tool.
- Call a tool only with values the user or a result gave. If a required value is missing or \
unclear, ask for it; never make one up.
- After results, answer from them (their facts and numbers), or call the next tool with a \
value taken from them.
- Results serve only the request they follow: a new request needs its own call.
- Never repeat a call with the same arguments.
- Never mention tools, results or JSON in the answer."""

_EXAMPLES = """Examples, with tools get_time(city) and find_person(name) that are not yours:
User: What time is it in Tokyo?
Reply: {"action": "get_time", "arguments": {"city": "Tokyo"}}
User: What time is it?
Reply: {"action": "ask", "question": "Which city do you want the time for?"}
User: Write a haiku about rain.
Reply: {"action": "answer", "text": "Soft rain on the roof, / puddles..."}
User: What time is it where Ana lives?
Reply: {"action": "find_person", "arguments": {"name": "Ana"}}
User: Results:
- find_person(name="Ana") returned: Ana Ruiz lives in Lima
The request: What time is it where Ana lives?
Reply: {"action": "get_time", "arguments": {"city": "Lima"}}
User: Results:
- get_time(city="Lima") returned: 14:05
Reply: {"action": "answer", "text": "It is 14:05 in Lima."}
User: And in Oslo?
Reply: {"action": "get_time", "arguments": {"city": "Oslo"}}
User: Thanks!
Reply: {"action": "answer", "text": "You're welcome!"}"""
