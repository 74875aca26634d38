"""Checking data read back from storage or the wire before it becomes objects.

Each stored shape is declared once as a `TypedDict` marked with :func:`stored_fields`;
:func:`check_fields` validates a dict against it with pydantic (strictly: nothing is
coerced, unknown keys are refused) and turns a failure into the caller's error type with a
message naming the field and what it should be. :func:`load_json` parses text the same way
whatever its nesting. pydantic is imported on first use, so importing agentry stays light.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from agentry.errors import SerializationError

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError

__all__ = ["check_fields", "load_json", "present_fields", "stored_fields"]

_ClsT = TypeVar("_ClsT", bound=type)
_SHOWN_ERRORS = 3
_SCALAR_TAGS = frozenset({"str", "int", "float", "bool", "bytes", "none"})


def stored_fields(cls: _ClsT) -> _ClsT:
    """Mark a `TypedDict` as a stored shape: strict types, no unknown keys."""
    # A plain dict is what pydantic's `ConfigDict` is; it needs no pydantic import.
    setattr(cls, "__pydantic_config__", {"extra": "forbid", "strict": True})  # noqa: B010
    return cls


def present_fields(
    source: object, names: Iterable[str], additional_properties: Mapping[str, Any] | None
) -> dict[str, object]:
    """The attributes `names` of `source` that are set (not None), and
    `additional_properties` when there are any: the optional part of a stored dict."""
    data: dict[str, object] = {}
    for name in names:
        value = getattr(source, name)
        if value is not None:
            data[name] = value
    if additional_properties:
        data["additional_properties"] = additional_properties
    return data


@functools.cache
def _adapter(shape: type) -> TypeAdapter[Any]:
    from pydantic import TypeAdapter

    return TypeAdapter(shape)


def check_fields(
    shape: type,
    data: object,
    *,
    kind: str,
    error: type[Exception] = SerializationError,
) -> dict[str, Any]:
    """`data` as a dict of the stored shape `shape`.

    Args:
        shape: A `TypedDict` marked with :func:`stored_fields`.
        data: What was read back.
        kind: What `data` should be, for the message ("message", "checkpoint"...).
        error: The error type to raise.

    Raises:
        error: `data` does not have the shape; the message names each wrong field.
    """
    from pydantic import ValidationError

    if isinstance(data, Mapping) and not isinstance(data, dict):
        data = dict(cast("Mapping[str, Any]", data))
    if not isinstance(data, dict):
        raise error(f"a {kind} must be a JSON object, not {_shown(data)}")
    try:
        return cast("dict[str, Any]", _adapter(shape).validate_python(data))
    except ValidationError as failure:
        raise error(f"the {kind} is malformed: {_describe(failure, kind)}") from None


def load_json(text: str | bytes, *, kind: str, error: type[Exception] = SerializationError) -> Any:
    """Parse a JSON document; invalid or too deeply nested text raises `error`."""
    try:
        return json.loads(text)
    except (ValueError, TypeError) as failure:  # also bytes that are not UTF-8, or no text
        raise error(f"the {kind} is not valid JSON: {failure}") from None
    except RecursionError:
        raise error(f"the {kind} is nested too deeply to be read as JSON") from None


def _describe(failure: ValidationError, kind: str) -> str:
    problems: dict[str, str] = {}
    unknown: list[str] = []
    for item in failure.errors(include_url=False):
        loc = item["loc"]
        alternative = bool(loc) and _is_union_member(loc[-1])
        where = _location(loc[:-1] if alternative else loc)
        if item["type"] == "extra_forbidden":
            unknown.append(where)
        elif item["type"] == "missing":
            problems[where] = f"field {where!r} is missing"
        elif alternative and where in problems:
            # The members of a union each report; say what any of them would accept.
            expectation = item["msg"].removeprefix("Input should be ")
            first, got = problems[where].rsplit(", not ", 1)
            problems[where] = f"{first} or {expectation}, not {got}"
        else:
            expectation = item["msg"].removeprefix("Input ")
            problems[where] = f"field {where!r} {expectation}, not {_shown(item['input'])}"
    listed = list(problems.values())
    if unknown:
        listed.insert(0, f"unknown {kind} fields {unknown}")
    shown = "; ".join(listed[:_SHOWN_ERRORS])
    hidden = len(listed) - _SHOWN_ERRORS
    return shown + (f" (and {hidden} more)" if hidden > 0 else "")


def _is_union_member(part: int | str) -> bool:
    """Whether a location part names a member of a union rather than a field.

    pydantic tags the errors of each union member with the member's type ("str",
    "dict[str,any]"); no stored shape has a field of such a name.
    """
    return isinstance(part, str) and (part in _SCALAR_TAGS or "[" in part)


def _location(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


def _shown(value: object) -> str:
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:40] + "...")
    return f"a {type(value).__name__}"
