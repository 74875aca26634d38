"""Type annotations as runtime checks: does a value match a type, can one type feed another.

Handlers declare the messages they accept with ordinary annotations (`str`, `int | None`,
`list[Message]`, pydantic models, dataclasses, `Any`). These helpers compile such an
annotation once, at build time, into a fast predicate, and compare declared types for the
edge checks of `WorkflowBuilder.build()`.
"""

from __future__ import annotations

import collections.abc as abc
import functools
import types
import typing
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

from typing_extensions import Never, TypeAliasType

__all__ = [
    "TypeMatcher",
    "compile_matcher",
    "flatten_union",
    "is_type_compatible",
    "type_name",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_UNION_TYPES: tuple[Any, ...] = (typing.Union, types.UnionType)
_NEVER: tuple[Any, ...] = (Never, typing.NoReturn)
_SEQUENCE_ORIGINS: tuple[Any, ...] = (list, set, frozenset, abc.Sequence, abc.Set, abc.Iterable)


def _strip(tp: object) -> Any:
    """Drop `Annotated[...]` extras, resolve type aliases, and replace TypeVars by bounds."""
    while True:
        if typing.get_origin(tp) is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif isinstance(tp, TypeAliasType):
            tp = tp.__value__
        elif isinstance(tp, TypeVar):
            tp = tp.__bound__ if tp.__bound__ is not None else Any
        elif tp is None:
            return type(None)
        else:
            return tp


def _memoized(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """`function`, remembering its results for hashable arguments.

    Annotations are immutable, so what is read from one holds for good; a workflow built
    again (each durable run builds its own) asks again about the same annotations. An
    annotation that cannot be hashed (one whose `Annotated` extras are dicts, say) is
    looked at afresh each time.
    """
    remembered = functools.lru_cache(maxsize=4096)(function)

    @functools.wraps(function)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            hash(args)
        except TypeError:
            return function(*args, **kwargs)
        return remembered(*args, **kwargs)

    return call


def flatten_union(tp: object) -> list[Any]:
    """The members of a union (or `[tp]`); `Never` gives an empty list."""
    return list(_union_members(tp))


@_memoized
def _union_members(tp: object) -> tuple[Any, ...]:
    tp = _strip(tp)
    if tp in _NEVER:
        return ()
    if typing.get_origin(tp) in _UNION_TYPES:
        return tuple(member for arg in typing.get_args(tp) for member in _union_members(arg))
    return (tp,)


def type_name(tp: Any) -> str:
    """A readable name for a type annotation, for error messages."""
    tp = _strip(tp)
    if tp is Any:
        return "Any"
    if tp is type(None):
        return "None"
    if isinstance(tp, type) and not typing.get_args(tp):
        return tp.__qualname__
    text = repr(tp)
    return text.replace("typing.", "").replace("collections.abc.", "")


class TypeMatcher:
    """A compiled check of one annotation.

    Attributes:
        annotation: The annotation it checks.
        classes: When the check is a plain `isinstance`, the classes it accepts; otherwise
            None, and `matches` must look at the value itself (such as `list[int]`).
        accepts_any: Whether every value matches (`Any`, `object`).
        outer: The classes a value must be an instance of to have a chance of matching.
    """

    __slots__ = ("accepts_any", "annotation", "check", "classes", "outer")

    def __init__(self, annotation: object) -> None:
        self.annotation = annotation
        check, classes, outer = _compile(annotation)
        self.check: Callable[[Any], bool] = check
        self.classes: tuple[type, ...] | None = classes
        self.outer: tuple[type, ...] = outer
        self.accepts_any = outer == (object,) and classes == (object,)

    def matches(self, value: object) -> bool:
        """Whether `value` is an instance of the annotation."""
        return self.check(value)

    def distance(self, cls: type) -> int:
        """How closely this matcher fits instances of `cls` (0 is the exact class)."""
        if self.accepts_any:
            return 10_000
        mro = cls.__mro__
        best = 5_000
        for accepted in self.outer:
            if accepted in mro:
                best = min(best, mro.index(accepted))
        return best if self.classes is not None else best + 1_000


@_memoized
def compile_matcher(annotation: object) -> TypeMatcher:
    """Compile an annotation into a `TypeMatcher` (one per annotation: matchers do not
    change)."""
    return TypeMatcher(annotation)


def _always(_: object) -> bool:
    return True


def _compile(tp: object) -> tuple[Callable[[Any], bool], tuple[type, ...] | None, tuple[type, ...]]:
    """(check, plain classes or None, outer classes) of an annotation."""
    tp = _strip(tp)
    if tp is Any or tp is object:
        return _always, (object,), (object,)
    origin = typing.get_origin(tp)
    if origin in _UNION_TYPES:
        parts = [_compile(arg) for arg in typing.get_args(tp)]
        outer = tuple(cls for part in parts for cls in part[2])
        if all(part[1] is not None for part in parts):
            classes = tuple(cls for part in parts for cls in cast("tuple[type, ...]", part[1]))
            if object in classes:
                return _always, (object,), (object,)
            return (lambda value: isinstance(value, classes)), classes, classes
        checks = [part[0] for part in parts]
        return (lambda value: any(check(value) for check in checks)), None, outer
    if origin is typing.Literal:
        allowed = typing.get_args(tp)
        outer: tuple[type, ...] = tuple({_class(v) for v in allowed})

        def check_literal(value: object) -> bool:
            return any(value == a and type(value) is type(a) for a in allowed)

        return check_literal, None, outer
    if origin is None:
        if isinstance(tp, type):
            cls = tp
            return (lambda value: isinstance(value, cls)), (cls,), (cls,)
        # Something we cannot check (a Protocol without runtime_checkable, a string
        # forward reference...): accept anything rather than refuse valid messages.
        return _always, (object,), (object,)
    return _compile_generic(tp, origin)


def _compile_generic(
    tp: object, origin: object
) -> tuple[Callable[[Any], bool], tuple[type, ...] | None, tuple[type, ...]]:
    args = typing.get_args(tp)
    base: type = origin if isinstance(origin, type) else object
    if origin in _SEQUENCE_ORIGINS and len(args) == 1:
        item = _compile(args[0])
        if item[1] == (object,):
            return (lambda value: isinstance(value, base)), (base,), (base,)
        item_check = item[0]
        return (
            lambda value: isinstance(value, base) and all(item_check(v) for v in value),
            None,
            (base,),
        )
    if origin in (dict, abc.Mapping) and len(args) == 2:
        key, val = _compile(args[0]), _compile(args[1])
        if key[1] == (object,) and val[1] == (object,):
            return (lambda value: isinstance(value, base)), (base,), (base,)
        key_check, val_check = key[0], val[0]
        return (
            lambda value: (
                isinstance(value, base)
                and all(key_check(k) and val_check(v) for k, v in value.items())
            ),
            None,
            (base,),
        )
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item_check = _compile(args[0])[0]
            return (
                lambda value: (
                    isinstance(value, tuple)
                    and all(item_check(v) for v in cast("tuple[object, ...]", value))
                ),
                None,
                (tuple,),
            )
        checks = [_compile(arg)[0] for arg in args]
        return (
            lambda value: (
                isinstance(value, tuple)
                and len(cast("tuple[object, ...]", value)) == len(checks)
                and all(
                    check(v)
                    for check, v in zip(checks, cast("tuple[object, ...]", value), strict=True)
                )
            ),
            None,
            (tuple,),
        )
    if origin is type:
        return (lambda value: isinstance(value, type)), (type,), (type,)
    # Other generics (a generic pydantic model, `Callable[...]`...): check the origin only.
    return (lambda value: isinstance(value, base)), (base,), (base,)


@_memoized
def is_type_compatible(source: object, target: object) -> bool:
    """Whether a value declared as `source` can be accepted by a handler of `target`.

    A union source is compatible when any member is (the edge carries at least some of the
    source's messages); a union target when any member accepts the source.
    """
    source, target = _strip(source), _strip(target)
    if source is Any or target is Any or target is object:
        return True
    source_members = flatten_union(source)
    target_members = flatten_union(target)
    if len(source_members) != 1 or len(target_members) != 1:
        return any(is_type_compatible(s, t) for s in source_members for t in target_members)
    source, target = source_members[0], target_members[0]
    if typing.get_origin(target) is typing.Literal:
        if typing.get_origin(source) is typing.Literal:
            return bool(set(typing.get_args(source)) & set(typing.get_args(target)))
        return any(isinstance(v, _class_of(source)) for v in typing.get_args(target))
    if typing.get_origin(source) is typing.Literal:
        matcher = compile_matcher(target)
        return any(matcher.matches(v) for v in typing.get_args(source))
    source_class, target_class = _class_of(source), _class_of(target)
    if not issubclass(source_class, target_class):
        return False
    target_args, source_args = typing.get_args(target), typing.get_args(source)
    if not target_args or not source_args or len(target_args) != len(source_args):
        return True
    return all(
        is_type_compatible(s, t)
        for s, t in zip(source_args, target_args, strict=True)
        if s is not Ellipsis and t is not Ellipsis
    )


def _class_of(tp: object) -> type:
    origin = typing.get_origin(tp)
    if isinstance(origin, type):
        return origin
    return tp if isinstance(tp, type) else object


def _class(value: object) -> type[Any]:
    cls: type[object] = value.__class__
    return cls
