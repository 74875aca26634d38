"""Reading a user's answers to a task's pending requests from an A2A message.

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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from agentry.a2a._parts import DATA_PROPERTY, INFO_REQUEST_KIND
from agentry.types import Content, Message

__all__ = ["ANSWER_HINT", "REQUEST_INFO_FUNCTION", "is_info_request", "request_answers"]

REQUEST_INFO_FUNCTION = INFO_REQUEST_KIND
"""The function name under which a workflow agent's information requests appear."""

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


def request_answers(message: Message, pending: Sequence[Content]) -> list[Content] | None:
    """Answers to every pending request, or `None` when the message leaves one open.

    Approvals become `function_approval_response` contents; information requests become
    `function_result` contents with the request's call id.
    """
    reading = _Reading()
    for content in message.contents:
        properties = content.additional_properties or {}
        if DATA_PROPERTY in properties:
            reading.data(properties[DATA_PROPERTY])
        elif content.type == "text" and content.text:
            reading.text(content.text)
    info_requests = [r for r in pending if is_info_request(r)]
    answers: list[Content] = []
    for request in pending:
        if is_info_request(request):
            call_id = request.call_id or ""
            if call_id in reading.responses:
                value = reading.responses[call_id]
            elif len(info_requests) == 1 and reading.free is not None:
                value = reading.free
            else:
                return None
            answers.append(Content.from_function_result(call_id=call_id, result=value))
        else:
            approved = reading.approvals.get(request.id or "", reading.approve_all)
            if approved is None:
                return None
            answers.append(request.to_function_approval_response(approved))
    return answers


class _Reading:
    """What a reply says, gathered part by part."""

    def __init__(self) -> None:
        self.approvals: dict[str, bool] = {}
        self.approve_all: bool | None = None
        self.responses: dict[str, Any] = {}
        self.free: Any = None
        self._texts: list[str] = []

    def text(self, text: str) -> None:
        word = text.strip().strip(".!").strip().lower()
        if word in _YES:
            self.approve_all = True
        elif word in _NO:
            self.approve_all = False
        self._texts.append(text)
        if self.free is None or isinstance(self.free, str):
            self.free = "\n".join(self._texts)

    def data(self, value: Any) -> None:
        if (
            not isinstance(value, Mapping)
            or not set(cast("Mapping[str, Any]", value)) & _ANSWER_KEYS
        ):
            self.free = value
            return
        data = cast("Mapping[str, Any]", value)
        approvals = data.get("approvals")
        if isinstance(approvals, Mapping):
            for key, approved in cast("Mapping[str, Any]", approvals).items():
                if isinstance(approved, bool):
                    self.approvals[str(key)] = approved
        responses = data.get("responses")
        if isinstance(responses, Mapping):
            self.responses.update(
                (str(k), v) for k, v in cast("Mapping[str, Any]", responses).items()
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
