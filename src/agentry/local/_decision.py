"""The decision step: the JSON schema of the model's next move, and its parse.

With tools on offer, each model turn writes exactly one JSON object of one of three shapes:

- `{"action": "answer", "text": ...}`: the reply to the user;
- `{"action": "ask", "question": ...}`: a clarifying question, when a required argument is
  missing or ambiguous;
- `{"action": <tool name>, "arguments": {...}}`: a call of that tool, its arguments
  constrained by the tool's own schema.

Decoding is constrained to that schema, so the model cannot name a tool that does not exist or
give arguments of the wrong shape. "answer", "ask" and the tools' names are words at the same
position, so answering or asking is as easy to pick as calling a tool.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from agentry.local._errors import LocalModelError
from agentry.local._facts import content_words

__all__ = [
    "RESERVED_ACTIONS",
    "Answer",
    "Question",
    "ToolCall",
    "ToolSpec",
    "argument_words",
    "decision_schema",
    "inline_refs",
    "parse_decision",
    "question_schema",
]


RESERVED_ACTIONS = frozenset({"answer", "ask"})
"""The actions that are not tool calls; no tool may take these names."""


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it."""

    name: str
    description: str
    parameters: dict[str, Any]

    @property
    def required(self) -> list[str]:
        """The names of the arguments the tool cannot do without."""
        return [str(name) for name in cast("list[object]", self.parameters.get("required") or [])]

    @property
    def words(self) -> set[str]:
        """The words of the tool's name, description and arguments: what it is about."""
        words = content_words(f"{self.name.replace('_', ' ')} {self.description}")
        for name, schema in self.properties.items():
            words |= argument_words(name, schema)
        return words

    @property
    def properties(self) -> dict[str, object]:
        """The arguments' schemas by name."""
        return cast("dict[str, object]", self.parameters.get("properties") or {})

    def describe(self, argument: str) -> str:
        """`argument` as a prompt names it: "the to (The recipient's email address)"."""
        schema = self.properties.get(argument)
        description = (
            cast("dict[str, object]", schema).get("description")
            if isinstance(schema, dict)
            else None
        )
        return f"the {argument} ({description})" if description else f"the {argument}"


@dataclass(frozen=True)
class ToolCall:
    """The model's decision to call a tool."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """The model's decision to answer; `text` is the answer as the user reads it."""

    text: str


@dataclass(frozen=True)
class Question:
    """The model's decision to ask the user a clarifying question."""

    text: str


def argument_words(name: str, schema: object) -> set[str]:
    """The words of an argument's name and description."""
    fields = cast("dict[str, object]", schema) if isinstance(schema, dict) else {}
    return content_words(f"{name.replace('_', ' ')} {fields.get('description') or ''}")


def _shape(action: str, properties: dict[str, object]) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {"action": {"const": action}, **properties},
        "required": ["action", *properties],
        "additionalProperties": False,
    }


def decision_schema(
    tools: Sequence[ToolSpec],
    *,
    allow_answer: bool = True,
    allow_ask: bool = True,
    allow_call: bool = True,
    answer_schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON schema of one move: an answer, a question or a call of one of `tools`.

    Args:
        tools: The tools the model may call.
        allow_answer: Whether answering (or asking, for a plain text answer) is allowed.
        allow_ask: With `allow_answer`, whether asking the user is allowed.
        allow_call: Whether calling a tool is allowed.
        answer_schema: The schema of a structured answer; a string answer when `None`. A
            structured answer leaves out the question, which would not match it.

    Raises:
        LocalModelError: A tool is called "answer" or "ask", or there is nothing to choose.
    """
    reserved = [spec.name for spec in tools if spec.name in RESERVED_ACTIONS]
    if reserved:
        raise LocalModelError(
            f"a tool is named {reserved[0]!r}, which the local model reserves for its own "
            "moves; rename the tool"
        )
    options: list[dict[str, object]] = []
    if allow_answer:
        text = inline_refs(answer_schema) if answer_schema else {"type": "string"}
        options.append(_shape("answer", {"text": text}))
        if answer_schema is None and allow_ask:
            options.append(_shape("ask", {"question": {"type": "string"}}))
    if allow_call:
        options += [
            _shape(spec.name, {"arguments": _arguments_schema(spec.parameters)}) for spec in tools
        ]
    if not options:
        raise LocalModelError("there is neither a tool to call nor an answer to give")
    return options[0] if len(options) == 1 else {"anyOf": options}


def question_schema() -> dict[str, Any]:
    """The schema of a move that can only ask the user a question."""
    return _shape("ask", {"question": {"type": "string"}})


def parse_decision(text: str, *, structured_answer: bool = False) -> ToolCall | Answer | Question:
    """The move in the model's output, which constrained decoding made valid JSON.

    Raises:
        LocalModelError: The output is not a complete move (it was cut off by max_tokens).
    """
    try:
        data = json.loads(text, strict=False)  # the grammar lets raw newlines into strings
    except json.JSONDecodeError:
        raise LocalModelError(
            f"the model's output ended before its JSON was complete ({text[:80]!r}...); "
            "raise max_tokens"
        ) from None
    if not isinstance(data, dict):
        raise LocalModelError(f"the model's output is not a JSON object: {text[:80]!r}")
    move = cast("dict[str, object]", data)
    action = move.get("action")
    if action not in RESERVED_ACTIONS:
        raw_arguments = move.get("arguments")
        arguments = (
            cast("dict[str, object]", raw_arguments) if isinstance(raw_arguments, dict) else {}
        )
        return ToolCall(str(action), arguments)
    if action == "ask":
        return Question(str(move.get("question", "")))
    answer = move.get("text", "")
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
