"""Feature stages: which parts of agentry's API are experimental.

An experimental API works and is tested, but may change in a minor release. Using it (for
a class: creating an instance) emits an `agentry.errors.ExperimentalWarning` once per
feature per process, whose message starts with the feature's id; code can also ask which
feature an object belongs to.

Example:
    >>> from agentry.features import ExperimentalFeature, experimental_feature
    >>> from agentry.mcp import MCPTaskOptions
    >>> experimental_feature(MCPTaskOptions) is ExperimentalFeature.MCP_LONG_RUNNING_TASKS
    True
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

from agentry.errors import ExperimentalWarning

__all__ = [
    "ExperimentalFeature",
    "ExperimentalWarning",
    "experimental",
    "experimental_feature",
    "warn_experimental",
]

C = TypeVar("C", bound=type)

_FEATURE_ATTRIBUTE = "__agentry_experimental_feature__"
_warned: set[ExperimentalFeature] = set()


class ExperimentalFeature(str, Enum):
    """The experimental features of agentry, by id."""

    MCP_LONG_RUNNING_TASKS = "MCP_LONG_RUNNING_TASKS"
    """Long-running MCP tasks: `agentry.mcp.MCPTaskOptions` and how they are followed."""


def experimental(feature: ExperimentalFeature) -> Callable[[C], C]:
    """Mark a class as part of an experimental feature: creating an instance warns (once
    per feature), and `experimental_feature(cls)` names the feature.

    Args:
        feature: The feature the class belongs to.
    """

    def mark(cls: C) -> C:
        original: Callable[..., None] = cls.__init__

        @functools.wraps(original)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # the class's own signature
            warn_experimental(feature, stacklevel=2)
            original(self, *args, **kwargs)

        setattr(cls, "__init__", __init__)  # noqa: B010 - assigning a method to a type
        setattr(cls, _FEATURE_ATTRIBUTE, feature)
        return cls

    return mark


def experimental_feature(api: object) -> ExperimentalFeature | None:
    """The experimental feature `api` (a class or an instance) belongs to; None when it
    is stable."""
    feature = getattr(api, _FEATURE_ATTRIBUTE, None)
    return feature if isinstance(feature, ExperimentalFeature) else None


def warn_experimental(feature: ExperimentalFeature, *, stacklevel: int = 2) -> None:
    """Emit the `ExperimentalWarning` of `feature`, the first time only.

    Args:
        feature: The feature being used.
        stacklevel: As for `warnings.warn`, counted from the caller of this function.
    """
    if feature in _warned:
        return
    _warned.add(feature)
    warnings.warn(
        f"{feature.value} is experimental: it works and is tested, but its API may change "
        "in a minor release",
        ExperimentalWarning,
        stacklevel=stacklevel + 1,
    )
