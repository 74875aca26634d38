"""`WorkflowBuilder`: the fluent way to assemble and validate a workflow graph."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Literal

from typing_extensions import Self

from agentry.workflows._checkpoint import CheckpointStorage
from agentry.workflows._edges import (
    Case,
    Default,
    Edge,
    EdgeCondition,
    EdgeGroup,
    FanInEdgeGroup,
    FanOutEdgeGroup,
    SelectionFunc,
    SingleEdgeGroup,
    SwitchCaseEdgeGroup,
    SwitchCaseEdgeGroupCase,
    SwitchCaseEdgeGroupDefault,
)
from agentry.workflows._errors import WorkflowValidationError
from agentry.workflows._executor import Executor
from agentry.workflows._validation import validate_workflow_graph
from agentry.workflows._workflow import DEFAULT_MAX_ITERATIONS, OutputKind, Workflow

__all__ = ["WorkflowBuilder"]

ExecutorLike = Any
"""An `Executor`, or an agent (wrapped in an `AgentExecutor`)."""

ExecutorRef = Any
"""An `ExecutorLike`, or the id of an executor given to the builder elsewhere."""

OutputSelection = Sequence[ExecutorLike | str] | Literal["all"] | None
IntermediateSelection = Sequence[ExecutorLike | str] | Literal["all", "all_other"] | None


class WorkflowBuilder:
    """Assembles executors and edges into a `Workflow`; `build()` validates the graph.

    Agents can be used wherever an executor is expected: they are wrapped in an
    `AgentExecutor` (once per agent object). Edges, the start executor and the output
    selections may also name an executor by its id, once the executor itself is given to
    the builder in some call (`build()` reports an id that names none).

    Args:
        max_iterations: The most supersteps one `run` call may take.
        name: The workflow's name (default: the start executor's id); checkpoints are
            listed by it.
        description: What the workflow does.
        start_executor: The executor that receives the run's input.
        checkpoint_storage: Save a checkpoint here at every superstep boundary.
        output_from: Executors whose yields are Workflow Output: a list, or `"all"`.
        intermediate_output_from: Executors whose yields are Intermediate Output: a list,
            `"all_other"` (every executor not in `output_from`), or `"all"` (only when
            `output_from` is not given). Yields of executors in neither are hidden. When
            neither argument is given, every yield is Workflow Output.

    Example:
        >>> from agentry.workflows import WorkflowContext, executor
        >>> @executor
        ... async def upper(text: str, ctx: WorkflowContext[str]) -> None:
        ...     await ctx.send_message(text.upper())
        >>> @executor
        ... async def show(text: str, ctx: WorkflowContext[None, str]) -> None:
        ...     await ctx.yield_output(text)
        >>> workflow = WorkflowBuilder(start_executor=upper).add_edge(upper, show).build()
    """

    def __init__(
        self,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        name: str | None = None,
        description: str | None = None,
        *,
        start_executor: ExecutorRef | None = None,
        checkpoint_storage: CheckpointStorage | None = None,
        output_from: OutputSelection = None,
        intermediate_output_from: IntermediateSelection = None,
    ) -> None:
        _check_max_iterations(max_iterations)
        self._max_iterations = max_iterations
        self._name = name
        self._description = description
        self._executors: dict[str, Executor] = {}
        self._wrapped_agents: dict[int, Executor] = {}
        self._duplicates: list[str] = []
        self._groups: list[EdgeGroup] = []
        self._start_id: str | None = None
        self._checkpoint_storage = checkpoint_storage
        self._output_from = output_from
        self._intermediate_output_from = intermediate_output_from
        if start_executor is not None:
            self.set_start_executor(start_executor)

    # region executors

    def _add(self, candidate: ExecutorLike) -> Executor:
        executor = self._as_executor(candidate)
        known = self._executors.get(executor.id)
        if known is None:
            self._executors[executor.id] = executor
        elif known is not executor and executor.id not in self._duplicates:
            self._duplicates.append(executor.id)
        return executor

    def _as_executor(self, candidate: ExecutorLike) -> Executor:
        if isinstance(candidate, Executor):
            return candidate
        wrapped = self._wrapped_agents.get(id(candidate))
        if wrapped is not None:
            return wrapped
        if _is_agent(candidate):
            from agentry.workflows._agent_executor import AgentExecutor

            wrapped = AgentExecutor(candidate)
            self._wrapped_agents[id(candidate)] = wrapped
            return wrapped
        raise TypeError(
            f"{candidate!r} is neither an Executor nor an agent; turn a function into an "
            "executor with @executor"
        )

    def _id_of(self, reference: ExecutorRef) -> str:
        """The id of an executor given as an object (added to the graph) or by its id."""
        if isinstance(reference, str):
            if not reference:
                raise ValueError("an executor id must not be empty")
            return reference
        return self._add(reference).id

    def set_start_executor(self, executor: ExecutorRef) -> Self:
        """Set the executor that receives the run's input (an executor, agent or id)."""
        self._start_id = self._id_of(executor)
        return self

    # endregion

    # region edges

    def add_edge(
        self, source: ExecutorRef, target: ExecutorRef, condition: EdgeCondition | None = None
    ) -> Self:
        """Connect `source` to `target`; with `condition`, only for messages it accepts.

        Either end may be an executor, an agent, or the id of one given to the builder.
        """
        source_id, target_id = self._id_of(source), self._id_of(target)
        self._groups.append(
            SingleEdgeGroup(
                f"edge:{source_id}->{target_id}", (Edge(source_id, target_id, condition),)
            )
        )
        return self

    def add_fan_out_edges(
        self,
        source: ExecutorRef,
        targets: Sequence[ExecutorRef],
        selection_func: SelectionFunc | None = None,
    ) -> Self:
        """Send each message of `source` to every target (or those `selection_func` picks)."""
        source_id = self._id_of(source)
        target_ids = self._distinct([self._id_of(t) for t in targets], "fan-out targets")
        edges = tuple(Edge(source_id, t) for t in target_ids)
        group_id = f"fan_out:{source_id}->{','.join(target_ids)}"
        self._groups.append(FanOutEdgeGroup(group_id, edges, selection_func))
        return self

    def add_multi_selection_edge_group(
        self, source: ExecutorRef, targets: Sequence[ExecutorRef], selection_func: SelectionFunc
    ) -> Self:
        """Send each message of `source` to the targets `selection_func(message, ids)` picks."""
        return self.add_fan_out_edges(source, targets, selection_func)

    def add_fan_in_edges(self, sources: Sequence[ExecutorRef], target: ExecutorRef) -> Self:
        """Join `sources` into `target`: it gets one list of all they sent, once each has sent."""
        source_ids = self._distinct([self._id_of(s) for s in sources], "fan-in sources")
        target_id = self._id_of(target)
        edges = tuple(Edge(s, target_id) for s in source_ids)
        self._groups.append(FanInEdgeGroup(f"fan_in:{','.join(source_ids)}->{target_id}", edges))
        return self

    def add_switch_case_edge_group(
        self, source: ExecutorRef, cases: Sequence[Case | Default]
    ) -> Self:
        """Route each message of `source` to the first `Case` that holds, else the `Default`."""
        source_id = self._id_of(source)
        branches: list[SwitchCaseEdgeGroupCase | SwitchCaseEdgeGroupDefault] = []
        for case in cases:
            if isinstance(case, Case):
                branches.append(SwitchCaseEdgeGroupCase(case.condition, self._id_of(case.target)))
            elif isinstance(case, Default):  # pyright: ignore[reportUnnecessaryIsInstance]
                branches.append(SwitchCaseEdgeGroupDefault(self._id_of(case.target)))
            else:
                raise TypeError(f"switch-case branches must be Case or Default, not {case!r}")
        target_ids = list(dict.fromkeys(b.target_id for b in branches))
        edges = tuple(Edge(source_id, t) for t in target_ids)
        group_id = f"switch:{source_id}->{','.join(target_ids)}"
        self._groups.append(SwitchCaseEdgeGroup(group_id, edges, tuple(branches)))
        return self

    def add_chain(self, executors: Sequence[ExecutorRef]) -> Self:
        """Connect executors one after another with plain edges."""
        resolved = [self._id_of(e) for e in executors]
        for source, target in itertools.pairwise(resolved):
            self.add_edge(source, target)
        return self

    @staticmethod
    def _distinct(ids: list[str], what: str) -> list[str]:
        if not ids:
            raise ValueError(f"{what} must not be empty")
        if len(set(ids)) != len(ids):
            raise ValueError(f"{what} list the same executor twice: {ids}")
        return ids

    # endregion

    def with_checkpointing(self, checkpoint_storage: CheckpointStorage) -> Self:
        """Save a checkpoint to `checkpoint_storage` at every superstep boundary."""
        self._checkpoint_storage = checkpoint_storage
        return self

    def build(self) -> Workflow:
        """Validate the graph and return the `Workflow`.

        Raises:
            WorkflowValidationError: The graph is malformed (duplicate ids, no start
                executor, unknown output executors...); its subclasses
                `EdgeDuplicationError`, `TypeCompatibilityError` and `GraphConnectivityError`
                name the edge or executors at fault.
        """
        if self._start_id is None:
            raise WorkflowValidationError(
                "the workflow has no start executor; pass start_executor= to WorkflowBuilder "
                "or call set_start_executor()",
                validation_type="missing_start",
            )
        if self._duplicates:
            raise WorkflowValidationError(
                f"different executors share the id(s) {self._duplicates}; give each executor "
                "a unique id",
                validation_type="duplicate_id",
            )
        validate_workflow_graph(self._executors, self._groups, self._start_id)
        kinds, default_kind = self._output_kinds()
        return Workflow(
            executors=self._executors,
            edge_groups=self._groups,
            start_executor_id=self._start_id,
            name=self._name or self._start_id,
            description=self._description,
            max_iterations=self._max_iterations,
            checkpoint_storage=self._checkpoint_storage,
            output_kinds=kinds,
            default_output_kind=default_kind,
        )

    def _output_kinds(self) -> tuple[dict[str, OutputKind], OutputKind]:
        """What each executor's yields become, and the kind of executors not listed."""
        outputs, intermediates = self._output_from, self._intermediate_output_from
        if (outputs is None and intermediates is None) or outputs == "all":
            if intermediates not in (None, "all_other") and intermediates != []:
                raise WorkflowValidationError(
                    "with output_from='all' every yield is Workflow Output; "
                    "intermediate_output_from cannot select executors too",
                    validation_type="output_selection",
                )
            return {}, "output"
        output_ids = self._selected(outputs or [], "output_from")
        if intermediates == "all":
            if output_ids:
                raise WorkflowValidationError(
                    "intermediate_output_from='all' cannot be combined with an output_from "
                    "list; use 'all_other'",
                    validation_type="output_selection",
                )
            intermediates = "all_other"
        kinds: dict[str, OutputKind] = dict.fromkeys(output_ids, "output")
        if intermediates == "all_other":
            return kinds, "intermediate"
        for executor_id in self._selected(intermediates or [], "intermediate_output_from"):
            if executor_id in kinds:
                raise WorkflowValidationError(
                    f"executor {executor_id!r} is in both output_from and "
                    "intermediate_output_from; choose one",
                    validation_type="output_selection",
                )
            kinds[executor_id] = "intermediate"
        if not kinds:
            raise WorkflowValidationError(
                "output_from and intermediate_output_from select no executor, so the workflow "
                "would show nothing; select at least one",
                validation_type="output_selection",
            )
        return kinds, None

    def _selected(self, selection: Sequence[object] | str, argument: str) -> list[str]:
        if isinstance(selection, str):
            raise WorkflowValidationError(
                f"{argument} must be a list of executors or 'all', not {selection!r}",
                validation_type="output_selection",
            )
        ids: list[str] = []
        for item in selection:
            executor_id = item if isinstance(item, str) else self._as_executor(item).id
            if executor_id not in self._executors:
                raise WorkflowValidationError(
                    f"{argument} names {executor_id!r}, which is not in the workflow",
                    validation_type="output_selection",
                )
            if executor_id in ids:
                raise WorkflowValidationError(
                    f"{argument} lists {executor_id!r} twice", validation_type="output_selection"
                )
            ids.append(executor_id)
        return ids


def _is_agent(candidate: object) -> bool:
    return callable(getattr(candidate, "run", None)) and hasattr(candidate, "create_session")


def _check_max_iterations(max_iterations: object) -> None:
    if isinstance(max_iterations, int) and not isinstance(max_iterations, bool):
        if max_iterations >= 1:
            return
    elif isinstance(max_iterations, Executor) or _is_agent(max_iterations):
        name = getattr(max_iterations, "id", None) or getattr(max_iterations, "name", None)
        example = name if isinstance(name, str) and name.isidentifier() else "start"
        raise TypeError(
            "WorkflowBuilder's first positional argument is max_iterations, but it got "
            f"{max_iterations!r}; pass the start executor by keyword: "
            f"WorkflowBuilder(start_executor={example})"
        )
    raise ValueError(f"max_iterations must be a positive integer, not {max_iterations!r}")
