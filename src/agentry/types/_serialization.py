"""`SerializationMixin`: conversion of agentry's objects to and from plain JSON."""

from __future__ import annotations

import dataclasses
import functools
import json
import types
from collections.abc import Mapping
from typing import Any, ClassVar, Union, cast, get_args, get_origin, get_type_hints

from typing_extensions import NotRequired, Self, TypedDict

from agentry.errors import SerializationError
from agentry.types._validation import check_fields, load_json, stored_fields

__all__ = ["SerializationMixin"]


class SerializationMixin:
    """`to_dict`/`from_dict` and `to_json`/`from_json`, the same way for every class.

    A dataclass that inherits it gets all four from its fields: `to_dict` turns nested
    serializable objects and lists of them into dicts, and `from_dict` checks every field
    strictly (no coercion, no unknown keys; the error names the wrong field) before it
    rebuilds nested objects. Other classes write `to_dict` and `from_dict` themselves and
    inherit the JSON pair. Errors are `SerializationError`s unless a class names another
    type in `serialization_error`, and call the object by its class name unless it names
    itself in `serialization_kind`.

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass
        ... class Point(SerializationMixin):
        ...     x: int
        ...     y: int
        >>> Point.from_json(Point(1, 2).to_json())
        Point(x=1, y=2)
    """

    __slots__ = ()

    serialization_error: ClassVar[type[Exception]] = SerializationError
    serialization_kind: ClassVar[str | None] = None

    @classmethod
    def _kind(cls) -> str:
        return cls.serialization_kind or cls.__name__

    def to_dict(self) -> dict[str, Any]:
        """This object as a JSON-ready dict."""
        if not dataclasses.is_dataclass(self):
            raise NotImplementedError(f"{type(self).__name__} must implement to_dict()")
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild an object from :meth:`to_dict` output.

        Raises:
            SerializationError: `data` does not describe one (or the class's own
                `serialization_error`); the message names the field.
        """
        if not dataclasses.is_dataclass(cls):
            raise NotImplementedError(f"{cls.__name__} must implement from_dict()")
        fields = check_fields(_shape_of(cls), data, kind=cls._kind(), error=cls.serialization_error)
        return cast("Self", _build(cls, fields))

    def to_json(self) -> str:
        """This object as a JSON document.

        Raises:
            SerializationError: It holds something that is not plain JSON.
        """
        try:
            return json.dumps(self.to_dict(), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as error:
            raise self.serialization_error(
                f"this {self._kind()} is not plain JSON: {error}"
            ) from error

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        """Rebuild an object from :meth:`to_json` output.

        Raises:
            SerializationError: The text is not JSON (or is nested too deeply), or does
                not describe one.
        """
        data = load_json(text, kind=cls._kind(), error=cls.serialization_error)
        if not isinstance(data, dict):
            raise cls.serialization_error(
                f"a {cls._kind()} must be a JSON object, not {json.dumps(data)[:40]}"
            )
        return cls.from_dict(cast("dict[str, object]", data))


def _plain(value: object) -> Any:
    if isinstance(value, SerializationMixin):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in cast("list[object]", value)]
    if isinstance(value, dict):
        items = cast("dict[str, object]", value).items()
        return {key: _plain(item) for key, item in items}
    return value


@functools.cache
def _shape_of(cls: type) -> type:
    """The stored shape of a serializable dataclass: a `TypedDict` of its fields."""
    hints = get_type_hints(cls)
    fields: dict[str, object] = {}
    for field in dataclasses.fields(cls):
        hint = _stored_type(hints[field.name])
        has_default = (
            field.default is not dataclasses.MISSING
            or field.default_factory is not dataclasses.MISSING
        )
        fields[field.name] = NotRequired[hint] if has_default else hint
    return stored_fields(TypedDict(f"{cls.__name__}Fields", fields))  # type: ignore[operator]


def _stored_type(hint: object) -> Any:
    """`hint` with every serializable dataclass replaced by its stored shape."""
    if isinstance(hint, type) and _is_serializable_dataclass(hint):
        return _shape_of(hint)
    origin, args = get_origin(hint), get_args(hint)
    if not args:
        return hint
    stored: list[Any] = [_stored_type(arg) for arg in args]
    if origin in (Union, types.UnionType):
        return Union[tuple(stored)]  # noqa: UP007 - built from a tuple
    generic: Any = origin
    return generic[tuple(stored)] if len(stored) > 1 else generic[stored[0]]


def _build(cls: type, fields: dict[str, Any]) -> Any:
    hints = get_type_hints(cls)
    return cls(**{name: _rebuild(hints[name], value) for name, value in fields.items()})


def _rebuild(hint: object, value: object) -> object:
    """`value`, checked against `hint`, with the dicts of serializable dataclasses rebuilt."""
    origin, args = get_origin(hint), get_args(hint)
    if isinstance(value, list):
        items = cast("list[object]", value)
        return [_rebuild(args[0], item) for item in items] if origin is list and args else items
    if not isinstance(value, dict):
        return value
    fields = cast("dict[str, object]", value)
    members = args if origin in (Union, types.UnionType) else (hint,)
    for member in members:
        if isinstance(member, type) and _is_serializable_dataclass(member):
            return _build(member, fields)
    return fields


def _is_serializable_dataclass(cls: type) -> bool:
    return dataclasses.is_dataclass(cls) and issubclass(cls, SerializationMixin)
