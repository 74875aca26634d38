from __future__ import annotations

import pytest

from agentry import Agent
from agentry.orchestrations import (
    AGENT_TURN_EVENT,
    MAGENTIC_PLAN_EVENT,
    MAGENTIC_PROGRESS_EVENT,
    TERMINATED_EVENT,
    MagenticOrchestrator,
    MagenticPlan,
    MagenticPlanReview,
    MagenticPlanReviewRequest,
    OrchestrationError,
    ProgressLedger,
)
from agentry.workflows import ExecutorFailedException, InMemoryCheckpointStorage, WorkflowRunState

from ._helpers import as_json, checkpoint_after, client_of, events_of, scripted, seen, texts


def plan(*steps: str, facts: tuple[str, ...] = ("a fact",)) -> str:
    return as_json(facts=list(facts), plan=list(steps))


def step(speaker: str, instruction: str, *, progress: bool = True, loop: bool = False) -> str:
    return as_json(
        is_request_satisfied=False,
        is_progress_being_made=progress,
        is_in_loop=loop,
        next_speaker=speaker,
        instruction=instruction,
    )


DONE = as_json(is_request_satisfied=True)


def prompts(manager: Agent) -> list[str]:
    """The last message of each request the manager got."""
    return [call.messages[-1].text for call in client_of(manager).calls]


async def test_plans_delegates_and_answers() -> None:
    manager = scripted(
        "manager",
        plan("researcher finds the year", "writer writes it up"),
        step("researcher", "Find the year."),
        step("writer", "Write one sentence."),
        DONE,
        "It opened in 1889.",
    )
    researcher = scripted("researcher", "1889.", description="Looks things up.")
    writer = scripted("writer", "The tower opened in 1889.")
    workflow = MagenticOrchestrator(participants=[researcher, writer], manager=manager).build()

    result = await workflow.run("When did the Eiffel Tower open?")

    (output,) = result.get_outputs()
    assert [(m.author_name, m.text) for m in output] == [("manager", "It opened in 1889.")]
    assert events_of(result, AGENT_TURN_EVENT) == ["researcher", "writer"]
    (ledger,) = events_of(result, MAGENTIC_PLAN_EVENT)
    assert isinstance(ledger, MagenticPlan)
    assert ledger.plan == ["researcher finds the year", "writer writes it up"]
    progress = events_of(result, MAGENTIC_PROGRESS_EVENT)
    assert all(isinstance(p, ProgressLedger) for p in progress)
    assert [p.is_request_satisfied for p in progress] == [False, False, True]
    assert events_of(result, TERMINATED_EVENT) == ["the manager judged the task complete"]

    asked = prompts(manager)
    assert "- researcher: Looks things up." in asked[0]
    assert "researcher finds the year" in asked[1]
    assert "Give the final answer" in asked[4]
    formats = [c.options.get("response_format") for c in client_of(manager).calls]
    assert formats == [MagenticPlan, ProgressLedger, ProgressLedger, ProgressLedger, None]
    # each participant gets the conversation so far and its instruction
    assert seen(writer) == [
        ("user", "When did the Eiffel Tower open?"),
        ("user", "Find the year."),
        ("assistant", "1889."),
        ("user", "Write one sentence."),
    ]


async def test_replans_after_too_many_stalled_rounds() -> None:
    manager = scripted(
        "manager",
        plan("worker tries"),
        step("worker", "Try.", progress=False),
        step("worker", "Try again.", progress=False),
        plan("worker tries differently", facts=("a new fact",)),
        step("worker", "Try differently."),
        DONE,
        "Solved.",
    )
    worker = scripted("worker", "Failed.", "It worked.")
    workflow = MagenticOrchestrator(
        participants=[worker], manager=manager, max_stall_count=1
    ).build()

    result = await workflow.run("Solve it.")

    assert texts(result.get_outputs()[0]) == ["Solved."]
    plans = events_of(result, MAGENTIC_PLAN_EVENT)
    assert [p.plan for p in plans] == [["worker tries"], ["worker tries differently"]]
    replan_prompt = prompts(manager)[3]
    assert "The team is stuck" in replan_prompt
    assert "- worker tries" in replan_prompt
    assert "- a fact" in replan_prompt
    assert "The plan:\n- worker tries differently" in prompts(manager)[4]
    assert texts([m for m in client_of(worker).calls[1].messages if m.role != "system"]) == [
        "Solve it.",
        "Try.",
        "Failed.",
        "Try differently.",
    ]


async def test_gives_up_after_too_many_replans() -> None:
    manager = scripted(
        "manager", plan("loop"), step("worker", "Go.", loop=True), "I could not finish."
    )
    workflow = MagenticOrchestrator(
        participants=[scripted("worker")], manager=manager, max_stall_count=0, max_reset_count=0
    ).build()

    result = await workflow.run("Task.")

    assert texts(result.get_outputs()[0]) == ["I could not finish."]
    assert events_of(result, TERMINATED_EVENT) == ["the team stalled after 0 re-plans"]


async def test_an_unknown_speaker_counts_as_a_stall() -> None:
    manager = scripted(
        "manager", plan("w works"), step("nobody", "Go."), step("w", "Go."), DONE, "Done."
    )
    w = scripted("w", "Worked.")
    result = await MagenticOrchestrator(participants=[w], manager=manager).build().run("Task.")
    assert texts(result.get_outputs()[0]) == ["Done."]
    (warning,) = events_of(result, "warning")
    assert "'nobody', who is not on the team (w)" in warning
    assert events_of(result, AGENT_TURN_EVENT) == ["w"]


async def test_an_unusable_progress_ledger_counts_as_a_stall() -> None:
    broken = '{"is_request_satisfied": tr'  # asked again once (output_retries), broken again
    manager = scripted("manager", plan("w works"), broken, broken, step("w", "Go."), DONE, "Done.")
    w = scripted("w", "Worked.")
    result = await MagenticOrchestrator(participants=[w], manager=manager).build().run("Task.")
    assert texts(result.get_outputs()[0]) == ["Done."]
    (warning,) = events_of(result, "warning")
    assert warning.startswith("the manager's progress ledger is unusable:")
    assert events_of(result, AGENT_TURN_EVENT) == ["w"]


async def test_an_unusable_plan_fails_the_run_with_the_reason() -> None:
    manager = scripted("manager", "no JSON here", "still no JSON")  # asked again once
    workflow = MagenticOrchestrator(participants=[scripted("w")], manager=manager).build()
    with pytest.raises(ExecutorFailedException, match="does not validate as MagenticPlan"):
        await workflow.run("Task.")


async def test_the_termination_condition_ends_with_a_final_answer() -> None:
    manager = scripted(
        "manager", plan("w works"), step("w", "Work."), "Out of time; here is what we have."
    )
    workflow = MagenticOrchestrator(
        participants=[scripted("w", "Half done.")], manager=manager, termination=1
    ).build()
    result = await workflow.run("Task.")
    assert texts(result.get_outputs()[0]) == ["Out of time; here is what we have."]
    assert events_of(result, TERMINATED_EVENT) == ["reached the limit of 1 rounds"]


async def test_a_person_reviews_the_plan_before_the_work_starts() -> None:
    manager = scripted(
        "manager",
        plan("w guesses"),
        plan("w measures"),
        step("w", "Measure."),
        DONE,
        "It is 3 m.",
    )
    w = scripted("w", "3 m.")
    workflow = MagenticOrchestrator(participants=[w], manager=manager).with_plan_review().build()

    first = await workflow.run("How long is it?")
    (request,) = first.get_request_info_events()
    assert first.get_final_state() == WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    assert request.data == MagenticPlanReviewRequest("How long is it?", ["a fact"], ["w guesses"])
    assert not client_of(w).calls

    second = await workflow.run(
        responses={request.request_id or "": MagenticPlanReview(False, "Do not guess.")}
    )
    (again,) = second.get_request_info_events()
    assert isinstance(again.data, MagenticPlanReviewRequest)
    assert again.data.plan == ["w measures"]
    assert "A reviewer asked for changes: Do not guess." in prompts(manager)[1]

    edited = MagenticPlanReview(True, plan=["w measures twice"])
    third = await workflow.run(responses={again.request_id or "": edited})

    assert texts(third.get_outputs()[0]) == ["It is 3 m."]
    assert "- w measures twice" in prompts(manager)[2]


async def test_replans_after_stalls_are_not_reviewed_again() -> None:
    manager = scripted(
        "manager",
        plan("w tries"),
        step("w", "Try.", progress=False),
        plan("w tries harder"),
        DONE,
        "Done.",
    )
    workflow = MagenticOrchestrator(
        participants=[scripted("w")], manager=manager, max_stall_count=0, enable_plan_review=True
    ).build()
    (request,) = (await workflow.run("Task.")).get_request_info_events()
    result = await workflow.run(responses={request.request_id or "": MagenticPlanReview(True)})
    assert not result.get_request_info_events()
    assert [p.plan for p in events_of(result, MAGENTIC_PLAN_EVENT)] == [["w tries harder"]]
    assert texts(result.get_outputs()[0]) == ["Done."]


async def test_resumes_mid_task_from_a_checkpoint() -> None:
    storage = InMemoryCheckpointStorage()
    script = [plan("a then b"), step("a", "Start."), step("b", "Finish."), DONE, "All done."]
    first = MagenticOrchestrator(
        participants=[scripted("a", "Started."), scripted("b", "Finished.")],
        manager=scripted("manager", *script),
        checkpoint_storage=storage,
    ).build()
    expected = texts((await first.run("Task.")).get_outputs()[0])

    # Superstep 2 ends after "a" worked; the manager's next call is the second progress step.
    checkpoint_id = await checkpoint_after(storage, first, 2)
    manager, a, b = scripted("manager", *script[2:]), scripted("a"), scripted("b", "Finished.")
    second = MagenticOrchestrator(participants=[a, b], manager=manager).build()
    resumed = await second.run(checkpoint_id=checkpoint_id, checkpoint_storage=storage)

    assert texts(resumed.get_outputs()[0]) == expected == ["All done."]
    assert not client_of(a).calls
    assert "- a then b" in prompts(manager)[0]
    assert seen(b) == [
        ("user", "Task."),
        ("user", "Start."),
        ("assistant", "Started."),
        ("user", "Finish."),
    ]


async def test_as_agent_answers_with_the_final_answer() -> None:
    manager = scripted("manager", plan("w"), step("w", "Go."), DONE, "Final.")
    orchestration = MagenticOrchestrator(participants=[scripted("w", "ok")], manager=manager)
    response = await orchestration.as_agent().run("Task.")
    assert response.text == "Final."


def test_needs_a_manager_agent_and_sane_limits() -> None:
    with pytest.raises(OrchestrationError, match="needs a manager agent"):
        MagenticOrchestrator(participants=[scripted("w")]).build()
    with pytest.raises(TypeError, match="must be an agent"):
        MagenticOrchestrator(manager="boss")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_stall_count must be a non-negative integer"):
        MagenticOrchestrator(max_stall_count=-1)
