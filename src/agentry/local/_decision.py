"""Constrained decoding for tool calls: the JSON schema of the model's next move, and its parse.

With tools on offer, the model answers with exactly one JSON object naming a tool and its
arguments, `{"name": ..., "arguments": {...}}`. Answering the user is one more such tool,
`final_answer`, listed first. Decoding is constrained to that schema, so the model cannot
name a tool that does not exist or give arguments of the wrong shape; and since the answer
competes with the tools at the same step, the model weighs them against each other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from agentry.local._errors import LocalModelError

__all__ = [
    "ANSWER_ARGUMENT",
    "ANSWER_TOOL",
    "Answer",
    "ToolCall",
    "ToolSpec",
    "answer_tool",
    "decision_schema",
    "inline_refs",
    "parse_decision",
]

ANSWER_TOOL = "final_answer"
ANSWER_ARGUMENT = "answer"


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """The model's decision to call a tool."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """The model's decision to answer; `text` is the answer as the user reads it."""

    text: str


def answer_tool(answer_schema: dict[str, Any] | None = None) -> ToolSpec:
    """The pseudo tool through which the model answers instead of calling a real tool."""
    answer = inline_refs(answer_schema) if answer_schema else {"type": "string"}
    return ToolSpec(
        ANSWER_TOOL,
        "Answer the user yourself. Greetings, thanks, general knowledge, facts, math, "
        "writing, translation and jokes need no other tool.",
        {
            "type": "object",
            "properties": {ANSWER_ARGUMENT: answer},
            "required": [ANSWER_ARGUMENT],
        },
    )


def decision_schema(
    tools: Sequence[ToolSpec], *, allow_answer: bool, answer_schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON schema of one move: a call of one of `tools`, or (if allowed) an answer.

    Args:
        tools: The tools the model may call.
        allow_answer: Whether answering instead of calling a tool is allowed.
        answer_schema: The schema of a structured answer; a string answer when `None`.

    Raises:
        LocalModelError: A tool is called `final_answer`, or there is nothing to choose.
    """
    if any(spec.name == ANSWER_TOOL for spec in tools):
        raise LocalModelError(
            f"a tool is named {ANSWER_TOOL!r}, which the local model reserves for its answer; "
            "rename the tool"
        )
    moves = [answer_tool(answer_schema), *tools] if allow_answer else list(tools)
    options: list[dict[str, object]] = [
        {
            "type": "object",
            "properties": {
                "name": {"const": spec.name},
                "arguments": _arguments_schema(spec.parameters),
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for spec in moves
    ]
    if not options:
        raise LocalModelError("there is neither a tool to call nor an answer to give")
    return options[0] if len(options) == 1 else {"anyOf": options}


def parse_decision(text: str, *, structured_answer: bool = False) -> ToolCall | Answer:
    """The move in the model's output, which constrained decoding made valid JSON.

    Raises:
        LocalModelError: The output is not a complete move (it was cut off by max_tokens).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise LocalModelError(
            f"the model's output ended before its JSON was complete ({text[:80]!r}...); "
            "raise max_tokens"
        ) from None
    if not isinstance(data, dict):
        raise LocalModelError(f"the model's output is not a JSON object: {text[:80]!r}")
    move = cast("dict[str, object]", data)
    raw_arguments = move.get("arguments")
    arguments = cast("dict[str, object]", raw_arguments) if isinstance(raw_arguments, dict) else {}
    name = str(move.get("name"))
    if name != ANSWER_TOOL:
        return ToolCall(name, arguments)
    answer = arguments.get(ANSWER_ARGUMENT, "")
    if structured_answer or not isinstance(answer, str):
        return Answer(json.dumps(answer, ensure_ascii=False))
    return Answer(answer)


def _arguments_schema(parameters: Mapping[str, object]) -> dict[str, Any]:
    schema = inline_refs(parameters)
    if not schema:
        return {"type": "object", "properties": {}}
    if schema.get("type") == "object" and "properties" not in schema:
        schema["properties"] = {}
    return schema


_DROPPED_KEYS = frozenset({"title", "$defs", "definitions", "examples", "$schema"})
# Maps whose keys are property names, not schema keywords (a property may be called "title").
_NAME_MAPS = frozenset({"properties", "patternProperties"})


def inline_refs(schema: Mapping[str, object]) -> dict[str, Any]:
    """`schema` with local `$ref`s replaced by what they point to, and titles dropped.

    Tool schemas nested inside the move schema can no longer reach their own `$defs`, so
    references are resolved here.

    Raises:
        LocalModelError: The schema is recursive, which a grammar cannot express here.
    """
    root = schema
    definitions = {
        **cast("dict[str, object]", root.get("definitions") or {}),
        **cast("dict[str, object]", root.get("$defs") or {}),
    }

    def resolve(node: object, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, seen) for item in cast("list[object]", node)]
        if not isinstance(node, dict):
            return node
        mapping = cast("dict[str, object]", node)
        reference = mapping.get("$ref")
        if isinstance(reference, str):
            name = reference.rsplit("/", 1)[-1]
            if name in seen:
                raise LocalModelError(
                    f"the JSON schema refers to {name!r} inside itself; recursive schemas "
                    "cannot be enforced by constrained decoding"
                )
            if name not in definitions:
                raise LocalModelError(f"the JSON schema refers to an unknown {reference!r}")
            target = resolve(definitions[name], (*seen, name))
            siblings = {k: v for k, v in mapping.items() if k != "$ref"}
            return {**target, **resolve(siblings, seen)}
        resolved: dict[str, object] = {}
        for key, value in mapping.items():
            if key in _DROPPED_KEYS:
                continue
            if key in _NAME_MAPS and isinstance(value, dict):
                names = cast("dict[str, object]", value)
                resolved[key] = {name: resolve(sub, seen) for name, sub in names.items()}
            else:
                resolved[key] = resolve(value, seen)
        return resolved

    return cast("dict[str, object]", resolve(root, ()))
