"""`Served`: what every route of the server shares: the agents, the keys, the body limit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from agentry._http import BearerKeys, HTTPProblem, read_json
from agentry.agents import SupportsAgentRun
from agentry.openai.server._errors import RequestError

__all__ = ["Served", "checked"]


class Served:
    """The served agents by model name, and the rules every request meets.

    Args:
        agents: The agents by model name.
        keys: The API keys callers may send (none: everyone is served).
        max_request_bytes: The largest request body accepted.
    """

    def __init__(
        self, agents: Mapping[str, SupportsAgentRun], keys: BearerKeys, max_request_bytes: int
    ) -> None:
        self.agents = dict(agents)
        self._keys = keys
        self.max_request_bytes = max_request_bytes

    def authorize(self, request: Request) -> None:
        """Check the request's bearer key.

        Raises:
            RequestError: A key is needed and the request has none that matches (401).
        """
        try:
            self._keys.check(request.headers.get("authorization"))
        except HTTPProblem as problem:
            raise _as_request_error(problem) from None

    def agent(self, name: str, *, param: str | None = "model") -> SupportsAgentRun:
        """The agent served as model `name`.

        Raises:
            RequestError: No agent has that name (404).
        """
        agent = self.agents.get(name)
        if agent is None:
            served = ", ".join(repr(n) for n in self.agents)
            raise RequestError(
                404,
                f"there is no model {name!r} here; this server serves {served}",
                param=param,
                code="model_not_found",
            )
        return agent

    async def body(self, request: Request) -> object:
        """The request's JSON body, read up to the size limit.

        Raises:
            RequestError: The body is too large (413) or not JSON (400).
        """
        try:
            return await read_json(request, self.max_request_bytes)
        except HTTPProblem as problem:
            raise _as_request_error(problem) from None


def _as_request_error(problem: HTTPProblem) -> RequestError:
    return RequestError(problem.status, problem.message, code=problem.code)


def checked(
    model: type[BaseModel], body: object, *, refused: Mapping[str, str] | None = None
) -> Any:
    """`body` read as `model`, or a 400 that names each field at fault.

    Args:
        model: The request's pydantic model.
        body: The JSON body.
        refused: Fields refused with a reason of their own, by name.
    """
    _refuse(body, refused or {})
    try:
        return model.model_validate(body)
    except ValidationError as error:
        problems = _problems(body, list(error.errors(include_url=False)))
        text = "; ".join(text for _, text in problems)
        raise RequestError(400, text, param=problems[0][0]) from None


def _refuse(body: object, refused: Mapping[str, str]) -> None:
    named = [f for f in refused if isinstance(body, dict) and f in body]
    if named:
        field = named[0]
        raise RequestError(
            400, f"{field}: {refused[field]}", param=field, code="unsupported_parameter"
        )


_TYPE_MISMATCHES = frozenset({"string_type", "list_type", "dict_type", "model_type"})
"""Errors of a union's other branches, such as "should be a string" for a list that holds
a bad item: left out when the input has more telling errors."""


def _problems(body: object, errors: list[Any]) -> list[tuple[str | None, str]]:
    """(field, what is wrong with it) for each error worth telling."""
    telling = [e for e in errors if e["type"] not in _TYPE_MISMATCHES] or errors
    problems: list[tuple[str | None, str]] = []
    for error in telling:
        where = _field(body, error["loc"])
        if error["type"] == "extra_forbidden":
            text = f"{where}: not supported by this server; leave it out"
        else:
            text = f"{where or 'the body'}: {error['msg']}"
        if text not in (t for _, t in problems):
            problems.append((where, text))
    return problems


def _field(body: object, location: tuple[int | str, ...]) -> str | None:
    """The path in `body` of an error's location, without the names pydantic gives a
    union's branches and tags (`messages.0.content`, not `messages.0.user.content`)."""
    node, path = body, list[str]()
    for index, part in enumerate(location):
        if isinstance(node, dict) and part in node:
            node = cast(dict[Any, Any], node)[part]
        elif isinstance(node, list) and isinstance(part, int):
            node = cast(list[Any], node)[part] if part < len(cast(list[Any], node)) else None
        elif index < len(location) - 1:
            continue  # a branch or a tag: only a field that is missing ends a location
        path.append(str(part))
    return ".".join(path) or None
