"""Logging through the standard `logging` module, under the `agentry` logger: quiet until
the application configures it."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

__all__ = ["configure_logging", "get_logger"]

_ROOT = "agentry"
_quiet = logging.getLogger(_ROOT)
if not any(isinstance(h, logging.NullHandler) for h in _quiet.handlers):
    # Without a handler, Python would print warnings to stderr on its own.
    _quiet.addHandler(logging.NullHandler())


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
) -> logging.Handler:
    """Show agentry's log records of `level` and above on `stream` (default: stderr).

    Calling it again replaces the handler it added before.

    Returns:
        The handler, to remove or adjust.

    Example:
        >>> import io
        >>> handler = configure_logging("WARNING", stream=io.StringIO())
    """
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
