"""Unknown keyword names fail with the closest valid name, never silently."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Collection, Iterable
from typing import NoReturn, ParamSpec, TypeVar

__all__ = [
    "closest_name",
    "reject_unknown_keywords",
    "suggest_keywords",
    "unknown_names_message",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like `name`, if one is close enough to be a likely typo."""
    import difflib  # only on the error path: importing agentry stays quick

    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def unknown_names_message(what: str, unknown: Iterable[str], valid: Collection[str]) -> str:
    """`what` got `unknown` names: say which, and the closest valid name of each."""
    parts: list[str] = []
    for name in unknown:
        match = closest_name(name, valid)
        parts.append(f"{name!r} (did you mean {match!r}?)" if match else repr(name))
    plural = "s" if len(parts) > 1 else ""
    return (
        f"{what} got unknown keyword argument{plural} {', '.join(parts)}; "
        f"valid ones are: {', '.join(sorted(valid))}"
    )


def suggest_keywords(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Make a call with an unknown keyword raise a `TypeError` naming the closest valid one.

    The check costs nothing on calls that bind: it runs only when Python itself refuses the
    arguments.
    """
    valid: list[str] = []

    @functools.wraps(function)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            # No frame of `function` in the traceback: binding the arguments failed.
            if error.__traceback__ is None or error.__traceback__.tb_next is not None:
                raise
            if not valid:
                valid.extend(_keyword_names(function))
            unknown = [name for name in kwargs if name not in valid]
            if not unknown:
                raise
            what = f"{_qualified_name(function, args).removesuffix('.__init__')}()"
            raise TypeError(unknown_names_message(what, unknown, valid)) from None

    return call


def reject_unknown_keywords(
    method: Callable[..., object], owner: object, unknown: Iterable[str]
) -> NoReturn:
    """Raise the `TypeError` `suggest_keywords` raises, for a method that gathers unknown
    keywords in `**unknown` itself: a hot path (`Agent.run`, `get_response`) spares every
    call the wrapper's frame.

    Args:
        method: The method as defined on its class (its keyword parameters are the valid
            names).
        owner: The object it was called on (the message names its class).
        unknown: The keywords the call gave that the method does not take.
    """
    what = f"{type(owner).__name__}.{method.__name__}()"
    raise TypeError(unknown_names_message(what, unknown, _keyword_names(method)))


def _qualified_name(function: Callable[..., object], args: tuple[object, ...]) -> str:
    """The function's name; for a method, qualified by the class it was called on (a
    subclass that inherits it is named, not the base that defines it)."""
    parameters = list(inspect.signature(function).parameters)
    if args and parameters and parameters[0] == "self":
        return f"{type(args[0]).__name__}.{function.__name__}"
    return function.__qualname__


def _keyword_names(function: Callable[..., object]) -> list[str]:
    keyword_kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [
        parameter.name
        for parameter in inspect.signature(function).parameters.values()
        if parameter.kind in keyword_kinds and parameter.name != "self"
    ]
