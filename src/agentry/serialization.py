"""`SerializationMixin`: plain dicts and JSON for agentry's small data classes.

A dataclass that inherits it gets `to_dict`, `from_dict`, `to_json` and `from_json`.
Values come back checked against the field types (by pydantic), so a malformed dict is
refused with a `SerializationError` that names the field, instead of becoming an object
that fails later, far from the cause.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from agentry.errors import SerializationError

if TYPE_CHECKING:
    from pydantic import TypeAdapter
    from typing_extensions import Self

__all__ = ["SerializationMixin"]


class SerializationMixin:
    """Gives a dataclass `to_dict`/`from_dict` and `to_json`/`from_json`.

    Fields may hold JSON values, other such dataclasses, and lists or dicts of them.

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Point(SerializationMixin):
        ...     x: int
        ...     y: int = 0
        >>> Point.from_json(Point(x=1).to_json())
        Point(x=1, y=0)
    """

    def to_dict(self) -> dict[str, Any]:
        """The object as a JSON-ready dict, one key per field."""
        return cast("dict[str, Any]", _adapter(type(self)).dump_python(self, mode="json"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The object a `to_dict` result describes.

        Raises:
            SerializationError: `data` is not a mapping, lacks a required field, or holds a
                value of the wrong type.
        """
        from pydantic import ValidationError

        if not isinstance(data, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise SerializationError(
                f"a {cls.__name__} is read from a dict, not from {type(data).__name__}"
            )
        try:
            return cast("Self", _adapter(cls).validate_python(dict(data)))
        except ValidationError as error:
            raise SerializationError(f"cannot read a {cls.__name__}: {_problems(error)}") from None
        except RecursionError:
            raise SerializationError(
                f"cannot read a {cls.__name__}: its data is nested too deeply"
            ) from None

    def to_json(self) -> str:
        """The object as a JSON document."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        """The object a `to_json` result describes.

        Raises:
            SerializationError: The text is not JSON, or not a valid object (see `from_dict`).
        """
        try:
            data: Any = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise SerializationError(
                f"cannot read a {cls.__name__}: the text is not a JSON document it can read "
                f"({type(error).__name__})"
            ) from None
        return cls.from_dict(data)


@cache
def _adapter(cls: type[Any]) -> TypeAdapter[Any]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(
            f"{cls.__name__} inherits SerializationMixin but is not a dataclass; decorate it "
            "with @dataclass"
        )
    from pydantic import TypeAdapter

    return TypeAdapter(cls)


def _problems(error: Any) -> str:
    """The validation errors as `field: message` pairs, the first few."""
    details: list[Any] = error.errors(include_url=False, include_input=False)
    shown = [
        f"{'.'.join(str(part) for part in item['loc']) or 'the value'}: {item['msg']}"
        for item in details[:3]
    ]
    more = f" (and {len(details) - 3} more)" if len(details) > 3 else ""
    return "; ".join(shown) + more
