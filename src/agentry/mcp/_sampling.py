"""Sampling: an MCP server asking the client's model for a completion, under guard."""

from __future__ import annotations

import base64
import inspect
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agentry.types import ChatOptions, Content, Message

if TYPE_CHECKING:
    from mcp.client.context import ClientRequestContext
    from mcp_types import CreateMessageRequestParams, CreateMessageResult, ErrorData

    from agentry.protocols import SupportsChatGetResponse

__all__ = ["SamplingApproval", "SamplingGuard", "SamplingPolicy", "SamplingRequest"]

logger = logging.getLogger("agentry.mcp")


@dataclass(frozen=True)
class SamplingRequest:
    """What a server asked the model, as the approval callback sees it.

    Attributes:
        server: The name of the MCP tool (connection) the request came from.
        messages: The conversation the server wants completed.
        system_prompt: The server's system prompt, if any.
        max_tokens: The tokens the server asked for (before the policy's cap).
    """

    server: str
    messages: list[Message]
    system_prompt: str | None
    max_tokens: int


SamplingApproval = Callable[[SamplingRequest], "bool | Awaitable[bool]"]
"""Decides whether a sampling request may reach the model (sync or async)."""


@dataclass(frozen=True)
class SamplingPolicy:
    """Limits on what MCP servers may ask of the client's model.

    Attributes:
        max_requests: Requests allowed per connection within `window_seconds`.
        window_seconds: The rate limit's sliding window.
        max_tokens: The most tokens one request may generate (larger asks are cut).
        approve: Called for each request that passes the rate limit; False denies it.
    """

    max_requests: int = 5
    window_seconds: float = 60.0
    max_tokens: int = 1024
    approve: SamplingApproval | None = None

    def __post_init__(self) -> None:
        if self.max_requests < 1 or self.window_seconds <= 0 or self.max_tokens < 1:
            raise ValueError(
                "SamplingPolicy needs max_requests >= 1, window_seconds > 0 and max_tokens >= 1"
            )


class SamplingGuard:
    """The sampling callback of one connection: rate limit, approval, token cap, then the
    model. Denials are logged at WARNING, never with the request's content.

    Args:
        server: The connection's name, for logs and approvals.
        client: The chat client that answers.
        policy: The limits.
    """

    def __init__(
        self, server: str, client: SupportsChatGetResponse, policy: SamplingPolicy
    ) -> None:
        self.server = server
        self.client = client
        self.policy = policy
        self._recent: deque[float] = deque()

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        """Answer one `sampling/createMessage` request (the SDK's sampling callback)."""
        if not self._within_rate_limit():
            return self._deny(
                f"more than {self.policy.max_requests} requests in {self.policy.window_seconds:g} s"
            )
        request = SamplingRequest(
            server=self.server,
            messages=[_message(m) for m in params.messages],
            system_prompt=params.system_prompt,
            max_tokens=params.max_tokens,
        )
        if self.policy.approve is not None and not await _approved(self.policy.approve, request):
            return self._deny("not approved")
        return await self._complete(request, params)

    def _within_rate_limit(self) -> bool:
        now = time.monotonic()
        recent = self._recent
        while recent and now - recent[0] >= self.policy.window_seconds:
            recent.popleft()
        if len(recent) >= self.policy.max_requests:
            return False
        recent.append(now)
        return True

    def _deny(self, reason: str) -> ErrorData:
        from mcp_types import INVALID_REQUEST, ErrorData

        logger.warning("denied a sampling request from MCP server %r: %s", self.server, reason)
        return ErrorData(code=INVALID_REQUEST, message=f"sampling request denied: {reason}")

    async def _complete(
        self, request: SamplingRequest, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        from mcp_types import INTERNAL_ERROR, CreateMessageResult, ErrorData, TextContent

        messages = list(request.messages)
        if request.system_prompt:
            messages.insert(0, Message("system", [request.system_prompt]))
        options: ChatOptions = {"max_tokens": min(params.max_tokens, self.policy.max_tokens)}
        if params.temperature is not None:
            options["temperature"] = params.temperature
        if params.stop_sequences:
            options["stop"] = list(params.stop_sequences)
        try:
            response = await self.client.get_response(messages, options=options)
        except Exception as error:
            logger.warning(
                "sampling for MCP server %r failed: %s", self.server, type(error).__name__
            )
            return ErrorData(code=INTERNAL_ERROR, message=f"sampling failed: {error}")
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=response.text),
            model=response.model or "unknown",
            stop_reason=_STOP_REASONS.get(response.finish_reason or "", response.finish_reason),
        )


_STOP_REASONS = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse"}


async def _approved(approve: SamplingApproval, request: SamplingRequest) -> bool:
    verdict: object = approve(request)
    if inspect.isawaitable(verdict):
        verdict = await verdict
    return verdict is True


def _message(message: Any) -> Message:
    """A sampling message as an agentry message (text, images and audio)."""
    content: Any = message.content
    blocks: list[Any] = cast("list[Any]", content) if isinstance(content, list) else [content]
    contents: list[Content] = []
    for block in blocks:
        if block.type == "text":
            contents.append(Content.from_text(block.text))
        elif block.type in ("image", "audio"):
            contents.append(
                Content.from_data(base64.b64decode(block.data), media_type=block.mime_type)
            )
    return Message(message.role, contents)
