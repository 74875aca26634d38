"""One Messages API request from agentry's messages and options."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from agentry.anthropic._messages import split_system, to_wire_messages
from agentry.anthropic._options import AnthropicChatOptions, StructuredOutputMode
from agentry.clients.wire_format import (
    option_instructions,
    response_format_schema,
    split_tools,
    tool_choice_parts,
)
from agentry.errors import ChatClientError
from agentry.types import ChatOptions, Message

__all__ = ["OUTPUT_TOOL", "MessagesRequest", "RequestDefaults", "build_request"]

OUTPUT_TOOL = "final_answer"
"""The tool a model calls with its structured answer, in the "tool" structured-output mode."""
_OUTPUT_TOOL_DESCRIPTION = (
    "Give your final answer: call this tool once, with the answer as its arguments."
)
_SAMPLING_OPTIONS = ("temperature", "top_p", "top_k")
_PASSED_AS_THEY_ARE = ("thinking", "cache_control", "service_tier")


@dataclass(frozen=True)
class RequestDefaults:
    """What the client fills in where the options say nothing."""

    model: str
    max_tokens: int
    structured_output: StructuredOutputMode
    send_sampling_options: bool


@dataclass
class MessagesRequest:
    """The arguments of `messages.create`, and how to read the answer."""

    body: dict[str, Any]
    """Fields the SDK has parameters for."""
    extra_body: dict[str, Any] = field(default_factory=dict[str, Any])
    """Fields sent as they are, beside the SDK's parameters."""
    output_tool: str | None = None
    """The structured-output tool, whose call is the answer's text."""

    def arguments(self) -> dict[str, Any]:
        """Keyword arguments for `messages.create`."""
        if not self.extra_body:
            return dict(self.body)
        return {**self.body, "extra_body": dict(self.extra_body)}


def build_request(
    messages: Sequence[Message], options: ChatOptions, defaults: RequestDefaults
) -> MessagesRequest:
    """The request for `messages` with `options` (an `AnthropicChatOptions` or plain).

    Raises:
        ChatClientError: An option or a content cannot be expressed in the Messages API.
    """
    extras = cast(AnthropicChatOptions, options)
    system, conversation = split_system(messages)
    extra_instructions = option_instructions(messages, options)
    if extra_instructions:
        system.append(extra_instructions)
    body: dict[str, Any] = {
        "model": options.get("model") or defaults.model,
        "max_tokens": options.get("max_tokens") or defaults.max_tokens,
        "messages": to_wire_messages(conversation),
    }
    if system:
        body["system"] = "\n".join(system)
    stop = options.get("stop")
    if stop:
        body["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    if options.get("user"):
        body["metadata"] = {"user_id": options.get("user")}
    for key in _PASSED_AS_THEY_ARE:
        if extras.get(key) is not None:
            body[key] = extras.get(key)
    request = MessagesRequest(body=body)
    if defaults.send_sampling_options:
        for key in _SAMPLING_OPTIONS:
            if extras.get(key) is not None:
                request.extra_body[key] = extras.get(key)
    _add_tools(request, options)
    _add_output_config(request, extras, defaults)
    request.extra_body.update(options.get("additional_properties") or {})
    return request


def _add_tools(request: MessagesRequest, options: ChatOptions) -> None:
    functions, raw_tools = split_tools(options.get("tools"))
    tools: list[dict[str, Any]] = []
    for function in functions:
        definition: dict[str, Any] = {"name": function.name, "input_schema": function.parameters()}
        if function.description:
            definition["description"] = function.description
        tools.append(definition)
    tools += raw_tools
    if not tools:
        return
    request.body["tools"] = tools
    choice = _tool_choice(options)
    if choice is not None:
        request.body["tool_choice"] = choice


def _tool_choice(options: ChatOptions) -> dict[str, Any] | None:
    parts = tool_choice_parts(options.get("tool_choice"))
    parallel = options.get("allow_multiple_tool_calls")
    if parts is None and parallel is None:
        return None
    mode, name = parts or ("auto", None)
    if name:
        choice: dict[str, Any] = {"type": "tool", "name": name}
    else:
        choice = {"type": {"auto": "auto", "required": "any", "none": "none"}[mode]}
    if parallel is False and choice["type"] != "none":
        choice["disable_parallel_tool_use"] = True
    return choice


def _add_output_config(
    request: MessagesRequest, options: AnthropicChatOptions, defaults: RequestDefaults
) -> None:
    output_config: dict[str, Any] = {}
    if options.get("effort"):
        output_config["effort"] = options.get("effort")
    response_format = options.get("response_format")
    if response_format is not None:
        mode = options.get("structured_output") or defaults.structured_output
        name, schema, _ = response_format_schema(response_format)
        if mode == "json_schema":
            output_config["format"] = {"type": "json_schema", "schema": _api_schema(schema)}
        else:
            _add_output_tool(request, schema, name)
    if output_config:
        request.body["output_config"] = output_config


def _api_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema in the subset of JSON Schema the JSON output format takes.

    Raises:
        ChatClientError: The SDK cannot adapt the schema.
    """
    from anthropic import transform_schema

    try:
        return transform_schema(schema)
    except (TypeError, ValueError) as error:
        raise ChatClientError(
            f"the response format cannot be sent as the Messages API's JSON output format: "
            f"{error} (fix the schema, or pass structured_output='tool')"
        ) from None


def _add_output_tool(request: MessagesRequest, schema: dict[str, Any], title: str) -> None:
    """Ask for the answer as the arguments of a tool call: with only that tool, the call is
    forced; beside the caller's tools, the model must call one of them or answer."""
    tools = cast(list[dict[str, Any]], request.body.get("tools", []))
    if any(t.get("name") == OUTPUT_TOOL for t in tools):
        raise ChatClientError(
            f"a tool is named {OUTPUT_TOOL!r}, the name of the structured-output tool; "
            "rename it, or pass structured_output='json_schema'"
        )
    choice = cast(dict[str, Any], request.body.get("tool_choice", {}))
    if choice.get("type") == "none":
        tools = []
    description = f"{_OUTPUT_TOOL_DESCRIPTION} The answer is a {title}."
    tools.append({"name": OUTPUT_TOOL, "description": description, "input_schema": schema})
    request.body["tools"] = tools
    if len(tools) == 1:
        request.body["tool_choice"] = {"type": "tool", "name": OUTPUT_TOOL}
    elif choice.get("type") != "tool":
        request.body["tool_choice"] = {**choice, "type": "any"}
    request.output_tool = OUTPUT_TOOL
