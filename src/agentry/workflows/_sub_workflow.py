"""`WorkflowExecutor`: a whole workflow as one executor of another (a sub-workflow)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentry.workflows._context import WorkflowContext
from agentry.workflows._errors import WorkflowRunnerException
from agentry.workflows._events import WorkflowEvent
from agentry.workflows._executor import Executor
from agentry.workflows._handlers import HandlerEntry, HandlerSpec, ResponseEntry
from agentry.workflows._run_state import INPUT_SOURCE, ResponseDelivery, RunState
from agentry.workflows._runner import Runner, apply_responses
from agentry.workflows._workflow import Workflow

__all__ = ["WorkflowExecutor"]


class WorkflowExecutor(Executor):
    """Runs a workflow for each message it receives, inside a parent workflow.

    The sub-workflow's Workflow Output is sent on to the parent's next executors (or, with
    `allow_direct_output=True`, yielded as the parent's own output); its Intermediate
    Output becomes this executor's (unless the parent hides this executor's outputs), so a
    streaming caller sees inner agents' updates live. Its requests bubble up
    as requests of the parent run, under the same request ids; answering them in the parent
    continues the sub-workflow. Inputs that arrive while the sub-workflow waits for answers
    are queued and run, in order, after it finishes.

    Args:
        workflow: The sub-workflow.
        id: The executor id (default: the sub-workflow's name).
        allow_direct_output: Yield the sub-workflow's outputs instead of sending them.

    Example:
        >>> from agentry.workflows import WorkflowBuilder, WorkflowContext, executor
        >>> @executor
        ... async def inner(text: str, ctx: WorkflowContext[None, str]) -> None:
        ...     await ctx.yield_output(text.upper())
        >>> sub = WorkflowExecutor(WorkflowBuilder(start_executor=inner).build(), id="sub")
    """

    def __init__(
        self, workflow: Workflow, id: str | None = None, *, allow_direct_output: bool = False
    ) -> None:
        self.workflow = workflow
        self.allow_direct_output = allow_direct_output
        self._active: RunState | None = None
        self._queue: list[Any] = []
        super().__init__(id or workflow.name)

    def _build_handlers(self) -> tuple[list[HandlerEntry], list[ResponseEntry], list[Any]]:
        produced: tuple[object, ...] | None = tuple(self.workflow.output_types) or None
        sends, yields = ((), produced) if self.allow_direct_output else (produced, ())
        entries = [
            HandlerEntry(
                HandlerSpec("run_sub_workflow", input_type, sends, yields, takes_context=True),
                self._on_input,
            )
            for input_type in self.workflow.input_types
        ]
        return entries, [], [(sends, yields)]

    def checkpoint_types(self) -> list[Any]:
        inner = [t for e in self.workflow.executors.values() for t in e.checkpoint_types()]
        return [*super().checkpoint_types(), *inner]

    async def _on_input(self, message: object, ctx: WorkflowContext[object, object]) -> None:
        if self._active is not None:
            self._queue.append(message)
            return
        await self._start(message, ctx)

    async def _start(self, message: object, ctx: WorkflowContext[object, object]) -> None:
        run = RunState()
        run.inbox[self.workflow.start_executor_id] = [(message, INPUT_SOURCE, None)]
        await self._drive(run, ctx)

    async def deliver_response(
        self, delivery: ResponseDelivery, ctx: WorkflowContext[object, object]
    ) -> None:
        request_id = delivery.request.request_id
        run = self._active
        if run is None or request_id not in run.pending_requests:
            raise WorkflowRunnerException(
                f"sub-workflow {self.id!r} is not waiting for request {request_id!r}"
            )
        apply_responses(run, {request_id: delivery.response})
        await self._drive(run, ctx)

    async def _drive(self, run: RunState, ctx: WorkflowContext[object, object]) -> None:
        """Run the sub-workflow until idle, passing its results up as they come, then start
        queued inputs."""
        sent: list[object] = []
        forward = self._forwarder(ctx, sent)
        while True:
            runner = Runner(
                self.workflow, run, sink=forward, streaming=ctx.is_streaming, storage=None
            )
            self._active = run
            await runner.execute([])
            # Sent messages reach the parent's next superstep anyway, so sending them once
            # the inner run is idle keeps their order and timing.
            for message in sent:
                await ctx.send_message(message)
            sent.clear()
            if run.pending_requests:
                return
            self._active = None
            if not self._queue:
                return
            run = RunState()
            run.inbox[self.workflow.start_executor_id] = [(self._queue.pop(0), INPUT_SOURCE, None)]

    def _forwarder(
        self, ctx: WorkflowContext[object, object], sent: list[object]
    ) -> Callable[[WorkflowEvent[Any]], None]:
        """A sink for the inner run's events that passes outputs and requests to the parent
        run at once (so a streaming caller sees them live), and collects in `sent` the
        outputs to send on."""
        # The sink is called synchronously by the inner runner, so it uses the run hooks
        # behind the context's coroutine methods.
        hooks = ctx.run_hooks

        def forward(event: WorkflowEvent[Any]) -> None:
            if event.type == "output":
                if self.allow_direct_output:
                    hooks.yield_output(self.id, event.data)
                else:
                    sent.append(event.data)
            elif event.type == "intermediate":
                hooks.pass_on_intermediate_output(self.id, event.data)
            elif event.type == "request_info":
                hooks.request_info(self.id, event.data, event.response_type, event.request_id)

        return forward

    async def on_checkpoint_save(self) -> dict[str, Any]:
        run = self._active or RunState()
        return {
            "active": self._active is not None,
            "run": await run.snapshot(self.workflow.executors),
            "queue": list(self._queue),
        }

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        run = await RunState.restore(state["run"], self.workflow.executors)
        self._active = run if state.get("active") else None
        self._queue = list(state.get("queue", []))
