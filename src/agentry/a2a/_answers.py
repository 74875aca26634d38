"""Reading a user's follow-up to a task that waits for input.

A task waits for two kinds of requests:

- tool-approval requests (`function_approval_request` contents), answered by
  - a text part such as "yes", "approve", "no" or "reject" (answers every approval),
  - a data part `{"approved": true}` (every approval), `{"id": "<request id>",
    "approved": true}` (one), or `{"approvals": {"<request id>": true, ...}}`;
- information requests of a workflow (`function_call` contents named `request_info`,
  the call id being the request id), answered by
  - a data part `{"id": "<request id>", "response": ...}` or
    `{"responses": {"<request id>": ..., ...}}`,
  - or, when only one such request waits, any other data part (its value) or the text.

A follow-up to approvals that holds no answer at all (no yes/no, no answer data) is a new
message: the approvals are declined and the message goes to the agent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from agentry.a2a._parts import INFO_REQUEST_KIND
from agentry.errors import ContentError
from agentry.types import Content, Message

__all__ = [
    "ANSWER_HINT",
    "DECLINED_RESULT",
    "REQUEST_INFO_FUNCTION",
    "FollowUp",
    "declined_results",
    "describe_requests",
    "is_info_request",
    "read_follow_up",
]

REQUEST_INFO_FUNCTION = INFO_REQUEST_KIND
"""The function name under which a workflow agent's information requests appear."""

DECLINED_RESULT = (
    "Error: not run; the user did not approve this tool call and sent a new message instead."
)
"""The tool result of a call whose approval a new message left undecided."""

_YES = frozenset({"y", "yes", "ok", "okay", "approve", "approved", "allow", "accept", "true"})
_NO = frozenset({"n", "no", "deny", "denied", "reject", "rejected", "decline", "false"})
_ANSWER_KEYS = frozenset({"approved", "approvals", "id", "response", "responses"})

ANSWER_HINT = (
    'Answer an approval with "yes" or "no" (or a data part {"approved": true}), and a '
    'request for information with its answer (or a data part {"id": "<request id>", '
    '"response": ...}).'
)


def is_info_request(content: Content) -> bool:
    """Whether `content` is a workflow's request for information."""
    return content.type == "function_call" and content.name == REQUEST_INFO_FUNCTION


@dataclass
class FollowUp:
    """What a follow-up message says about the requests its task waits for.

    Attributes:
        answers: Answers to every request (`function_approval_response` contents for
            approvals, `function_result` contents for information requests), or `None`
            when a request is left open.
        open_requests: The requests the message leaves open.
        is_new_message: Only approvals wait and the message holds no answer at all: it is
            a new message to the agent.
    """

    answers: list[Content] | None
    open_requests: list[Content]
    is_new_message: bool


def read_follow_up(message: Message, pending: Sequence[Content]) -> FollowUp:
    """Read `message` as answers to the `pending` requests of its task."""
    reading = _Reading()
    for content in message.contents:
        try:
            reading.data(content.json_value)
        except ContentError:
            if content.type == "text" and content.text:
                reading.text(content.text)
    info_requests = [r for r in pending if is_info_request(r)]
    answers: list[Content] = []
    open_requests: list[Content] = []
    for request in pending:
        if is_info_request(request):
            call_id = request.call_id or ""
            if call_id in reading.responses:
                value = reading.responses[call_id]
            elif len(info_requests) == 1 and reading.free is not None:
                value = reading.free
            else:
                open_requests.append(request)
                continue
            answers.append(Content.from_function_result(call_id=call_id, result=value))
        else:
            approved = reading.approvals.get(request.id or "", reading.approve_all)
            if approved is None:
                open_requests.append(request)
                continue
            answers.append(request.to_function_approval_response(approved))
    return FollowUp(
        answers=None if open_requests else answers,
        open_requests=open_requests,
        is_new_message=bool(open_requests) and not reading.answered and not info_requests,
    )


def declined_results(pending: Sequence[Content]) -> Message:
    """A tool message saying that the calls of `pending` approval requests did not run."""
    results = [
        Content.from_function_result(
            call_id=request.function_call.call_id or request.id or "", result=DECLINED_RESULT
        )
        for request in pending
        if request.function_call is not None
    ]
    return Message("tool", results)


def describe_requests(requests: Sequence[Content]) -> str:
    """The open requests in words, such as `approval of delete_file {"path": "a.txt"}`."""
    described: list[str] = []
    for request in requests:
        if is_info_request(request):
            described.append(f"the answer to request {request.call_id}")
            continue
        call = request.function_call
        name = call.name if call is not None else "a tool"
        arguments = call.arguments if call is not None else None
        shown = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        described.append(f"approval of {name} {shown} (id {request.id})")
    return "; ".join(described)


class _Reading:
    """What a reply says, gathered part by part."""

    def __init__(self) -> None:
        self.approvals: dict[str, bool] = {}
        self.approve_all: bool | None = None
        self.responses: dict[str, Any] = {}
        self.free: Any = None
        self._texts: list[str] = []
        self._answer_data = False

    @property
    def answered(self) -> bool:
        """Whether the reply holds anything shaped like an answer (yes/no, answer data)."""
        return self._answer_data or self.approve_all is not None

    def text(self, text: str) -> None:
        word = text.strip().strip(".!").strip().lower()
        if word in _YES:
            self.approve_all = True
        elif word in _NO:
            self.approve_all = False
        self._texts.append(text)
        if self.free is None or isinstance(self.free, str):
            self.free = "\n".join(self._texts)

    def data(self, value: object) -> None:
        if (
            not isinstance(value, Mapping)
            or not set(cast("Mapping[str, object]", value)) & _ANSWER_KEYS
        ):
            self.free = value
            return
        self._answer_data = True
        data = cast("Mapping[str, object]", value)
        approvals = data.get("approvals")
        if isinstance(approvals, Mapping):
            for key, approved in cast("Mapping[str, object]", approvals).items():
                if isinstance(approved, bool):
                    self.approvals[str(key)] = approved
        responses = data.get("responses")
        if isinstance(responses, Mapping):
            self.responses.update(
                (str(k), v) for k, v in cast("Mapping[str, object]", responses).items()
            )
        request_id = data.get("id")
        has_id = isinstance(request_id, str) and bool(request_id)
        approved = data.get("approved")
        if isinstance(approved, bool):
            if has_id:
                self.approvals[str(request_id)] = approved
            else:
                self.approve_all = approved
        if has_id and "response" in data:
            self.responses[str(request_id)] = data["response"]
