"""Reading a user's follow-up to a task that waits for input or authorization.

A task waits for three kinds of requests:

- tool-approval requests (`function_approval_request` contents), answered by
  - a text part such as "yes", "approve", "no" or "reject" (answers every approval),
  - a data part `{"approved": true}` (every approval), `{"id": "<request id>",
    "approved": true}` (one), or `{"approvals": {"<request id>": true, ...}}`;
- information requests of a workflow (`function_call` contents named `request_info`,
  the call id being the request id), answered by
  - a data part `{"id": "<request id>", "response": ...}` or
    `{"responses": {"<request id>": ...}}`,
  - or, when only one such request waits, any other data part (its value) or the text;
- authorization requests (`authorization_request` contents), answered by
  - in band: a data part `{"id": "<request id>", "credentials": {"token": "..."}}` (the
    id may be left out when one such request waits), whose credentials the server takes
    out of the message before it is stored (see `withhold_credentials`);
  - out of band: any message (the call runs again and finds whether the authorization
    is done);
  - either: "no", or `{"id": "<request id>", "approved": false}`, declines.

A follow-up to approvals that holds no answer at all (no yes/no, no answer data) is a new
message: the approvals are declined and the message goes to the agent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from agentry.a2a._parts import AUTHORIZATION_REQUEST_KIND, INFO_REQUEST_KIND
from agentry.errors import ContentError
from agentry.types import Content, Message

__all__ = [
    "ANSWER_HINT",
    "CREDENTIALS_HINT",
    "DECLINED_RESULT",
    "REQUEST_INFO_FUNCTION",
    "FollowUp",
    "declined_results",
    "describe_authorization",
    "describe_requests",
    "is_authorization_request",
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
_ANSWER_KEYS = frozenset({"approved", "approvals", "credentials", "id", "response", "responses"})

ANSWER_HINT = (
    'Answer an approval with "yes" or "no" (or a data part {"approved": true}), and a '
    'request for information with its answer (or a data part {"id": "<request id>", '
    '"response": ...}).'
)

CREDENTIALS_HINT = (
    'Send credentials in a data part {"id": "<request id>", "credentials": {"token": "..."}} '
    'on this task, or decline with "no".'
)
"""How to answer an in-band authorization request."""


def is_info_request(content: Content) -> bool:
    """Whether `content` is a workflow's request for information."""
    return content.type == "function_call" and content.name == REQUEST_INFO_FUNCTION


def is_authorization_request(content: Content) -> bool:
    """Whether `content` asks for authorization."""
    return content.type == AUTHORIZATION_REQUEST_KIND


@dataclass
class FollowUp:
    """What a follow-up message says about the requests its task waits for.

    Attributes:
        answers: Answers to every request (`function_approval_response` contents for
            approvals, `function_result` contents for information requests,
            `authorization_response` contents for authorization requests), or `None` when
            a request is left open.
        open_requests: The requests the message leaves open.
        is_new_message: Only approvals wait and the message holds no answer at all: it is
            a new message to the agent.
        problems: What was wrong with the answers given (malformed credentials...).
    """

    answers: list[Content] | None
    open_requests: list[Content]
    is_new_message: bool
    problems: list[str] = field(default_factory=list[str])


def read_follow_up(
    message: Message, pending: Sequence[Content], credentials: Mapping[str, Any] | None = None
) -> FollowUp:
    """Read `message` as answers to the `pending` requests of its task.

    Args:
        message: The follow-up.
        pending: The requests the task waits for.
        credentials: The credentials taken out of the message (see `withhold_credentials`),
            by request id (`""` for credentials sent without one).
    """
    reading = _Reading()
    for content in message.contents:
        try:
            reading.data(content.json_value)
        except ContentError:
            if content.type == "text" and content.text:
                reading.text(content.text)
    info_requests = [r for r in pending if is_info_request(r)]
    in_band = [r for r in pending if is_authorization_request(r) and r.flow != "out_of_band"]
    given = dict(credentials or {})
    if "" in given and len(in_band) == 1:
        given.setdefault(in_band[0].id or "", given.pop(""))
    answers: list[Content] = []
    open_requests: list[Content] = []
    problems: list[str] = []
    if "" in given:
        problems.append(
            "credentials were sent without the id of the request they answer, and "
            f"{len(in_band)} requests wait for credentials; add the id"
        )
    for request in pending:
        if is_authorization_request(request):
            answer, problem = _authorization_answer(request, reading, given)
            if problem:
                problems.append(problem)
            if answer is None:
                open_requests.append(request)
            else:
                answers.append(answer)
        elif is_info_request(request):
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
    problems.extend(reading.problems)
    problems.extend(_unknown_ids(reading, pending))
    strays = sorted(set(given) - {r.id or "" for r in in_band} - {""})
    if strays:
        waiting = ", ".join(r.id or "" for r in in_band) or "none"
        problems.append(
            f"no request with id {strays[0]!r} waits for credentials (waiting: {waiting})"
        )
    return FollowUp(
        answers=None if open_requests else answers,
        open_requests=open_requests,
        is_new_message=bool(open_requests)
        and not reading.answered
        and not info_requests
        and not any(is_authorization_request(r) for r in pending),
        problems=problems,
    )


def _unknown_ids(reading: _Reading, pending: Sequence[Content]) -> list[str]:
    """What the reply answers that the task does not wait for."""
    waiting = [(r.call_id if is_info_request(r) else r.id) or "" for r in pending]
    unknown = sorted((set(reading.approvals) | set(reading.responses)) - set(waiting))
    return [f"no request with id {i!r} waits (waiting: {', '.join(waiting)})" for i in unknown]


def _authorization_answer(
    request: Content, reading: _Reading, given: Mapping[str, Any]
) -> tuple[Content | None, str | None]:
    """The answer a follow-up gives an authorization request (or none), and what was wrong."""
    request_id = request.id or ""
    if reading.approvals.get(request_id, reading.approve_all) is False:
        return request.to_authorization_response(approved=False), None
    if request.flow == "out_of_band":
        return request.to_authorization_response(), None
    if request_id not in given:
        return None, None
    try:
        return request.to_authorization_response(given[request_id]), None
    except ContentError as error:
        return None, f"the credentials for request {request_id} were not accepted: {error}"


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
        if is_authorization_request(request):
            described.append(describe_authorization(request))
            continue
        call = request.function_call
        name = call.name if call is not None else "a tool"
        arguments = call.arguments if call is not None else None
        shown = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        described.append(f"approval of {name} {shown} (id {request.id})")
    return "; ".join(described)


def describe_authorization(request: Content) -> str:
    """An authorization request in words, such as `a bearer credential for list_repos (A
    GitHub token; id c1)`."""
    call = request.function_call
    for_whom = f" for {call.name}" if call is not None and call.name else ""
    what = f"{request.text or 'no description'}; id {request.id}"
    if request.flow == "out_of_band":
        where = f" at {request.uri}" if request.uri else ""
        return f"the authorization{for_whom}{where} ({what})"
    hint = f", to be had at {request.uri}" if request.uri else ""
    return f"a {request.scheme or 'bearer'} credential{for_whom} ({what}{hint})"


class _Reading:
    """What a reply says, gathered part by part."""

    def __init__(self) -> None:
        self.approvals: dict[str, bool] = {}
        self.approve_all: bool | None = None
        self.responses: dict[str, Any] = {}
        self.free: Any = None
        self.problems: list[str] = []
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
                else:
                    self.problems.append(
                        f'"approvals" must map request ids to true or false, not {key!r} '
                        f"to {json.dumps(approved)}"
                    )
        elif approvals is not None:
            self.problems.append(
                '"approvals" must be an object of request ids to true or false, such as '
                '{"approvals": {"<request id>": true}}'
            )
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
        elif "approved" in data:
            self.problems.append(f'"approved" must be true or false, not {json.dumps(approved)}')
        if has_id and "response" in data:
            self.responses[str(request_id)] = data["response"]
