"""Build-time checks of a workflow graph, each failing with an error that says what to fix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentry.workflows._edges import (
    EdgeGroup,
    FanInEdgeGroup,
    SwitchCaseEdgeGroup,
    SwitchCaseEdgeGroupDefault,
)
from agentry.workflows._errors import (
    EdgeDuplicationError,
    GraphConnectivityError,
    TypeCompatibilityError,
    WorkflowValidationError,
)
from agentry.workflows._executor import Executor
from agentry.workflows._typing import is_type_compatible, type_name

__all__ = ["validate_workflow_graph"]


def validate_workflow_graph(
    executors: Mapping[str, Executor], edge_groups: Sequence[EdgeGroup], start_executor_id: str
) -> None:
    """Check a graph: edges join known executors once each, types fit, all is reachable.

    Raises:
        EdgeDuplicationError: Two edges join the same source and target.
        TypeCompatibilityError: A target has no handler for what its source sends.
        GraphConnectivityError: Some executors cannot be reached from the start.
        WorkflowValidationError: Another rule is broken (the message says which).
    """
    if start_executor_id not in executors:
        raise WorkflowValidationError(
            f"the start executor {start_executor_id!r} is not part of the workflow; an id "
            "names an executor only once the executor itself is given to the builder "
            "(in an edge, or as start_executor)",
            validation_type="missing_start",
        )
    _check_edges_known(executors, edge_groups)
    _check_duplicate_edges(edge_groups)
    _check_switch_cases(edge_groups)
    _check_types(executors, edge_groups)
    _check_reachable(executors, edge_groups, start_executor_id)


def _check_edges_known(executors: Mapping[str, Executor], groups: Sequence[EdgeGroup]) -> None:
    for group in groups:
        for edge in group.edges:
            for executor_id in (edge.source_id, edge.target_id):
                if executor_id not in executors:
                    raise WorkflowValidationError(
                        f"edge {edge.source_id!r} -> {edge.target_id!r} refers to an unknown "
                        f"executor {executor_id!r}; give the builder the executor itself in "
                        "some call (an id names only an executor the builder was given)",
                        validation_type="unknown_executor",
                    )


def _check_duplicate_edges(groups: Sequence[EdgeGroup]) -> None:
    seen: set[tuple[str, str]] = set()
    for group in groups:
        for edge in group.edges:
            pair = (edge.source_id, edge.target_id)
            if pair in seen:
                raise EdgeDuplicationError(
                    f"there is more than one edge from {edge.source_id!r} to "
                    f"{edge.target_id!r}; join two executors with one edge (use a condition "
                    "or a switch-case group to route different messages)"
                )
            seen.add(pair)


def _check_switch_cases(groups: Sequence[EdgeGroup]) -> None:
    for group in groups:
        if not isinstance(group, SwitchCaseEdgeGroup):
            continue
        defaults = [c for c in group.cases if isinstance(c, SwitchCaseEdgeGroupDefault)]
        source = group.source_ids[0]
        if len(defaults) != 1 or not isinstance(group.cases[-1], SwitchCaseEdgeGroupDefault):
            raise WorkflowValidationError(
                f"the switch-case group from {source!r} needs exactly one Default(target=...), "
                "as its last branch",
                validation_type="switch_case",
            )
        if len(group.cases) < 2:
            raise WorkflowValidationError(
                f"the switch-case group from {source!r} needs at least one Case before its Default",
                validation_type="switch_case",
            )


def _check_types(executors: Mapping[str, Executor], groups: Sequence[EdgeGroup]) -> None:
    for group in groups:
        fan_in = isinstance(group, FanInEdgeGroup)
        for edge in group.edges:
            source, target = executors[edge.source_id], executors[edge.target_id]
            sent = source.output_types
            if sent is None:
                continue  # the source does not declare what it sends
            if not sent:
                raise TypeCompatibilityError(
                    f"executor {source.id!r} sends nothing (its handlers' WorkflowContext has "
                    f"no output type), yet an edge leads from it to {target.id!r}; declare "
                    "what it sends as WorkflowContext[T] or remove the edge"
                )
            arriving: list[object] = [list[t] for t in sent] if fan_in else list(sent)  # pyright: ignore[reportUnknownVariableType]
            accepted = target.input_types
            if not any(is_type_compatible(a, t) for a in arriving for t in accepted):
                raise TypeCompatibilityError(
                    f"executor {target.id!r} cannot receive what {source.id!r} sends: "
                    f"{source.id!r} sends {_names(arriving)}, {target.id!r} accepts "
                    f"{_names(accepted)}"
                    + (" (a fan-in target receives a list)" if fan_in else "")
                    + "; add a handler for that type or change the edge"
                )


def _check_reachable(
    executors: Mapping[str, Executor], groups: Sequence[EdgeGroup], start: str
) -> None:
    successors: dict[str, set[str]] = {}
    for group in groups:
        for edge in group.edges:
            successors.setdefault(edge.source_id, set()).add(edge.target_id)
    reached = {start}
    frontier = [start]
    while frontier:
        for nxt in successors.get(frontier.pop(), ()):
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    unreachable = [executor_id for executor_id in executors if executor_id not in reached]
    if unreachable:
        raise GraphConnectivityError(
            f"executors {unreachable} cannot be reached from the start executor {start!r}; "
            "connect them with edges or remove them"
        )


def _names(types: Sequence[object]) -> str:
    return "[" + ", ".join(type_name(t) for t in types) + "]"
