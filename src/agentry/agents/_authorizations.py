"""Authorization requests of tools: pausing a run for them, and resuming with the answers.

A tool call that raised `AuthorizationRequired` gets no result: the run pauses with an
`authorization_request` content for it. The caller's `authorization_response` runs the
call again with the credentials it carries (granted to that call alone), or, declined,
gives the call a result saying it did not run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentry.tools import AuthorizationRequired
from agentry.types import Content, Message

__all__ = ["AuthorizationOutcome", "hold_for_authorization", "resolve_authorizations"]

DECLINED_RESULT = "Error: the user did not authorize this tool call; do not retry it."


def hold_for_authorization(
    calls: Sequence[Content], results: Sequence[Content]
) -> tuple[list[Content], list[Content]]:
    """Split a batch's results: the results to keep, and one authorization request for
    each call whose tool raised `AuthorizationRequired` (that call keeps no result)."""
    for result in results:
        if isinstance(result.exception, AuthorizationRequired):
            break
    else:  # no tool asked (a loop: quicker than any() on the tool loop's path)
        return list(results), []
    by_id = {call.call_id or "": call for call in calls}
    kept: list[Content] = []
    requests: list[Content] = []
    for result in results:
        asked = result.exception
        call = by_id.get(result.call_id or "")
        if isinstance(asked, AuthorizationRequired) and call is not None:
            requests.append(asked.to_request(call))
        else:
            kept.append(result)
    return kept, requests


@dataclass
class AuthorizationOutcome:
    """What the answers to earlier authorization requests mean for this run."""

    messages: list[Message]
    """The input messages without the authorization answers."""
    missing_calls: list[Content] = field(default_factory=list)
    """Answered calls the conversation does not show yet (a stateless resume)."""
    to_run: list[Content] = field(default_factory=list)
    """Calls to run again, in the order they were made."""
    declined: list[Content] = field(default_factory=list)
    credentials: dict[str, dict[str, str]] = field(default_factory=dict)
    """The credentials of calls to run again, by call id."""

    @property
    def resumed(self) -> bool:
        """Whether the input answered authorization requests."""
        return bool(self.to_run or self.declined)

    def declined_results(self) -> list[Content]:
        """Function results telling the model the declined calls did not run."""
        return [
            Content.from_function_result(call_id=c.call_id or "", result=DECLINED_RESULT)
            for c in self.declined
        ]


def resolve_authorizations(
    input_messages: list[Message], conversation: Callable[[], Sequence[Message]]
) -> AuthorizationOutcome:
    """Take authorization answers out of the input and decide which waiting calls run.

    `conversation` gives the messages before the input; it is only read when the input
    answers something. Every call still waiting for authorization runs again (those
    answered with their credentials), unless its answer declines; an answer for a call
    that has a result already is ignored.
    """
    if not any(c.type == "authorization_response" for m in input_messages for c in m.contents):
        return AuthorizationOutcome(messages=input_messages)
    answers: dict[str, Content] = {}
    kept: list[Message] = []
    for message in input_messages:
        contents = [c for c in message.contents if c.type != "authorization_response"]
        if len(contents) == len(message.contents):
            kept.append(message)
            continue
        answers.update(
            (c.id or "", c) for c in message.contents if c.type == "authorization_response"
        )
        if contents:
            kept.append(
                Message(
                    message.role,
                    contents,
                    author_name=message.author_name,
                    message_id=message.message_id,
                    additional_properties=message.additional_properties,
                )
            )
    outcome = AuthorizationOutcome(messages=kept)
    if not answers:
        return outcome
    calls: dict[str, Content] = {}
    answered: set[str] = set()
    asked: set[str] = set()
    for message in conversation():
        for content in message.contents:
            if content.type == "function_call" and content.call_id:
                calls[content.call_id] = content
            elif content.type == "function_result" and content.call_id:
                answered.add(content.call_id)
            elif content.type == "authorization_request" and content.id:
                asked.add(content.id)
    for call_id, answer in answers.items():
        if call_id not in calls and call_id not in answered and answer.function_call is not None:
            outcome.missing_calls.append(answer.function_call)
            calls[call_id] = answer.function_call
    for call_id, call in calls.items():
        answer = answers.get(call_id)
        if call_id in answered or (answer is None and call_id not in asked):
            continue
        if answer is not None and answer.approved is False:
            outcome.declined.append(call)
            continue
        # A waiting call left unanswered runs again too: it asks again (or, out of band,
        # finds its authorization done).
        outcome.to_run.append(call)
        if answer is not None and answer.credentials:
            outcome.credentials[call_id] = dict(answer.credentials)
    return outcome
