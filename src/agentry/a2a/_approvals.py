"""Reading a user's answer to pending tool-approval requests from an A2A message.

A task waiting for approval accepts, in order of preference:

- a data part `{"approvals": {"<request id>": true, ...}}` answering requests one by one,
- a data part `{"id": "<request id>", "approved": true}` answering one request,
- a data part `{"approved": true}` answering every pending request,
- a text part such as "yes", "approve", "no" or "reject" answering every pending request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from agentry.a2a._parts import DATA_PROPERTY
from agentry.types import Content, Message

__all__ = ["ANSWER_HINT", "approval_answers"]

_YES = frozenset({"y", "yes", "ok", "okay", "approve", "approved", "allow", "accept", "true"})
_NO = frozenset({"n", "no", "deny", "denied", "reject", "rejected", "decline", "false"})

ANSWER_HINT = (
    'Answer with "yes" or "no", or with a data part {"approved": true} '
    '(or {"approvals": {"<request id>": true}}).'
)


def approval_answers(message: Message, pending: Sequence[Content]) -> list[Content] | None:
    """Approval responses for every pending request, or `None` when the answer is unclear."""
    decisions: dict[str, bool] = {}
    everything: bool | None = None
    for content in message.contents:
        properties = content.additional_properties or {}
        if DATA_PROPERTY in properties:
            value = properties[DATA_PROPERTY]
            if isinstance(value, Mapping):
                everything = _read_data(cast("Mapping[str, Any]", value), decisions, everything)
        elif content.type == "text" and content.text:
            word = content.text.strip().strip(".!").strip().lower()
            if word in _YES:
                everything = True
            elif word in _NO:
                everything = False
    answers: list[Content] = []
    for request in pending:
        approved = decisions.get(request.id or "", everything)
        if approved is None:
            return None
        answers.append(request.to_function_approval_response(approved))
    return answers


def _read_data(
    value: Mapping[str, Any], decisions: dict[str, bool], everything: bool | None
) -> bool | None:
    approvals = value.get("approvals")
    if isinstance(approvals, Mapping):
        for key, approved in cast("Mapping[str, Any]", approvals).items():
            if isinstance(approved, bool):
                decisions[str(key)] = approved
    approved = value.get("approved")
    if isinstance(approved, bool):
        request_id = value.get("id")
        if isinstance(request_id, str) and request_id:
            decisions[request_id] = approved
        else:
            return approved
    return everything
