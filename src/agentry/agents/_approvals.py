"""Tool approval: holding calls for a person's answer, and resuming with that answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

from agentry.tools import FunctionTool
from agentry.types import Content, Message

__all__ = ["ApprovalOutcome", "approval_requests", "calls_needing_approval", "resolve_approvals"]

REJECTED_RESULT = "Error: the user did not approve this tool call; do not retry it."


ApprovalRule = Callable[[Content], bool]
"""Says whether a tool call must wait for a person's approval, whatever its tool declares."""


def approval_rules(function_middleware: Sequence[object]) -> list[ApprovalRule]:
    """The approval rules of function middleware: the `requires_approval(call)` method of
    middleware objects that have one (such as `agentry.security.ToolPolicy`)."""
    rules: list[ApprovalRule] = []
    for middleware in function_middleware:
        owner = getattr(middleware, "__self__", middleware)
        rule = getattr(owner, "requires_approval", None)
        if callable(rule):
            rules.append(cast("ApprovalRule", rule))
    return rules


def calls_needing_approval(
    calls: Sequence[Content], tools: Sequence[object], rules: Sequence[ApprovalRule] = ()
) -> list[Content]:
    """The calls whose tool asks for a person's approval before it runs, or that a rule
    holds for approval."""
    if not rules:  # most turns hold nothing: found without building the set of names
        for tool in tools:
            if isinstance(tool, FunctionTool) and tool.approval_mode == "always_require":
                break
        else:
            return []
    needs = _approval_check(tools, rules)
    return [c for c in calls if needs(c)]


def approval_requests(calls: Sequence[Content]) -> list[Content]:
    """One approval request per call, identified by the call id."""
    return [
        Content.from_function_approval_request(id=c.call_id or "", function_call=c) for c in calls
    ]


@dataclass
class ApprovalOutcome:
    """What the answers to earlier approval requests mean for this run."""

    messages: list[Message]
    """The input messages without the approval answers."""
    missing_calls: list[Content] = field(default_factory=list)
    """Approved or rejected calls the conversation does not show yet (a stateless resume)."""
    to_run: list[Content] = field(default_factory=list)
    rejected: list[Content] = field(default_factory=list)

    @property
    def resumed(self) -> bool:
        """Whether the input answered approval requests."""
        return bool(self.to_run or self.rejected)

    def rejection_results(self) -> list[Content]:
        """Function results telling the model the rejected calls did not run."""
        return [
            Content("function_result", call_id=c.call_id, result=REJECTED_RESULT)
            for c in self.rejected
        ]


def resolve_approvals(
    input_messages: list[Message],
    conversation: Callable[[], Sequence[Message]],
    tools: Sequence[object],
    rules: Sequence[ApprovalRule] = (),
) -> ApprovalOutcome:
    """Take approval answers out of the input and decide which held calls run.

    `conversation` gives the messages before the input; it is only read when the input
    answers something. A call runs when it was approved, or when it was held only because
    another call of the same turn needed approval. A rejected call, or one that needs
    approval and got no answer, gets a result saying it did not run.
    """
    if not any(c.type == "function_approval_response" for m in input_messages for c in m.contents):
        return ApprovalOutcome(messages=input_messages)
    answers: dict[str, Content] = {}
    kept: list[Message] = []
    for message in input_messages:
        contents = [c for c in message.contents if c.type != "function_approval_response"]
        if len(contents) != len(message.contents):
            answers.update(
                (c.id or "", c) for c in message.contents if c.type == "function_approval_response"
            )
            if not contents:
                continue
            message = Message(
                message.role,
                contents,
                author_name=message.author_name,
                message_id=message.message_id,
                additional_properties=message.additional_properties,
            )
        kept.append(message)
    outcome = ApprovalOutcome(messages=kept)
    needs = _approval_check(tools, rules)
    calls: dict[str, Content] = {}
    answered: set[str] = set()
    # The calls may be in the conversation before the input, or (a stateless resume) in
    # the input itself, with the other calls of their turn.
    for message in [*conversation(), *kept]:
        for content in message.contents:
            if content.type == "function_call" and content.call_id:
                calls[content.call_id] = content
            elif content.type == "function_result" and content.call_id:
                answered.add(content.call_id)
    for call_id, answer in answers.items():
        if call_id not in calls and answer.function_call is not None:
            outcome.missing_calls.append(answer.function_call)
            calls[call_id] = answer.function_call
    for call_id, call in calls.items():
        if call_id in answered:
            continue
        answer = answers.get(call_id)
        if (answer is None and needs(call)) or (answer is not None and not answer.approved):
            outcome.rejected.append(call)
        else:
            outcome.to_run.append(call)
    return outcome


def _approval_check(tools: Sequence[object], rules: Sequence[ApprovalRule]) -> ApprovalRule:
    requiring = _names_requiring_approval(tools)
    if not rules:
        return lambda call: call.name in requiring
    return lambda call: call.name in requiring or any(rule(call) for rule in rules)


def _names_requiring_approval(tools: Sequence[object]) -> set[str]:
    return {
        t.name for t in tools if isinstance(t, FunctionTool) and t.approval_mode == "always_require"
    }
