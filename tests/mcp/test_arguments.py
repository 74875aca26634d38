"""The argument allowlist of MCP tool calls, rule by rule."""

from __future__ import annotations

from typing import Any

import pytest

from agentry.mcp import MCP_FRAMEWORK_DENYLIST
from agentry.mcp._arguments import allowed_argument_names, checked_extras, prepare_call_kwargs

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}


def allowed(
    schema: dict[str, Any] = SCHEMA, extras: Any = None, tool: str = "forecast"
) -> frozenset[str]:
    return allowed_argument_names(tool, schema, extras)


def test_only_declared_parameters_are_forwarded() -> None:
    sent, meta = prepare_call_kwargs(allowed(), {"city": "Oslo", "mood": "happy"}, {})
    assert (sent, meta) == ({"city": "Oslo"}, None)


def test_runtime_values_are_stripped_unless_declared_or_opted_in() -> None:
    runtime: dict[str, Any] = {
        "thread": object(),
        "conversation_id": "c1",
        "chat_options": {},
        "days": 3,
    }
    sent, _ = prepare_call_kwargs(allowed(), {"city": "Oslo"}, runtime)
    assert sent == {"city": "Oslo", "days": 3}


def test_the_model_wins_over_a_runtime_value_of_the_same_name() -> None:
    sent, _ = prepare_call_kwargs(allowed(), {"city": "Oslo"}, {"city": "Rome"})
    assert sent == {"city": "Oslo"}


def test_a_tool_without_properties_forwards_only_the_extras() -> None:
    open_schema = {"type": "object", "additionalProperties": True}
    assert allowed(open_schema) == frozenset()
    assert allowed(open_schema, ["tenant"]) == {"tenant"}
    sent, _ = prepare_call_kwargs(allowed(open_schema, ["tenant"]), {"tenant": "t1", "x": 1}, {})
    assert sent == {"tenant": "t1"}


def test_declared_framework_names_are_dropped_unless_opted_in() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"query": {}, "options": {}, "session": {}},
    }
    assert allowed(schema) == {"query"}
    assert allowed(schema, ["options"]) == {"query", "options"}
    assert {"thread", "conversation_id", "chat_options", "options", "response_format"} <= (
        MCP_FRAMEWORK_DENYLIST
    )


def test_extras_by_tool_name_with_a_global_star() -> None:
    extras = {"*": ["trace_id"], "forecast": ["units"], "other": ["secret"]}
    assert allowed(extras=extras) == {"city", "days", "trace_id", "units"}
    assert allowed(extras=extras, tool="other") == {"city", "days", "trace_id", "secret"}


def test_meta_becomes_request_metadata_and_never_an_argument() -> None:
    extras_with_meta = allowed(extras=["_meta"])
    sent, meta = prepare_call_kwargs(
        extras_with_meta, {"city": "Oslo", "_meta": {"trace": "t"}}, {}
    )
    assert (sent, meta) == ({"city": "Oslo"}, {"trace": "t"})
    sent, meta = prepare_call_kwargs(allowed(), {"city": "Oslo"}, {"_meta": {"from": "runtime"}})
    assert (sent, meta) == ({"city": "Oslo"}, {"from": "runtime"})


def test_meta_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(TypeError, match="'_meta' must be an object"):
        prepare_call_kwargs(allowed(), {"_meta": "x"}, {})


def test_a_bare_string_is_one_name_never_its_characters() -> None:
    assert checked_extras("tenant") == ("tenant",)
    assert allowed(extras=checked_extras("tenant")) == {"city", "days", "tenant"}
    by_tool = checked_extras({"forecast": "thread", "*": "trace_id"})
    assert by_tool == {"forecast": ("thread",), "*": ("trace_id",)}
    assert allowed(extras=by_tool) == {"city", "days", "thread", "trace_id"}
    assert allowed(extras=by_tool, tool="other") == {"city", "days", "trace_id"}


@pytest.mark.parametrize(
    ("extras", "message"),
    [
        (5, "must be an argument name or a list of names, not int"),
        (["tenant", 5], "an argument name in additional_tool_argument_names must be a string"),
        ({"forecast": [None]}, r"additional_tool_argument_names\['forecast'\] must be a string"),
        ({1: ["units"]}, "a remote tool name must be a string, not int"),
    ],
)
def test_what_is_not_a_name_is_a_clear_error(extras: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        checked_extras(extras)
