"""The recursive type of a JSON value."""

from typing import TypeAlias

JsonValue: TypeAlias = str | int | float | bool | list["JsonValue"] | dict[str, "JsonValue"] | None
"""Any value `json.loads` can return: a string, number, boolean, null, list or object."""

JsonObject: TypeAlias = dict[str, JsonValue]
"""A JSON object: string keys to JSON values."""
