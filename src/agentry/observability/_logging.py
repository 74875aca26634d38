"""Logging through the standard `logging` module, under the `agentry` logger: quiet until
the application configures it."""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

from agentry.observability._exceptions import traceback_without_messages

__all__ = [
    "configure_logging",
    "get_logger",
    "is_sensitive_logging_enabled",
    "log_failure",
]

_ROOT = "agentry"
_quiet = logging.getLogger(_ROOT)
if not any(isinstance(h, logging.NullHandler) for h in _quiet.handlers):
    # Without a handler, Python would print warnings to stderr on its own.
    _quiet.addHandler(logging.NullHandler())

_sensitive = os.environ.get("AGENTRY_LOG_SENSITIVE_DATA", "").lower() in {"1", "true", "yes", "on"}


def get_logger(name: str) -> logging.Logger:
    """The logger `name`, which must be `agentry` or below it (`agentry.tools`, ...).

    Example:
        >>> get_logger("agentry.tools").name
        'agentry.tools'
    """
    if name != _ROOT and not name.startswith(_ROOT + "."):
        raise ValueError(f"agentry loggers live under 'agentry', not {name!r}")
    return logging.getLogger(name)


def configure_logging(
    level: int | str = logging.INFO,
    *,
    stream: TextIO | None = None,
    format: str = "%(asctime)s %(levelname)s %(name)s: %(message)s",
    sensitive_data: bool | None = None,
) -> logging.Handler:
    """Show agentry's log records of `level` and above on `stream` (default: stderr).

    Calling it again replaces the handler it added before. To redact secrets, add a
    `agentry.observability.RedactingFilter` to the handler it returns.

    Args:
        level: The lowest level shown.
        stream: Where records go (default: stderr).
        format: A `logging.Formatter` format.
        sensitive_data: Log the messages and tracebacks of tool exceptions and the tool
            names a model made up; off by default (exception types and frames only).
            `None` keeps the current setting (see `is_sensitive_logging_enabled`).

    Returns:
        The handler, to remove or adjust.

    Example:
        >>> import io
        >>> handler = configure_logging("WARNING", stream=io.StringIO())
    """
    global _sensitive
    if sensitive_data is not None:
        _sensitive = sensitive_data
    logger = logging.getLogger(_ROOT)
    for handler in list(logger.handlers):
        if getattr(handler, "_agentry_handler", False):
            logger.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter(format))
    handler._agentry_handler = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(level.upper() if isinstance(level, str) else level)
    return handler


def is_sensitive_logging_enabled() -> bool:
    """Whether agentry's logs carry sensitive text: exception messages of tools and tool
    names a model made up. Off unless `configure_logging(sensitive_data=True)` was called
    or the environment variable `AGENTRY_LOG_SENSITIVE_DATA` is `true` at import."""
    return _sensitive


def log_failure(logger: logging.Logger, what: str, error: BaseException) -> None:
    """Log at WARNING that `what` failed with `error`.

    With sensitive logging on, the record has the exception's message and its traceback
    (`exc_info`); otherwise its type and a traceback without messages.

    Example:
        >>> try:
        ...     raise KeyError("sk-secret")
        ... except KeyError as error:
        ...     log_failure(get_logger("agentry.tools"), "tool 'lookup'", error)
    """
    if _sensitive:
        logger.warning(
            "%s failed: %s: %s", what, type(error).__name__, error, exc_info=error, stacklevel=2
        )
        return
    logger.warning(
        "%s failed with %s (message hidden: sensitive logging is off)\n%s",
        what,
        type(error).__name__,
        traceback_without_messages(error).rstrip("\n"),
        stacklevel=2,
    )
