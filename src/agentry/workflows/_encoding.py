"""Checkpoint encoding: live values to plain JSON and back, through a registry of types.

JSON values pass as they are. Anything else is written as
`{"__agentry_type__": <type name>, "value": ...}` and rebuilt only when its type name is
registered: agentry's own types, types declared in the workflow's handler signatures, or
types passed to :func:`register_checkpoint_type`. Decoding never imports a module or
builds a type it was not told about, so a checkpoint cannot make the process run code.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

from agentry.workflows._errors import WorkflowCheckpointException
from agentry.workflows._typing import TypeMatcher, compile_matcher, flatten_union, type_name

__all__ = ["TYPE_KEY", "CheckpointTypeRegistry", "register_checkpoint_type"]

TYPE_KEY = "__agentry_type__"
_ClsT = TypeVar("_ClsT", bound=type)
_JSON_SCALARS = (str, int, float, bool, type(None))
_BUILTIN_TYPES: dict[str, Any] = {
    "builtins.str": str,
    "builtins.int": int,
    "builtins.float": float,
    "builtins.bool": bool,
    "builtins.bytes": bytes,
    "builtins.NoneType": type(None),
    "builtins.list": list,
    "builtins.dict": dict,
    "builtins.tuple": tuple,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    "builtins.object": object,
    "typing.Any": Any,
}
_GLOBAL_TYPES: dict[str, type] = {}


def register_checkpoint_type(cls: _ClsT, *, name: str | None = None) -> _ClsT:
    """Allow instances of `cls` in every workflow checkpoint; usable as a decorator.

    Types named in handler signatures are allowed already; register the others (such as
    the types of executor state or of shared state). `cls` must be a dataclass, a pydantic
    model, an enum, or have `to_dict()` / `from_dict()`.

    Example:
        >>> from dataclasses import dataclass
        >>> @register_checkpoint_type
        ... @dataclass
        ... class Tally:
        ...     count: int
    """
    if _codec_kind(cls) is None:
        raise TypeError(
            f"{cls.__qualname__} cannot be stored in a checkpoint: make it a dataclass, a "
            "pydantic model or an enum, or give it to_dict() and from_dict()"
        )
    _GLOBAL_TYPES[name or _default_name(cls)] = cls
    return cls


def _default_name(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _codec_kind(cls: type[Any]) -> str | None:
    if issubclass(cls, enum.Enum):
        return "enum"
    if dataclasses.is_dataclass(cls):
        return "dataclass"
    if hasattr(cls, "model_validate") and hasattr(cls, "model_dump"):
        return "pydantic"
    if callable(getattr(cls, "to_dict", None)) and callable(getattr(cls, "from_dict", None)):
        return "dict"
    return None


def _agentry_types() -> dict[str, type]:
    from agentry.sessions import AgentSession
    from agentry.types import (
        AgentResponse,
        AgentResponseUpdate,
        ChatResponse,
        ChatResponseUpdate,
        Content,
        Message,
    )
    from agentry.workflows._events import WorkflowErrorDetails, WorkflowRunState

    types: list[type] = [
        Message,
        Content,
        AgentResponse,
        AgentResponseUpdate,
        ChatResponse,
        ChatResponseUpdate,
        AgentSession,
        WorkflowErrorDetails,
        WorkflowRunState,
    ]
    return {f"agentry.{t.__name__}": t for t in types}


class CheckpointTypeRegistry:
    """The types one workflow may write to and read from its checkpoints.

    Args:
        annotations: Type annotations to allow (with the types their fields use).
    """

    def __init__(self, annotations: Iterable[Any] = ()) -> None:
        self._by_name: dict[str, type] = dict(_agentry_types())
        self._local: dict[str, type] = {}
        for annotation in annotations:
            self._collect(annotation, set())
        self._names: dict[type, str] = {}

    def _collect(self, annotation: Any, seen: set[int]) -> None:
        if id(annotation) in seen:
            return
        seen.add(id(annotation))
        for member in flatten_union(annotation):
            if typing.get_origin(member) is typing.Literal:
                continue
            for arg in typing.get_args(member):
                if arg is not Ellipsis:
                    self._collect(arg, seen)
            cls = typing.get_origin(member) or member
            if not isinstance(cls, type) or cls.__module__ == "builtins":
                continue
            if _codec_kind(cls) is None or cls in self._by_name.values():
                continue
            self._local[_default_name(cls)] = cls
            for field_type in _field_types(cls):
                self._collect(field_type, seen)

    def _lookup(self, name: str) -> type | None:
        return self._by_name.get(name) or self._local.get(name) or _GLOBAL_TYPES.get(name)

    def _name_of(self, cls: type) -> str | None:
        name = self._names.get(cls)
        if name is not None:
            return name
        for table in (self._by_name, self._local, _GLOBAL_TYPES):
            for key, value in table.items():
                if value is cls:
                    self._names[cls] = key
                    return key
        return None

    # region encode

    def encode(self, value: Any, path: str = "$") -> Any:
        """`value` as plain JSON data.

        Raises:
            WorkflowCheckpointException: A value's type is not registered (the error names
                where it is and how to allow it), or the value is nested too deeply.
        """
        try:
            return self._encode(value, path)
        except RecursionError:
            raise WorkflowCheckpointException(
                f"cannot checkpoint the value at {path}: it is nested too deeply"
            ) from None

    def _encode(self, value: Any, path: str) -> Any:
        if isinstance(value, _JSON_SCALARS) and not isinstance(value, enum.Enum):
            return value
        if type(value) is list:
            items = cast("list[Any]", value)
            return [self._encode(v, f"{path}[{i}]") for i, v in enumerate(items)]
        if type(value) is dict:
            data = cast("dict[Any, Any]", value)
            if TYPE_KEY not in data and all(type(k) is str for k in data):
                return {k: self._encode(v, f"{path}.{k}") for k, v in data.items()}
            pairs = [
                [self._encode(k, f"{path}.<key>"), self._encode(v, f"{path}[{k!r}]")]
                for k, v in data.items()
            ]
            return {TYPE_KEY: "dict", "items": pairs}
        if type(value) in (tuple, set, frozenset):
            kind = type(value).__name__
            items = cast("Iterable[Any]", value)
            return {TYPE_KEY: kind, "items": [self._encode(v, f"{path}[]") for v in items]}
        if type(value) is bytes:
            return {TYPE_KEY: "bytes", "value": base64.b64encode(value).decode("ascii")}
        if _is_type_annotation(value):
            return {TYPE_KEY: "type", "value": self._encode_type(value, path)}
        return self._encode_object(value, path)

    def _encode_object(self, value: Any, path: str) -> Any:
        cls: type[Any] = value.__class__
        name = self._name_of(cls)
        if name is None:
            raise WorkflowCheckpointException(
                f"cannot checkpoint the {cls.__qualname__} at {path}: its type is not "
                f"registered; decorate {cls.__qualname__} with @register_checkpoint_type "
                "(or name it in a handler signature), or store plain JSON values"
            )
        kind = _codec_kind(cls)
        if kind == "enum":
            encoded: Any = self._encode(value.value, path)
        elif kind == "dataclass":
            encoded = {
                f.name: self._encode(getattr(value, f.name), f"{path}.{f.name}")
                for f in dataclasses.fields(value)
            }
        elif kind == "pydantic":
            encoded = value.model_dump(mode="json")
        else:
            encoded = value.to_dict()
        return {TYPE_KEY: name, "value": encoded}

    def _encode_type(self, tp: Any, path: str) -> Any:
        if tp is None:
            tp = type(None)
        for key, builtin in _BUILTIN_TYPES.items():
            if tp is builtin:
                return key
        members = flatten_union(tp)
        if len(members) != 1:
            return {"union": [self._encode_type(m, path) for m in members]}
        tp = members[0]
        origin = typing.get_origin(tp)
        if origin is not None:
            if origin is typing.Literal:
                return {"literal": [self.encode(a, path) for a in typing.get_args(tp)]}
            return {
                "origin": self._encode_type(origin, path),
                "args": [self._encode_type(a, path) for a in typing.get_args(tp)],
            }
        name = self._name_of(tp) if isinstance(tp, type) else None
        if name is None:
            raise WorkflowCheckpointException(
                f"cannot checkpoint the type {tp!r} at {path}: it is not registered; "
                "decorate it with @register_checkpoint_type"
            )
        return name

    # endregion

    # region decode

    def decode(self, data: Any, path: str = "$") -> Any:
        """Rebuild live values from :meth:`encode` output.

        Raises:
            WorkflowCheckpointException: The data names a type that is not registered, does
                not fit its type, or is nested too deeply.
        """
        try:
            return self._decode(data, path)
        except RecursionError:
            raise WorkflowCheckpointException(
                f"the value stored at {path} cannot be restored: it is nested too deeply"
            ) from None

    def _decode(self, data: Any, path: str) -> Any:
        if isinstance(data, list):
            return [self._decode(v, f"{path}[{i}]") for i, v in enumerate(cast("list[Any]", data))]
        if not isinstance(data, dict):
            return data
        obj = cast("dict[str, Any]", data)
        marker = obj.get(TYPE_KEY)
        if marker is None:
            return {k: self._decode(v, f"{path}.{k}") for k, v in obj.items()}
        if not isinstance(marker, str):
            raise WorkflowCheckpointException(f"malformed type marker at {path}: {marker!r}")
        try:
            return self._decode_marked(marker, obj, path)
        except WorkflowCheckpointException:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise WorkflowCheckpointException(
                f"the {marker} stored at {path} cannot be restored: {error}"
            ) from error

    def _decode_marked(self, marker: str, obj: dict[str, Any], path: str) -> Any:
        builders: dict[str, Callable[[list[Any]], Any]] = {
            "tuple": tuple,
            "set": set,
            "frozenset": frozenset,
        }
        if marker in builders:
            return builders[marker]([self._decode(v, path) for v in obj["items"]])
        if marker == "dict":
            return {self._decode(k, path): self._decode(v, path) for k, v in obj["items"]}
        if marker == "bytes":
            return base64.b64decode(obj["value"], validate=True)
        if marker == "type":
            return self._decode_type(obj["value"], path)
        cls = self._lookup(marker)
        if cls is None:
            raise WorkflowCheckpointException(
                f"the checkpoint holds a {marker!r} at {path}, a type this workflow does not "
                "know; register it with register_checkpoint_type() before restoring (only "
                "registered types are ever rebuilt from checkpoints)"
            )
        value = obj["value"]
        kind = _codec_kind(cls)
        if kind == "enum":
            return cls(self._decode(value, path))
        if kind == "dataclass":
            return _build_dataclass(
                cls, {k: self._decode(v, f"{path}.{k}") for k, v in value.items()}, path
            )
        if kind == "pydantic":
            return cast(Any, cls).model_validate(value)
        return cast(Any, cls).from_dict(value)

    def _decode_type(self, descriptor: Any, path: str) -> Any:
        if isinstance(descriptor, str):
            builtin = _BUILTIN_TYPES.get(descriptor)
            if builtin is not None or descriptor in _BUILTIN_TYPES:
                return builtin
            cls = self._lookup(descriptor)
            if cls is None:
                raise WorkflowCheckpointException(
                    f"the checkpoint names the type {descriptor!r} at {path}, which this "
                    "workflow does not know; register it with register_checkpoint_type()"
                )
            return cls
        spec = cast("dict[str, Any]", descriptor)
        if "union" in spec:
            members = tuple(self._decode_type(m, path) for m in spec["union"])
            return typing.Union[members]  # noqa: UP007
        if "literal" in spec:
            return typing.Literal[tuple(self._decode(a, path) for a in spec["literal"])]  # pyright: ignore[reportInvalidTypeArguments]
        origin = self._decode_type(spec["origin"], path)
        args = tuple(self._decode_type(a, path) for a in spec["args"])
        return origin[args] if args else origin

    # endregion


def _is_type_annotation(value: Any) -> bool:
    return (
        isinstance(value, type)
        or value is Any
        or (typing.get_origin(value) is not None and not isinstance(value, (list, dict, tuple)))
    )


def _field_types(cls: type[Any]) -> list[Any]:
    if dataclasses.is_dataclass(cls):
        return list(_dataclass_hints(cls).values())
    fields: Any = getattr(cls, "model_fields", None)
    if isinstance(fields, Mapping):
        return [getattr(f, "annotation", Any) for f in cast("Mapping[str, Any]", fields).values()]
    return []


def _dataclass_hints(cls: type[Any]) -> dict[str, Any]:
    """The declared type of each field of a dataclass (`Any` where it cannot be resolved)."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # unresolvable annotations: the class itself is still usable
        hints = {}
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(cls)}


@functools.lru_cache(maxsize=256)
def _field_matchers(cls: type[Any]) -> dict[str, TypeMatcher]:
    return {
        name: compile_matcher(_with_ints_as_floats(hint))
        for name, hint in _dataclass_hints(cls).items()
    }


def _with_ints_as_floats(tp: Any) -> Any:
    """`tp` with `float` read as `float | int`, as type checkers do (`x: float = 0`)."""
    if tp is float:
        return float | int
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is None or not args or origin in (typing.Literal, typing.Annotated):
        return tp
    widened = tuple(a if a is Ellipsis else _with_ints_as_floats(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[widened]  # noqa: UP007
    try:
        return origin[widened]
    except TypeError:  # a generic that cannot be rebuilt: keep it as declared
        return tp


def _build_dataclass(cls: type, values: dict[str, Any], path: str) -> Any:
    """An instance of dataclass `cls` with the stored field values, each checked against
    its declared type; keys that are not fields of `cls` are refused."""
    matchers = _field_matchers(cls)
    unknown = sorted(set(values) - set(matchers))
    if unknown:
        raise WorkflowCheckpointException(
            f"the {cls.__qualname__} stored at {path} names fields that "
            f"{cls.__qualname__} does not declare: {unknown}"
        )
    for name, value in values.items():
        if not _matches(matchers[name], value):
            raise WorkflowCheckpointException(
                f"the {cls.__qualname__} stored at {path} cannot be restored: its field "
                f"{name!r} should be {type_name(_dataclass_hints(cls)[name])}, not "
                f"{type(value).__name__}"
            )
    init_names = {f.name for f in dataclasses.fields(cls) if f.init}
    instance = cls(**{k: v for k, v in values.items() if k in init_names})
    for name, value in values.items():
        if name not in init_names:
            object.__setattr__(instance, name, value)
    return instance


def _matches(matcher: TypeMatcher, value: Any) -> bool:
    try:
        return matcher.matches(value)
    except TypeError:  # a type that cannot be checked at run time (a plain Protocol)
        return True
