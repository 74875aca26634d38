"""Model calls tried again under a `RetryPolicy`, plain and streamed.

Each retry is reported to the telemetry observer (an event on the chat span) and logged
at INFO, giving up at WARNING, with the error's type and status: never the conversation,
and the error's message only with sensitive logging on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import cast

from agentry.clients._chat_stream import interrupted
from agentry.errors import ChatClientError
from agentry.observability import get_logger, get_telemetry_observer, is_sensitive_logging_enabled
from agentry.types import (
    ChatOptions,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    RetryPolicy,
    UsageDetails,
    add_usage_details,
    is_transient_error,
)

__all__ = ["RetriedStream", "StreamStart", "retry_response", "usage_update"]

_logger = get_logger("agentry.clients")


class _Attempts:
    """The attempts of one call: when it began, how many failed, what they were billed."""

    __slots__ = ("attempt", "client", "failed_usage", "policy", "started")

    def __init__(self, policy: RetryPolicy, client: object, started: float) -> None:
        self.policy = policy
        self.client = client
        self.started = started
        self.attempt = 1
        self.failed_usage: UsageDetails | None = None

    async def wait_or_raise(self, error: Exception) -> None:
        """Wait before the next attempt after `error`, or raise it when the policy says
        to give up (it is not transient, or attempts or time are spent)."""
        if not is_transient_error(error):
            raise error
        policy = self.policy
        failed = cast("ChatClientError", error)
        failed.attempts = self.attempt
        usage: Mapping[str, int] | None = failed.usage_details
        if usage:
            self.failed_usage = add_usage_details(self.failed_usage, cast(UsageDetails, usage))
            # raised, the error carries the usage of every attempt
            failed.usage_details = cast("Mapping[str, int]", self.failed_usage)
        elapsed = time.monotonic() - self.started
        if self.attempt >= policy.max_attempts:
            _give_up(failed, f"after {self.attempt} attempts (max_attempts={policy.max_attempts})")
        delay = policy.delay(error, self.attempt)
        if elapsed + delay > policy.max_elapsed:
            _give_up(
                failed,
                f"after {self.attempt} attempts in {elapsed:.1f} s: the next, in {delay:.1f} s, "
                f"would pass max_elapsed={policy.max_elapsed:g} s",
            )
        _log_retry(self.client, self.attempt, policy.max_attempts, delay, failed)
        get_telemetry_observer().chat_retry(self.client, self.attempt, delay, error)
        await asyncio.sleep(delay)
        self.attempt += 1


async def retry_response(
    policy: RetryPolicy,
    failure: ChatClientError,
    call: Callable[[], Awaitable[ChatResponse]],
    *,
    started: float,
    client: object,
) -> ChatResponse:
    """After the first attempt, begun at `started` (`time.monotonic()`), failed with
    `failure`: `call()`'s response, calling it again while it fails transiently and the
    policy allows, else the last failure raised. Tokens that failed attempts were billed
    are added to the response's usage.

    The first attempt is the caller's own, so a call that succeeds costs nothing here.
    """
    attempts = _Attempts(policy, client, started)
    error = failure
    while True:
        await attempts.wait_or_raise(error)
        try:
            response = await call()
        except ChatClientError as next_error:
            error = next_error
            continue
        if attempts.failed_usage:
            usage = add_usage_details(attempts.failed_usage, response.usage_details)
            response.usage_details = usage
        return response


StreamStart = Callable[..., AsyncIterator[ChatResponseUpdate]]
"""A client's streaming method, called with the keywords `messages` and `options`."""


class RetriedStream:
    """The updates of `start(messages=..., options=...)`, starting it again while it
    fails transiently before any part of the answer (an update with contents) was
    passed on and the policy allows.

    Until then each update is read through a small coroutine (an async generator costs
    more: asyncio keeps a record of each one begun); the attempts after a failure come
    from `_later_attempts`. Once part of the answer is out, or later attempts took over,
    the updates are handed out as they come: a failure after part of the answer reaches
    the reader as it is, who raises `stream_break(...)` for it (see `_chat_stream`).
    """

    __slots__ = ("call", "passes_through", "updates")

    def __init__(
        self,
        policy: RetryPolicy,
        start: StreamStart,
        messages: list[Message],
        options: ChatOptions,
        client: object,
    ) -> None:
        self.call = (policy, start, messages, options, client, time.monotonic())
        self.updates: AsyncIterator[ChatResponseUpdate] = start(messages=messages, options=options)
        self.passes_through = False  # no more retrying here: `updates` are handed out as is

    def __aiter__(self) -> AsyncIterator[ChatResponseUpdate]:
        return self

    def __anext__(self) -> Awaitable[ChatResponseUpdate]:
        if self.passes_through:
            return self.updates.__anext__()
        return self._next_before_answer()

    async def _next_before_answer(self) -> ChatResponseUpdate:
        try:
            update = await self.updates.__anext__()
        except ChatClientError as error:
            self.passes_through = True
            self.updates = _later_attempts(error, *self.call)
            return await self.updates.__anext__()
        except StopAsyncIteration:
            raise
        except BaseException:  # the caller stopped early: close the model's stream now
            await self.aclose()
            raise
        if update.contents:
            self.passes_through = True
        return update

    async def aclose(self) -> None:
        """Close the model's stream (for a caller that stops early)."""
        close = getattr(self.updates, "aclose", None)
        if close is not None:
            await close()


async def _later_attempts(
    failure: ChatClientError,
    policy: RetryPolicy,
    start: StreamStart,
    messages: list[Message],
    options: ChatOptions,
    client: object,
    started: float,
) -> AsyncIterator[ChatResponseUpdate]:
    """The updates of the attempts after the first failed with `failure` (none of its
    updates had contents): the first update with contents of the attempt that answers
    comes after one with the tokens the failed attempts were billed."""
    attempts = _Attempts(policy, client, started)
    error = failure
    while True:
        await attempts.wait_or_raise(error)
        updates = start(messages=messages, options=options)
        answered = 0
        try:
            async for update in updates:
                if update.contents:
                    if not answered and attempts.failed_usage:
                        yield usage_update(attempts.failed_usage, update)
                    answered += 1
                yield update
            return
        except ChatClientError as next_error:
            if answered and is_transient_error(next_error):
                raise interrupted(next_error, answered) from next_error
            if answered:
                raise
            error = next_error
        except BaseException:  # the caller stopped early: close the model's stream now
            close = getattr(updates, "aclose", None)
            if close is not None:
                await close()
            raise


def usage_update(usage: UsageDetails, first: ChatResponseUpdate) -> ChatResponseUpdate:
    """An update carrying the tokens failed attempts were billed, to go before `first`
    (the first update of the attempt that answered) in the same message."""
    return ChatResponseUpdate(
        contents=[Content("usage", usage_details=usage)],
        role=first.role,
        message_id=first.message_id,
    )


def _give_up(error: ChatClientError, why: str) -> None:
    # Said in the message itself: exception notes need Python 3.11.
    error.args = (f"{error}; gave up retrying {why}", *error.args[1:])
    _logger.warning(
        "chat call failed with %s%s; gave up retrying %s",
        type(error).__name__,
        _status(error),
        why,
    )
    raise error


def _log_retry(
    client: object, attempt: int, max_attempts: int, delay: float, error: ChatClientError
) -> None:
    detail = f": {error}" if is_sensitive_logging_enabled() else ""
    _logger.info(
        "chat call to %s failed with %s%s (attempt %d of %d)%s; retrying in %.2f s",
        getattr(client, "OTEL_PROVIDER_NAME", type(client).__name__),
        type(error).__name__,
        _status(error),
        attempt,
        max_attempts,
        detail,
        delay,
    )


def _status(error: ChatClientError) -> str:
    return f" (HTTP {error.status_code})" if error.status_code is not None else ""
