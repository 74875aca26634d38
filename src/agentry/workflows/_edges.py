"""Edges and edge groups: how messages travel between executors.

Each builder call adds one edge group: a single (optionally conditional) edge, a fan-out
(optionally selecting targets), a fan-in that joins several sources into one list, or a
switch-case that picks the first matching case. These classes only describe the graph;
`_edge_runner` turns them into the routing code the runner calls.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentry.workflows._executor import Executor

__all__ = [
    "Case",
    "Default",
    "Edge",
    "EdgeCondition",
    "EdgeGroup",
    "FanInEdgeGroup",
    "FanOutEdgeGroup",
    "SelectionFunc",
    "SingleEdgeGroup",
    "SwitchCaseEdgeGroup",
    "SwitchCaseEdgeGroupCase",
    "SwitchCaseEdgeGroupDefault",
]

EdgeCondition = Callable[[Any], "bool | Awaitable[bool]"]
"""A predicate on a message (sync or async): the edge carries the message when it is true."""

SelectionFunc = Callable[[Any, list[str]], "Sequence[str] | Awaitable[Sequence[str]]"]
"""Given a message and the target ids, the ids that receive it (sync or async)."""


@dataclass(frozen=True)
class Edge:
    """A directed connection from one executor to another.

    Attributes:
        source_id: The sending executor.
        target_id: The receiving executor.
        condition: When set, the edge carries only messages it accepts.
    """

    source_id: str
    target_id: str
    condition: EdgeCondition | None = None

    @property
    def condition_name(self) -> str | None:
        """A label for the condition (its function name), for visualisation."""
        if self.condition is None:
            return None
        return getattr(self.condition, "__name__", "condition")


@dataclass(frozen=True)
class EdgeGroup:
    """Edges added together, routed together. Subclasses say how.

    Attributes:
        id: A stable id of the group (used in checkpoints).
        edges: The edges.
    """

    id: str
    edges: tuple[Edge, ...]

    @property
    def source_ids(self) -> list[str]:
        """The distinct sources, in order."""
        return list(dict.fromkeys(e.source_id for e in self.edges))

    @property
    def target_ids(self) -> list[str]:
        """The distinct targets, in order."""
        return list(dict.fromkeys(e.target_id for e in self.edges))


@dataclass(frozen=True)
class SingleEdgeGroup(EdgeGroup):
    """One edge, optionally conditional (`add_edge`)."""


@dataclass(frozen=True)
class FanOutEdgeGroup(EdgeGroup):
    """One source to many targets (`add_fan_out_edges`, `add_multi_selection_edge_group`).

    Attributes:
        selection_func: When set, picks which targets receive each message.
    """

    selection_func: SelectionFunc | None = None


@dataclass(frozen=True)
class FanInEdgeGroup(EdgeGroup):
    """Many sources to one target, which receives one list of everything they sent.

    The list is delivered once every source has sent at least one message since the last
    delivery, in source order (and send order within a source).
    """


@dataclass(frozen=True)
class SwitchCaseEdgeGroupCase:
    """A case of a switch-case group by target id."""

    condition: EdgeCondition
    target_id: str


@dataclass(frozen=True)
class SwitchCaseEdgeGroupDefault:
    """The default of a switch-case group by target id."""

    target_id: str


@dataclass(frozen=True)
class SwitchCaseEdgeGroup(EdgeGroup):
    """One source, the first case whose condition holds (else the default) receives it."""

    cases: tuple[SwitchCaseEdgeGroupCase | SwitchCaseEdgeGroupDefault, ...] = field(
        default_factory=tuple
    )


@dataclass
class Case:
    """A switch-case branch: messages for which `condition` holds go to `target`.

    Example:
        >>> from agentry.workflows import executor
        >>> @executor
        ... async def handle_big(n: int) -> None: ...
        >>> Case(condition=lambda n: n > 100, target=handle_big).target.id
        'handle_big'
    """

    condition: EdgeCondition
    target: Executor | Any


@dataclass
class Default:
    """The switch-case branch taken when no case holds."""

    target: Executor | Any
