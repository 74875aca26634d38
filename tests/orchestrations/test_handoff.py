from __future__ import annotations

import pytest

from agentry import Content, Message
from agentry.clients.scripted import ScriptedChatClient
from agentry.orchestrations import (
    AGENT_TURN_EVENT,
    HANDOFF_EVENT,
    TERMINATED_EVENT,
    HandoffOrchestrator,
    HandoffUserInputRequest,
    KeywordTermination,
    OrchestrationError,
    handoff_tool_name,
)
from agentry.workflows import InMemoryCheckpointStorage, WorkflowRunState

from ._helpers import client_of, events_of, scripted, seen, texts

call = ScriptedChatClient.function_call


async def test_an_agent_hands_over_through_its_tool() -> None:
    triage = scripted("triage", call("handoff_to_billing"))
    billing = scripted("billing", "Your refund is on its way.")
    workflow = HandoffOrchestrator(participants=[triage, billing], interactive=False).build()

    result = await workflow.run("Refund me.")

    assert texts(result.get_outputs()[0]) == ["Your refund is on its way."]
    assert events_of(result, HANDOFF_EVENT) == [("triage", "billing")]
    assert events_of(result, AGENT_TURN_EVENT) == ["triage", "billing"]
    assert client_of(triage).calls[0].tool_names == ["handoff_to_billing"]
    assert client_of(billing).calls[0].tool_names == ["handoff_to_triage"]
    # the target sees the conversation, not the handoff call
    assert seen(billing) == [("user", "Refund me.")]
    assert len(client_of(triage).calls) == 1  # the handoff ended triage's turn


async def test_what_an_agent_says_before_handing_over_is_kept() -> None:
    words = Message(
        "assistant",
        [
            Content.from_text("Let me get billing."),
            Content.from_function_call(call_id="c1", name="handoff_to_billing", arguments={}),
        ],
    )
    triage = scripted("triage", words)
    billing = scripted("billing", "Done.")
    result = (
        await HandoffOrchestrator(participants=[triage, billing], interactive=False)
        .build()
        .run("Hi")
    )
    assert texts(result.get_outputs()[0]) == ["Let me get billing.", "Done."]
    assert seen(billing) == [("user", "Hi"), ("assistant", "Let me get billing.")]


async def test_an_unknown_target_gets_an_error_result_and_the_agent_carries_on() -> None:
    triage = scripted("triage", call("handoff_to_legal"), call("handoff_to_billing"))
    billing = scripted("billing", "Sorted.")
    workflow = HandoffOrchestrator(participants=[triage, billing], interactive=False).build()

    result = await workflow.run("Help.")

    assert texts(result.get_outputs()[0]) == ["Sorted."]
    error = client_of(triage).calls[1].messages[-1].contents[0]
    assert error.type == "function_result"
    assert "no tool named 'handoff_to_legal'" in str(error.result)
    assert "handoff_to_billing" in str(error.result)


async def test_the_handoff_graph_limits_who_can_hand_to_whom() -> None:
    triage = scripted("triage", call("handoff_to_orders"))
    orders = scripted("orders", call("handoff_to_refunds"), "I cannot do refunds.")
    refunds = scripted("refunds")
    orchestration = HandoffOrchestrator(
        participants=[triage, orders, refunds],
        handoffs={"triage": ["orders", "refunds"]},
        interactive=False,
    ).add_handoff(orders, triage)

    result = await orchestration.build().run("Where is my order?")

    assert client_of(triage).calls[0].tool_names == ["handoff_to_orders", "handoff_to_refunds"]
    assert client_of(orders).calls[0].tool_names == ["handoff_to_triage"]
    assert texts(result.get_outputs()[0]) == ["I cannot do refunds."]
    assert not client_of(refunds).calls
    assert events_of(result, HANDOFF_EVENT) == [("triage", "orders")]


async def test_a_handoff_cycle_stops_at_the_termination_limit() -> None:
    ping = scripted("ping", *[call("handoff_to_pong")] * 5)
    pong = scripted("pong", *[call("handoff_to_ping")] * 5)
    workflow = HandoffOrchestrator(participants=[ping, pong], termination=4).build()

    result = await workflow.run("Go.")

    assert events_of(result, AGENT_TURN_EVENT) == ["ping", "pong", "ping", "pong"]
    assert events_of(result, TERMINATED_EVENT) == ["reached the limit of 4 rounds"]
    assert result.get_final_state() == WorkflowRunState.IDLE
    assert result.get_outputs() == [[]]


async def test_the_user_is_asked_when_an_agent_answers_and_the_same_agent_reads_the_reply() -> None:
    triage = scripted("triage", call("handoff_to_billing"))
    billing = scripted("billing", "Which order?", "Refunded order 42.")
    workflow = HandoffOrchestrator(participants=[triage, billing]).build()

    first = await workflow.run("Refund me.")

    assert first.get_final_state() == WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    assert texts(first.get_outputs()[0]) == ["Which order?"]
    (request,) = first.get_request_info_events()
    assert isinstance(request.data, HandoffUserInputRequest)
    assert request.data.agent == "billing"
    assert texts(request.data.messages) == ["Which order?"]

    second = await workflow.run(responses={request.request_id or "": "Order 42."})

    assert texts(second.get_outputs()[0]) == ["Refunded order 42."]
    assert seen(billing) == [
        ("user", "Refund me."),
        ("assistant", "Which order?"),
        ("user", "Order 42."),
    ]
    assert len(client_of(triage).calls) == 1


async def test_termination_also_checks_what_the_user_says() -> None:
    helper = scripted("helper", "Anything else?")
    workflow = HandoffOrchestrator(
        participants=[helper], termination=KeywordTermination("bye", roles=["user"]) | 10
    ).build()
    first = await workflow.run("Hi")
    (request,) = first.get_request_info_events()
    second = await workflow.run(responses={request.request_id or "": Message("user", ["bye!"])})
    assert events_of(second, TERMINATED_EVENT) == ["the keyword 'bye' was said"]
    assert second.get_final_state() == WorkflowRunState.IDLE
    assert len(client_of(helper).calls) == 1


async def test_the_conversation_survives_a_checkpoint_while_waiting_for_the_user() -> None:
    storage = InMemoryCheckpointStorage()
    triage = scripted("triage", call("handoff_to_billing"))
    billing = scripted("billing", "Which order?")
    first = HandoffOrchestrator(participants=[triage, billing], checkpoint_storage=storage).build()
    (request,) = (await first.run("Refund me.")).get_request_info_events()
    latest = await storage.get_latest(workflow_name=first.name)
    assert latest is not None

    # a new process: new agents, a new workflow, the same checkpoint
    billing_again = scripted("billing", "Refunded order 42.")
    second = HandoffOrchestrator(participants=[scripted("triage"), billing_again]).build()
    resumed = await second.run(
        checkpoint_id=latest.checkpoint_id,
        checkpoint_storage=storage,
        responses={request.request_id or "": "Order 42."},
    )

    assert texts(resumed.get_outputs()[0]) == ["Refunded order 42."]
    assert seen(billing_again) == [
        ("user", "Refund me."),
        ("assistant", "Which order?"),
        ("user", "Order 42."),
    ]


async def test_as_agent_shows_the_answer_and_takes_the_reply_as_a_function_result() -> None:
    helper = scripted("helper", "Which size?", "Size M it is.")
    agent = HandoffOrchestrator(participants=[helper], name="shop").as_agent()

    first = await agent.run("A shirt, please.")
    assert first.messages[0].text == "Which size?"
    request = next(c for m in first.messages for c in m.contents if c.type == "function_call")

    second = await agent.run(
        Message("tool", [Content.from_function_result(call_id=request.call_id or "", result="M")])
    )
    assert second.messages[0].text == "Size M it is."


async def test_the_start_agent_can_be_chosen() -> None:
    first, second = scripted("first"), scripted("second", "Me first.")
    workflow = HandoffOrchestrator(
        participants=[first, second], start_agent="second", interactive=False
    ).build()
    assert texts((await workflow.run("Hi")).get_outputs()[0]) == ["Me first."]


def test_bad_handoff_graphs_are_refused() -> None:
    a, b = scripted("a"), scripted("b")
    with pytest.raises(OrchestrationError, match="'c', who is not a participant"):
        HandoffOrchestrator(participants=[a, b], handoffs={"a": ["c"]}).build()
    with pytest.raises(OrchestrationError, match="to itself"):
        HandoffOrchestrator(participants=[a, b], handoffs={"a": ["a"]}).build()
    with pytest.raises(OrchestrationError, match="would share the handoff tool 'handoff_to_a_b'"):
        HandoffOrchestrator(participants=[scripted("a b"), scripted("a_b")]).build()
    with pytest.raises(OrchestrationError, match="start agent 'z'"):
        HandoffOrchestrator(participants=[a, b], start_agent="z").build()


def test_tool_names_are_safe_for_any_agent_name() -> None:
    assert handoff_tool_name("billing") == "handoff_to_billing"
    assert handoff_tool_name("Order Desk!") == "handoff_to_Order_Desk_"


async def test_streaming_shows_each_agent_and_its_handoff_call() -> None:
    triage = scripted("triage", call("handoff_to_billing"))
    billing = scripted("billing", "Refunded.")
    workflow = HandoffOrchestrator(participants=[triage, billing], interactive=False).build()

    seen_updates: list[tuple[str | None, str]] = []
    async for event in workflow.run("Refund.", stream=True):
        if event.type == "intermediate":
            for content in event.data.contents:
                seen_updates.append((event.executor_id, content.name or content.text or ""))

    assert ("triage", "handoff_to_billing") in seen_updates
    assert seen_updates[-1] == ("billing", "Refunded.")
