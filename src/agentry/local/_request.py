"""From chat options to what the local model must do: which tools, which reply shape."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from agentry.local._decision import ToolSpec, decision_schema, inline_refs, question_schema
from agentry.local._errors import LocalModelError
from agentry.local._prompt import PromptMode
from agentry.types import ChatOptions, Message

__all__ = [
    "lookup_mode",
    "output_schema",
    "prompt_mode",
    "refusal_mode",
    "response_schema",
    "tool_rounds",
    "tool_specs",
]


def tool_specs(tools: Sequence[Any]) -> list[ToolSpec]:
    """The function tools among `tools`; others (such as hosted tools) are left out."""
    specs: list[ToolSpec] = []
    for item in cast("Sequence[object]", tools):
        if isinstance(item, Mapping):
            declaration = cast("Mapping[str, Any]", item)
            if "function" in declaration:
                specs.append(_declared_tool(cast("Mapping[str, Any]", declaration["function"])))
            continue
        name = getattr(item, "name", None)
        parameters = getattr(item, "parameters", None)
        if isinstance(name, str) and callable(parameters):
            schema = cast("dict[str, Any]", parameters())
            specs.append(ToolSpec(name, str(getattr(item, "description", "") or ""), schema))
    return specs


def _declared_tool(function: Mapping[str, Any]) -> ToolSpec:
    """A tool given as a function declaration (`{"type": "function", "function": {...}}`)."""
    return ToolSpec(
        str(function["name"]),
        str(function.get("description") or ""),
        dict(function.get("parameters") or {}),
    )


def response_schema(response_format: object) -> dict[str, Any] | None:
    """The JSON schema of a response format: a pydantic model class or a schema dict.

    Raises:
        LocalModelError: The response format is neither.
    """
    if response_format is None:
        return None
    if isinstance(response_format, Mapping):
        schema = cast("Mapping[str, object]", response_format)
        wrapped = schema.get("json_schema")
        if schema.get("type") == "json_schema" and isinstance(wrapped, Mapping):
            inner = cast("Mapping[str, object]", wrapped).get("schema")
            if isinstance(inner, Mapping):
                return dict(cast("Mapping[str, object]", inner))
        return dict(schema)
    model_json_schema = getattr(response_format, "model_json_schema", None)
    if callable(model_json_schema):
        return cast("dict[str, object]", model_json_schema())
    raise LocalModelError(
        f"response_format must be a pydantic model class or a JSON schema dict, "
        f"not {response_format!r}"
    )


def prompt_mode(
    options: ChatOptions, messages: Sequence[Message] = (), *, max_tool_rounds: int | None = None
) -> PromptMode:
    """How the model must reply, from the options' tools, tool choice and response format.

    Args:
        options: The request's chat options.
        messages: The conversation, to count the rounds of tool calls since the last user
            message.
        max_tool_rounds: After this many rounds, a tool choice of "auto" must answer (or
            ask), still shown the tools so the prompt stays the same.

    Raises:
        LocalModelError: The tool choice names a tool that is not on offer.
    """
    answer_schema = response_schema(options.get("response_format"))
    specs = tool_specs(options.get("tools") or ())
    choice: object = options.get("tool_choice") or "auto"
    mode = choice if isinstance(choice, str) else cast("Mapping[str, object]", choice).get("mode")
    required_name = (
        None
        if isinstance(choice, str)
        else cast("Mapping[str, object]", choice).get("required_function_name")
    )
    if mode == "none" or not specs:
        if mode == "required":
            raise LocalModelError("tool_choice is 'required', but no function tool is on offer")
        return PromptMode(answer_schema=answer_schema)
    if mode == "required":
        if required_name is not None:
            specs = [spec for spec in specs if spec.name == required_name]
            if not specs:
                offered = [spec.name for spec in tool_specs(options.get("tools") or ())]
                raise LocalModelError(
                    f"tool_choice requires the tool {required_name!r}, but the tools on "
                    f"offer are {offered}"
                )
        return PromptMode(tools=specs, allow_answer=False, answer_schema=answer_schema)
    # Out of rounds, the model must answer, under the same prompt so its cache is reused;
    # with results in hand it answers or goes on, rather than ask the question back.
    rounds = tool_rounds(messages)
    rounds_left = max_tool_rounds is None or rounds < max_tool_rounds
    return PromptMode(
        tools=specs, allow_ask=rounds == 0, allow_call=rounds_left, answer_schema=answer_schema
    )


def tool_rounds(messages: Sequence[Message]) -> int:
    """How many times tool results came back since the last user message."""
    rounds = 0
    for message in reversed(messages):
        if message.role == "user":
            break
        if any(c.type == "function_result" for c in message.contents):
            rounds += 1
    return rounds


def output_schema(mode: PromptMode) -> dict[str, Any] | None:
    """The JSON schema that constrained decoding enforces, if any."""
    callable_tools = [spec for spec in mode.tools if spec.name not in mode.barred_tools]
    if mode.decides and mode.must_call and callable_tools:
        return decision_schema(callable_tools, allow_answer=False)
    if mode.decides and mode.ask_only:
        if not (mode.allow_call and callable_tools):
            return question_schema()
        calls = decision_schema(callable_tools, allow_answer=False)
        return {"anyOf": [question_schema(), *calls.get("anyOf", [calls])]}
    if mode.decides:
        return decision_schema(
            mode.tools,
            allow_answer=mode.allow_answer,
            allow_ask=mode.allow_ask,
            allow_call=mode.allow_call,
            answer_schema=mode.answer_schema,
        )
    if mode.answer_schema is not None:
        return inline_refs(mode.answer_schema)
    return None


def refusal_mode(mode: PromptMode, *, ask_only: bool) -> PromptMode:
    """The step that replaces a refused call: an answer or a question, or only a question."""
    ask_only = ask_only and mode.answer_schema is None
    return replace(mode, allow_call=False, ask_only=ask_only, must_call=False)


def lookup_mode(mode: PromptMode, refused_tool: str) -> PromptMode:
    """The step after a call with a made-up argument: ask the user for it, or call another
    tool that can find it (the refused tool is barred); only a question the second time."""
    if mode.barred_tools or mode.answer_schema is not None:
        return refusal_mode(mode, ask_only=True)
    return replace(mode, ask_only=True, barred_tools=frozenset({refused_tool}))
