"""Turning agentry messages into the chat turns a small local model reads well.

Small models answer best when a tool's result sits in the same turn as the question it
serves: fed back as a turn of its own, the model tends to call the same tool again. So tool
calls and their results are folded into the user turn they answer.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from agentry.local._decision import ANSWER_ARGUMENT, ANSWER_TOOL, ToolSpec, answer_tool, inline_refs
from agentry.tools import tool_result_to_text
from agentry.types import Content, Message

__all__ = ["DEFAULT_SYSTEM_PROMPT", "PromptMode", "build_chat_turns"]

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."


@dataclass(frozen=True)
class PromptMode:
    """How the model must reply.

    Attributes:
        tools: The tools the model may call (empty: plain text or structured output).
        allow_answer: With tools, whether answering without a call is allowed.
        answer_schema: The JSON schema a structured answer must match.
    """

    tools: Sequence[ToolSpec] = ()
    allow_answer: bool = True
    answer_schema: dict[str, Any] | None = None

    @property
    def decides(self) -> bool:
        """Whether the reply is a JSON move (tool call or final answer)."""
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
    for message in messages:
        if message.role == "system":
            system_parts.append(_plain_text(message.contents))
            continue
        for content in message.contents:
            if content.type == "function_call":
                calls[content.call_id or ""] = content
            elif content.type == "function_result":
                _add_tool_note(turns, _tool_note(content, calls.get(content.call_id or "")))
        text = _plain_text(message.contents)
        if not text:
            continue
        if message.role == "assistant":
            _add_turn(turns, "assistant", _assistant_text(text, mode))
        else:
            _add_turn(turns, "user", text)
    if instructions and all(instructions not in part for part in system_parts):
        system_parts.append(instructions)
    system = "\n\n".join(p for p in system_parts if p) or DEFAULT_SYSTEM_PROMPT
    return [{"role": "system", "content": system + _reply_rules(mode)}, *turns]


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
    move = {"name": ANSWER_TOOL, "arguments": {ANSWER_ARGUMENT: answer}}
    return json.dumps(move, ensure_ascii=False)


def _tool_note(result: Content, call: Content | None) -> str:
    output = tool_result_to_text(result.result)
    if call is None:
        return f"- a tool returned: {output}"
    try:
        arguments = json.dumps(call.parse_arguments(), ensure_ascii=False)
    except ValueError:
        arguments = str(call.arguments)
    return f"- {call.name}({arguments}) returned: {output}"


def _add_turn(turns: list[dict[str, str]], role: str, text: str) -> None:
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"] += "\n\n" + text
    else:
        turns.append({"role": role, "content": text})


def _add_tool_note(turns: list[dict[str, str]], note: str) -> None:
    if turns and turns[-1]["role"] == "user" and "\n\nTool results:\n" in turns[-1]["content"]:
        turns[-1]["content"] += "\n" + note
    elif turns and turns[-1]["role"] == "user":
        turns[-1]["content"] += "\n\nTool results:\n" + note
    else:
        turns.append({"role": "user", "content": "Tool results:\n" + note})


def _reply_rules(mode: PromptMode) -> str:
    if mode.decides:
        return _tool_rules(mode)
    if mode.answer_schema is not None:
        schema = json.dumps(inline_refs(mode.answer_schema), ensure_ascii=False)
        return f"\n\nReply with one JSON object that matches this JSON schema:\n{schema}"
    return ""


def _tool_rules(mode: PromptMode) -> str:
    moves = [answer_tool(mode.answer_schema), *mode.tools] if mode.allow_answer else mode.tools
    lines = ["", "", "Tools:", *(_signature(spec) for spec in moves), ""]
    lines.append(
        'Reply with one JSON object: {"name": <tool name>, "arguments": <arguments object>}.'
    )
    if mode.allow_answer:
        lines += [
            f"Most requests need no tool: use {ANSWER_TOOL} unless a tool's description "
            "matches the request, or when the tool results already hold what is needed.",
            "",
            _EXAMPLES,
        ]
    return "\n".join(lines)


def _type_name(schema: object) -> str:
    if isinstance(schema, dict):
        kind: object = cast("dict[str, object]", schema).get("type", "any")
        return str(kind)
    return "any"


def _signature(spec: ToolSpec) -> str:
    """`- name(arg: type, ...): description`, the way a person would list a function."""
    properties: dict[str, object] = spec.parameters.get("properties") or {}
    arguments = ", ".join(f"{name}: {_type_name(schema)}" for name, schema in properties.items())
    description = spec.description.strip() or spec.name
    return f"- {spec.name}({arguments}): {description}"


_EXAMPLES = """Examples, with a tool get_time that is not yours:
User: What time is it in Tokyo?
Reply: {"name": "get_time", "arguments": {"city": "Tokyo"}}
User: Write a haiku about rain.
Reply: {"name": "final_answer", "arguments": {"answer": "Soft rain on the roof, / puddles..."}}
User: What time is it in Lima?
Tool results:
- get_time({"city": "Lima"}) returned: 14:05
Reply: {"name": "final_answer", "arguments": {"answer": "It is 14:05 in Lima."}}
User: Hi there!
Reply: {"name": "final_answer", "arguments": {"answer": "Hello! How can I help you?"}}
User: What is the largest ocean?
Reply: {"name": "final_answer", "arguments": {"answer": "The Pacific Ocean."}}"""
