"""`MagenticOrchestrator`: a manager plans, delegates each step, tracks progress, re-plans."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from agentry.errors import StructuredOutputError
from agentry.orchestrations._base import Orchestrator
from agentry.orchestrations._errors import OrchestrationError
from agentry.orchestrations._loop import ConversationLoop
from agentry.orchestrations._magentic_prompts import (
    FINAL_ANSWER_PROMPT,
    PLAN_PROMPT,
    PROGRESS_PROMPT,
    REPLAN_PROMPT,
)
from agentry.orchestrations._participants import (
    AgentReply,
    AgentTurn,
    ParticipantExecutor,
    is_agent,
    participant_name,
)
from agentry.orchestrations._termination import TerminationLike, as_termination
from agentry.types import Message
from agentry.workflows import (
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowEvent,
    handler,
    response_handler,
)

if TYPE_CHECKING:
    from agentry.agents import SupportsAgentRun
    from agentry.workflows import CheckpointStorage

__all__ = [
    "MAGENTIC_PLAN_EVENT",
    "MAGENTIC_PROGRESS_EVENT",
    "MagenticOrchestrator",
    "MagenticPlanReview",
    "MagenticPlanReviewRequest",
]

MANAGER_ID = "magentic_manager"
DEFAULT_MAGENTIC_ROUNDS = 20
MAGENTIC_PLAN_EVENT = "magentic_plan"
"""The type of the event emitted for each (re)plan; its data is the `MagenticPlan`."""
MAGENTIC_PROGRESS_EVENT = "magentic_progress"
"""The type of the event emitted each round; its data is the `ProgressLedger`."""


@dataclass
class MagenticPlanReviewRequest:
    """The plan, shown to a person before the team starts (with `enable_plan_review`).

    Answer with a `MagenticPlanReview`.

    Attributes:
        task: The task.
        facts: The manager's facts ledger.
        plan: The manager's plan.
    """

    task: str
    facts: list[str] = field(default_factory=list[str])
    plan: list[str] = field(default_factory=list[str])


@dataclass
class MagenticPlanReview:
    """A person's verdict on a plan.

    Attributes:
        approved: Start with the plan (or with `plan`, when given).
        feedback: When not approved, what the manager should change; it plans again.
        plan: An edited plan to use instead of the manager's.
    """

    approved: bool
    feedback: str = ""
    plan: list[str] | None = None


class MagenticOrchestrator(Orchestrator):
    """A manager agent plans the task, then each round picks who acts and how.

    The manager (an agent answering JSON; see `MagenticPlan` and `ProgressLedger`) first
    writes a facts ledger and a plan. Each round it judges the progress: is the task
    done, is the team making progress or looping, who acts next with what instruction.
    A round is stalled when there is no progress, the team loops, the speaker is not on
    the team, or the ledger does not parse (a `warning` event). After more than
    `max_stall_count` stalled rounds in a row it re-plans; after more than
    `max_reset_count` re-plans it gives up. At the end (task done, gave up, or the
    termination condition, default 20 participant turns) it writes the final answer,
    the Workflow Output (a list with one message). With `enable_plan_review` the plan
    is first shown to a person (a `MagenticPlanReviewRequest`), who approves it, edits it
    or asks for another (re-plans after stalls are not reviewed again).

    Args:
        participants: The agents doing the work.
        manager: The planning agent (it must support `response_format` options).
        termination: When to stop: a `TerminationCondition`, a function of
            `TerminationContext`, or a number of participant turns (default 20).
        max_stall_count: Stalled rounds in a row tolerated before re-planning.
        max_reset_count: Re-plans tolerated before giving up.
        enable_plan_review: Ask a person to review the plan before the work starts.
        name: The workflow's name (default "magentic").
        description: What the orchestration does.
        checkpoint_storage: Save a checkpoint here at every superstep.

    Example:
        >>> import asyncio, json
        >>> from agentry.clients.scripted import ScriptedChatClient
        >>> manager = ScriptedChatClient([
        ...     json.dumps({"facts": ["2 + 2"], "plan": ["math adds"]}),
        ...     json.dumps({"is_request_satisfied": False, "next_speaker": "math",
        ...                 "instruction": "Add 2 and 2."}),
        ...     json.dumps({"is_request_satisfied": True}),
        ...     "The answer is 4.",
        ... ]).as_agent(name="manager")
        >>> math = ScriptedChatClient(["4"]).as_agent(name="math")
        >>> workflow = MagenticOrchestrator(participants=[math], manager=manager).build()
        >>> asyncio.run(workflow.run("What is 2 + 2?")).get_outputs()[0][0].text
        'The answer is 4.'
    """

    _default_name = "magentic"
    _reserved_ids = (MANAGER_ID,)

    def __init__(
        self,
        participants: Sequence[SupportsAgentRun] = (),
        *,
        manager: SupportsAgentRun | None = None,
        termination: TerminationLike | None = None,
        max_stall_count: int = 3,
        max_reset_count: int = 2,
        enable_plan_review: bool = False,
        name: str | None = None,
        description: str | None = None,
        checkpoint_storage: CheckpointStorage | None = None,
    ) -> None:
        super().__init__(
            participants, name=name, description=description, checkpoint_storage=checkpoint_storage
        )
        for label, value in (
            ("max_stall_count", max_stall_count),
            ("max_reset_count", max_reset_count),
        ):
            if not isinstance(value, int) or value < 0:  # pyright: ignore[reportUnnecessaryIsInstance]
                raise ValueError(f"{label} must be a non-negative integer, not {value!r}")
        self.manager: SupportsAgentRun | None = None
        self.termination = as_termination(
            termination if termination is not None else DEFAULT_MAGENTIC_ROUNDS
        )
        self.max_stall_count = max_stall_count
        self.max_reset_count = max_reset_count
        self.enable_plan_review = enable_plan_review
        if manager is not None:
            self.with_manager(manager)

    def with_manager(self, manager: SupportsAgentRun) -> MagenticOrchestrator:
        """Plan and lead with `manager`."""
        if not is_agent(manager):
            raise TypeError(f"the magentic manager must be an agent, not {manager!r}")
        self.manager = manager
        return self

    def with_termination(self, termination: TerminationLike) -> MagenticOrchestrator:
        """Stop when `termination` holds (a condition, a predicate or a number of turns)."""
        self.termination = as_termination(termination)
        return self

    def with_plan_review(self, enabled: bool = True) -> MagenticOrchestrator:
        """Ask a person to review the plan before the work starts."""
        self.enable_plan_review = enabled
        return self

    def build(self) -> Workflow:
        """The orchestration as a new `Workflow`.

        Raises:
            OrchestrationError: No manager or no participant was given.
        """
        self._require_participants()
        if self.manager is None:
            raise OrchestrationError(
                "MagenticOrchestrator needs a manager agent; pass manager=... or call "
                "with_manager()"
            )
        participants = [ParticipantExecutor(a) for a in self.participants]
        team = {p.name: p.agent.description or "" for p in participants}
        manager = _MagenticManager(self, team)
        builder = WorkflowBuilder(start_executor=manager, **self._builder_options(manager))
        for participant in participants:
            builder.add_edge(manager, participant).add_edge(participant, manager)
        return builder.build()


class _MagenticManager(ConversationLoop):
    def __init__(self, config: MagenticOrchestrator, team: dict[str, str]) -> None:
        assert config.manager is not None
        self.agent = config.manager
        self.author = participant_name(config.manager)
        self.team = team
        self.max_stall_count = config.max_stall_count
        self.max_reset_count = config.max_reset_count
        self.plan_review = config.enable_plan_review
        self.task = ""
        self.facts: list[str] = []
        self.plan: list[str] = []
        self.stall_count = 0
        self.reset_count = 0
        super().__init__(MANAGER_ID, list(team), config.termination)

    # region flow

    async def start(
        self, conversation: list[Message], ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        self.begin(conversation)
        self.task = "\n".join(m.text for m in conversation if m.text)
        self.facts, self.plan = [], []
        self.stall_count = self.reset_count = 0
        await self._make_plan(ctx)

    @handler
    async def on_reply(
        self, reply: AgentReply, ctx: WorkflowContext[AgentTurn, list[Message]]
    ) -> None:
        """Record the participant's work, then stop or run the next round."""
        self.record(reply)
        if not await self.should_stop(ctx):
            await self._next_round(ctx)

    @response_handler
    async def on_plan_review(
        self,
        original_request: MagenticPlanReviewRequest,
        response: MagenticPlanReview,
        ctx: WorkflowContext[AgentTurn, list[Message]],
    ) -> None:
        """Start with the approved (or edited) plan, or plan again with the feedback."""
        if response.approved:
            if response.plan is not None:
                self.plan = list(response.plan)
            await self._next_round(ctx)
        else:
            await self._make_plan(ctx, feedback=response.feedback)

    async def _make_plan(
        self,
        ctx: WorkflowContext[AgentTurn, list[Message]],
        feedback: str = "",
        *,
        review: bool = True,
    ) -> None:
        from agentry.orchestrations._ledgers import MagenticPlan

        note = f"\nA reviewer asked for changes: {feedback}" if feedback else ""
        if self.plan:
            prompt = REPLAN_PROMPT.format(
                task=self.task,
                facts=_bullets(self.facts),
                plan=_bullets(self.plan),
                team=self._team(),
                feedback=note,
            )
        else:
            prompt = PLAN_PROMPT.format(task=self.task, team=self._team(), feedback=note)
        ledger = cast(MagenticPlan, await self._ask(prompt, MagenticPlan))
        self.facts, self.plan = list(ledger.facts), list(ledger.plan)
        await ctx.add_event(WorkflowEvent(MAGENTIC_PLAN_EVENT, ledger))
        if review and self.plan_review:
            request = MagenticPlanReviewRequest(self.task, list(self.facts), list(self.plan))
            await ctx.request_info(request, MagenticPlanReview)
        else:
            await self._next_round(ctx)

    async def _next_round(self, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        from agentry.orchestrations._ledgers import ProgressLedger

        prompt = PROGRESS_PROMPT.format(
            task=self.task,
            facts=_bullets(self.facts),
            plan=_bullets(self.plan),
            team=self._team(),
            names=", ".join(self.team),
        )
        try:
            progress = cast(ProgressLedger, await self._ask(prompt, ProgressLedger))
        except StructuredOutputError as error:
            # a malformed assessment is a stalled round, not the end of the task
            await ctx.add_event(
                WorkflowEvent.warning(f"the manager's progress ledger is unusable: {error}")
            )
            progress = ProgressLedger(is_request_satisfied=False, is_progress_being_made=False)
        await ctx.add_event(WorkflowEvent(MAGENTIC_PROGRESS_EVENT, progress))
        if progress.is_request_satisfied:
            await self.stop("the manager judged the task complete", ctx)
            return
        speaker = progress.next_speaker
        known = speaker in self.team
        if not known and progress.is_progress_being_made:
            await ctx.add_event(
                WorkflowEvent.warning(
                    f"the manager picked {speaker!r}, who is not on the team "
                    f"({', '.join(self.team)}); the round counts as stalled"
                )
            )
        if not known or not progress.is_progress_being_made or progress.is_in_loop:
            self.stall_count += 1
        else:
            self.stall_count = max(0, self.stall_count - 1)
        if self.stall_count > self.max_stall_count:
            await self._replan(ctx)
            return
        if not known:
            await self._next_round(ctx)
            return
        instruction = progress.instruction or f"{speaker}, carry on with the plan."
        self.conversation.append(Message("user", [instruction], author_name=self.author))
        await self.send_turn(speaker, ctx)

    async def _replan(self, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        self.reset_count += 1
        self.stall_count = 0
        if self.reset_count > self.max_reset_count:
            await self.stop(f"the team stalled after {self.max_reset_count} re-plans", ctx)
            return
        await self._make_plan(ctx, review=False)

    async def finish(self, ctx: WorkflowContext[AgentTurn, list[Message]]) -> None:
        text = cast(str, await self._ask(FINAL_ANSWER_PROMPT.format(task=self.task), None))
        answer = Message("assistant", [text], author_name=self.author, message_id=uuid.uuid4().hex)
        self.conversation.append(answer)
        await ctx.yield_output([answer])

    # endregion

    async def _ask(self, prompt: str, response_format: object) -> Any:
        messages = [*self.conversation, Message("user", [prompt])]
        kwargs: dict[str, Any] = (
            {"options": {"response_format": response_format}} if response_format else {}
        )
        response = await self.agent.run(messages, **kwargs)
        return response.value if response_format else response.text

    def _team(self) -> str:
        return "\n".join(
            f"- {name}" + (f": {about}" if about else "") for name, about in self.team.items()
        )

    async def on_checkpoint_save(self) -> dict[str, Any]:
        return {
            **await super().on_checkpoint_save(),
            "task": self.task,
            "facts": list(self.facts),
            "plan": list(self.plan),
            "stall_count": self.stall_count,
            "reset_count": self.reset_count,
        }

    async def on_checkpoint_restore(self, state: dict[str, Any]) -> None:
        await super().on_checkpoint_restore(state)
        self.task = str(state.get("task", ""))
        self.facts = list(state.get("facts", []))
        self.plan = list(state.get("plan", []))
        self.stall_count = int(state.get("stall_count", 0))
        self.reset_count = int(state.get("reset_count", 0))


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items) or "(none)"
