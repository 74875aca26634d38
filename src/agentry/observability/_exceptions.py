"""Exceptions described for logs and spans, with their messages or without them.

An exception's message can quote what a tool was given (arguments, file contents, keys),
so it is sensitive data; its type and the places it passed through (file, line,
function) are not. Source lines are left out too: code can hold literals.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

__all__ = ["exception_attributes", "qualified_type_name", "traceback_without_messages"]

_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def qualified_type_name(error: BaseException) -> str:
    """`ValueError`, or `package.module.Error` for exceptions outside the builtins."""
    kind = type(error)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def traceback_without_messages(error: BaseException) -> str:
    """The traceback Python would print for `error`, chained exceptions included, with
    each exception's type in place of its message and no source lines.

    Example:
        >>> try:
        ...     raise ValueError("the key is hunter2")
        ... except ValueError as error:
        ...     print(traceback_without_messages(error).splitlines()[-1])
        ValueError (message hidden)
    """
    sections: list[str] = []
    link = ""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = "".join(
            f'  File "{frame.filename}", line {frame.lineno}, in {frame.name}\n'
            for frame in traceback.extract_tb(current.__traceback__)
        )
        section = f"Traceback (most recent call last):\n{frames}" if frames else ""
        sections.append(f"{section}{qualified_type_name(current)} (message hidden)\n{link}")
        if current.__cause__ is not None:
            current, link = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            current, link = current.__context__, _CONTEXT
        else:
            current = None
    return "".join(reversed(sections))


def exception_attributes(
    error: BaseException, *, sensitive: bool, redact: Callable[[str], str] | None = None
) -> dict[str, str]:
    """The attributes of an `exception` span event for `error`.

    With `sensitive` on, the message and the full traceback, passed through `redact`;
    otherwise the type and a traceback without messages.
    """
    attributes = {"exception.type": qualified_type_name(error)}
    if not sensitive:
        attributes["exception.stacktrace"] = traceback_without_messages(error)
        return attributes
    clean = redact or _unchanged
    attributes["exception.message"] = clean(str(error))
    attributes["exception.stacktrace"] = clean("".join(traceback.format_exception(error)))
    return attributes


def _unchanged(text: str) -> str:
    return text
