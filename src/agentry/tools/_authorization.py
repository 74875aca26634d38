"""Tools that need the caller's authorization: asking for it, and reading what was given.

A tool that needs a credential it was not given raises :class:`AuthorizationRequired`
(or calls :func:`require_authorization`, which raises it). The agent's run then pauses
with an `authorization_request` content, like a tool-approval request; the caller's answer
(`request.to_authorization_response(...)`) runs the call again, with the credentials
granted to that call alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING

from agentry.errors import ToolError
from agentry.types import AuthorizationFlow, Content

if TYPE_CHECKING:
    from agentry.middleware import FunctionInvocationContext

__all__ = ["AuthorizationRequired", "grant_credentials", "require_authorization"]

_FLOWS: tuple[AuthorizationFlow, ...] = ("in_band", "out_of_band")

# Credentials granted to tool calls while they run, by call id. Each call sees only its
# own: a nested run (an agent used as a tool) has calls of other ids.
_granted: ContextVar[Mapping[str, Mapping[str, str]] | None] = ContextVar(
    "agentry_granted_credentials", default=None
)


class AuthorizationRequired(ToolError):
    """Raised by a tool (or function middleware) that cannot go on without the caller's
    authorization, such as a credential it was not given.

    The run does not fail: it pauses with an `authorization_request` content in
    `response.user_input_requests` (its id is the tool call's id), and the tool's other
    calls of the turn keep their results. The caller answers in the next run with
    `request.to_authorization_response({"token": ...})` (in band) or, once the person has
    authorized at `url`, `request.to_authorization_response()` (out of band); the call then
    runs again. An A2A server publishes the pause as the task state `auth-required`.

    Raise it again, with `reason`, when the credentials given are refused: the run pauses
    once more and the caller learns why.

    Args:
        description: What is needed, for a person ("A GitHub token that can read
            repositories").
        scheme: The kind of credential: `"bearer"`, `"api_key"`, `"basic"`, `"oauth2"`...
        url: Where to get the credential, or (out of band) where to authorize.
        flow: `"in_band"`: the caller sends the credentials back; `"out_of_band"`: the
            person authorizes at `url`, and the tool finds the result on its own (in a
            token store its application fills) when it runs again.
        reason: Why the credentials given before were not accepted.

    Raises:
        ValueError: `flow` is neither `"in_band"` nor `"out_of_band"`.

    Example:
        >>> from agentry import tool
        >>> @tool
        ... def calendar() -> str:
        ...     '''Read the user's calendar.'''
        ...     raise AuthorizationRequired(
        ...         "Access to your calendar",
        ...         scheme="oauth2",
        ...         url="https://example.com/consent",
        ...         flow="out_of_band",
        ...     )
    """

    def __init__(
        self,
        description: str,
        *,
        scheme: str = "bearer",
        url: str | None = None,
        flow: AuthorizationFlow = "in_band",
        reason: str | None = None,
    ) -> None:
        if flow not in _FLOWS:
            raise ValueError(f'flow must be "in_band" or "out_of_band", got {flow!r}')
        self.description = description
        self.scheme = scheme
        self.url = url
        self.flow: AuthorizationFlow = flow
        self.reason = reason
        where = f" at {url}" if url else ""
        why = f" ({reason})" if reason else ""
        super().__init__(
            f"authorization needed{why}: {description} (a {scheme} credential, {flow}{where}); "
            "inside an agent run this pauses the run to ask the caller"
        )

    def to_request(self, call: Content) -> Content:
        """The `authorization_request` content asking for this, on behalf of `call`."""
        return Content.from_authorization_request(
            id=call.call_id or "",
            description=self.description,
            scheme=self.scheme,
            url=self.url,
            flow=self.flow,
            function_call=call,
            reason=self.reason,
        )


def require_authorization(
    context: FunctionInvocationContext,
    description: str,
    *,
    scheme: str = "bearer",
    url: str | None = None,
) -> Mapping[str, str]:
    """The credentials the caller gave this tool call, or a request for them.

    Call it from a tool that declares a `FunctionInvocationContext` parameter. The first
    time, no credentials were given: it raises :class:`AuthorizationRequired` (in band),
    which pauses the run. When the caller answers with credentials, the call runs again
    and it returns them, such as `{"token": "..."}`.

    Args:
        context: The tool call's context.
        description: What is needed, for a person.
        scheme: The kind of credential, such as `"bearer"` or `"api_key"`.
        url: Where the person can get the credential.

    Raises:
        AuthorizationRequired: The caller has not given this call credentials.

    Example:
        >>> from agentry import FunctionInvocationContext, tool
        >>> @tool
        ... def list_repos(owner: str, context: FunctionInvocationContext) -> str:
        ...     '''List the owner's repositories.'''
        ...     token = require_authorization(context, "A GitHub token")["token"]
        ...     return f"repositories of {owner}, read with a token of {len(token)} characters"
    """
    credentials = (_granted.get() or {}).get(context.call_id or "")
    if not credentials:
        raise AuthorizationRequired(description, scheme=scheme, url=url, flow="in_band")
    return credentials


@contextlib.contextmanager
def grant_credentials(credentials: Mapping[str, Mapping[str, str]]) -> Generator[None]:
    """Give the tool calls run inside the block their credentials, by call id.

    The run loop uses it when the caller answers authorization requests; the credentials
    live in memory for the block only.
    """
    token = _granted.set({**(_granted.get() or {}), **credentials})
    try:
        yield
    finally:
        _granted.reset(token)
