"""Routing: edge groups compiled into the code that moves messages between supersteps.

A router takes one sent message and puts deliveries into the next superstep's inbox, a dict
from target id to `(message, source, handler)` tuples. Messages a target has no handler for
are not delivered (typed routing). Routers are compiled once per workflow; per-run data
(the fan-in buffers) lives in the run's `RouteState`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, cast

from agentry.workflows._edges import (
    EdgeCondition,
    EdgeGroup,
    FanInEdgeGroup,
    FanOutEdgeGroup,
    SelectionFunc,
    SingleEdgeGroup,
    SwitchCaseEdgeGroup,
    SwitchCaseEdgeGroupDefault,
)
from agentry.workflows._errors import WorkflowRunnerException
from agentry.workflows._executor import Executor
from agentry.workflows._handlers import HandlerEntry

__all__ = ["Delivery", "Inbox", "RouteState", "Router", "compile_routers"]

Delivery = tuple[Any, "str | tuple[str, ...]", "HandlerEntry | None"]
"""(message, source id or fan-in source ids, handler or None to look it up on delivery)."""

Inbox = dict[str, list[Delivery]]


class RouteState:
    """Per-run routing data: what fan-in groups have collected so far."""

    __slots__ = ("fan_in",)

    def __init__(self, fan_in: dict[str, dict[str, list[Any]]] | None = None) -> None:
        self.fan_in: dict[str, dict[str, list[Any]]] = fan_in if fan_in is not None else {}


class Router:
    """Routes the messages of one edge group. `is_async` routers use `route_async`."""

    is_async = False
    group: EdgeGroup

    def route(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        """Deliver `message` along this group; whether any target took it."""
        raise NotImplementedError

    async def route_async(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        """`route`, for groups whose conditions or selection are coroutines."""
        return self.route(message, target_id, source, inbox, run)

    def flush(self, inbox: Inbox, run: RouteState) -> bool:
        """After a superstep's routing: deliver what was held back (fan-in); whether any."""
        return False


def _deliver(
    target: Executor, message: object, source: str | tuple[str, ...], inbox: Inbox
) -> bool:
    entry = target.find_handler(message)
    if entry is None:
        return False
    bucket = inbox.get(target.id)
    if bucket is None:
        inbox[target.id] = [(message, source, entry)]
    else:
        bucket.append((message, source, entry))
    return True


class _EdgeRouter(Router):
    __slots__ = ("condition", "group", "target", "target_id")

    def __init__(self, group: EdgeGroup, target: Executor, condition: EdgeCondition | None):
        self.group = group
        self.target = target
        self.target_id = target.id
        self.condition = condition
        self.is_async = condition is not None and inspect.iscoroutinefunction(condition)

    def route(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        if target_id is not None and target_id != self.target_id:
            return False
        condition = self.condition
        if condition is not None and not condition(message):
            return False
        return _deliver(self.target, message, source, inbox)

    async def route_async(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        if target_id is not None and target_id != self.target_id:
            return False
        if not await cast(Awaitable[bool], cast(Any, self.condition)(message)):
            return False
        return _deliver(self.target, message, source, inbox)


class _FanOutRouter(Router):
    __slots__ = ("group", "select", "target_ids", "targets")

    def __init__(self, group: EdgeGroup, targets: list[Executor], select: SelectionFunc | None):
        self.group = group
        self.targets = {t.id: t for t in targets}
        self.target_ids = [t.id for t in targets]
        self.select = select
        self.is_async = select is not None and inspect.iscoroutinefunction(select)

    def route(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        if self.select is None:
            chosen: Sequence[str] = self.target_ids
        else:
            chosen = cast(Sequence[str], self.select(message, list(self.target_ids)))
        return self._send(message, target_id, source, inbox, chosen)

    async def route_async(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        select = cast(Any, self.select)
        chosen = await cast(Awaitable[Sequence[str]], select(message, list(self.target_ids)))
        return self._send(message, target_id, source, inbox, chosen)

    def _send(
        self,
        message: object,
        target_id: str | None,
        source: str,
        inbox: Inbox,
        chosen: Sequence[str],
    ) -> bool:
        delivered = False
        for chosen_id in chosen:
            target = self.targets.get(chosen_id)
            if target is None:
                raise WorkflowRunnerException(
                    f"the selection function of the edge group from {source!r} chose "
                    f"{chosen_id!r}, which is not one of its targets {self.target_ids}"
                )
            if target_id is not None and target_id != chosen_id:
                continue
            delivered = _deliver(target, message, source, inbox) or delivered
        return delivered


class _SwitchCaseRouter(Router):
    __slots__ = ("branches", "group")

    def __init__(self, group: SwitchCaseEdgeGroup, executors: Mapping[str, Executor]):
        self.group = group
        self.branches: list[tuple[EdgeCondition | None, Executor]] = [
            (
                None if isinstance(case, SwitchCaseEdgeGroupDefault) else case.condition,
                executors[case.target_id],
            )
            for case in group.cases
        ]
        self.is_async = any(
            c is not None and inspect.iscoroutinefunction(c) for c, _ in self.branches
        )

    def route(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        for condition, target in self.branches:
            if condition is None or condition(message):
                return self._take(target, message, target_id, source, inbox)
        return False

    async def route_async(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        for condition, target in self.branches:
            if condition is None:
                return self._take(target, message, target_id, source, inbox)
            verdict = condition(message)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            if verdict:
                return self._take(target, message, target_id, source, inbox)
        return False

    @staticmethod
    def _take(
        target: Executor, message: object, target_id: str | None, source: str, inbox: Inbox
    ) -> bool:
        if target_id is not None and target_id != target.id:
            return False
        return _deliver(target, message, source, inbox)


class _FanInRouter(Router):
    __slots__ = ("group", "source_ids", "target")

    def __init__(self, group: FanInEdgeGroup, target: Executor):
        self.group = group
        self.source_ids = tuple(group.source_ids)
        self.target = target

    def route(
        self, message: object, target_id: str | None, source: str, inbox: Inbox, run: RouteState
    ) -> bool:
        if target_id is not None and target_id != self.target.id:
            return False
        buffers = run.fan_in.get(self.group.id)
        if buffers is None:
            buffers = run.fan_in[self.group.id] = {}
        buffers.setdefault(source, []).append(message)
        return True

    def flush(self, inbox: Inbox, run: RouteState) -> bool:
        buffers = run.fan_in.get(self.group.id)
        if not buffers or any(not buffers.get(s) for s in self.source_ids):
            return False
        joined = [m for s in self.source_ids for m in buffers[s]]
        del run.fan_in[self.group.id]
        if not _deliver(self.target, joined, self.source_ids, inbox):
            raise WorkflowRunnerException(
                f"fan-in target {self.target.id!r} has no handler for the joined list of "
                f"{len(joined)} messages from {list(self.source_ids)}; give it a handler "
                "taking list[...] of what its sources send"
            )
        return True


def compile_routers(
    groups: Sequence[EdgeGroup], executors: Mapping[str, Executor]
) -> tuple[dict[str, tuple[Router, ...]], tuple[Router, ...]]:
    """(routers by source executor id, routers that hold messages back and need `flush`)."""
    by_source: dict[str, list[Router]] = {}
    holding: list[Router] = []
    for group in groups:
        router: Router
        if isinstance(group, SingleEdgeGroup):
            edge = group.edges[0]
            router = _EdgeRouter(group, executors[edge.target_id], edge.condition)
        elif isinstance(group, SwitchCaseEdgeGroup):
            router = _SwitchCaseRouter(group, executors)
        elif isinstance(group, FanOutEdgeGroup):
            targets = [executors[t] for t in group.target_ids]
            router = _FanOutRouter(group, targets, group.selection_func)
        elif isinstance(group, FanInEdgeGroup):
            router = _FanInRouter(group, executors[group.target_ids[0]])
            holding.append(router)
        else:
            raise TypeError(f"unknown edge group {type(group).__name__}")
        for source in group.source_ids:
            by_source.setdefault(source, []).append(router)
    return {k: tuple(v) for k, v in by_source.items()}, tuple(holding)
