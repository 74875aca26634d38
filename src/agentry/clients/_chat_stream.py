"""A chat client's stream, and what a stream that breaks after part of the answer raises.

A stream is started again only while none of the answer (no update with contents) has
reached the caller. Once some has, whoever reads the stream turns a transient failure
into `StreamInterruptedError` (`stream_break`): a `ChatResponseStream` does it for the
caller of `get_response(..., stream=True)`, an agent's run loop for the streams it reads
itself. `RetriedStream` then hands out the model's updates as they come, without a step
of its own per update.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentry.errors import ChatClientError, StreamInterruptedError
from agentry.types import ChatResponse, ChatResponseUpdate, ResponseStream, is_transient_error

__all__ = ["ChatResponseStream", "interrupted", "stream_break"]


class ChatResponseStream(ResponseStream[ChatResponseUpdate, ChatResponse]):
    """The updates of one streamed model call, and the response they fold into.

    Raises:
        StreamInterruptedError: The stream failed transiently after part of the answer
            reached the caller (see `stream_break`).
    """

    __slots__ = ()

    def _failure(self, error: Exception) -> BaseException:
        return stream_break(error, self.updates)


def stream_break(error: BaseException, received: Sequence[ChatResponseUpdate]) -> BaseException:
    """What a stream that failed with `error` after passing on `received` raises: a
    `StreamInterruptedError` caused by `error` when the failure is transient and part of
    the answer (an update with contents) was received, else `error` itself.
    """
    if not is_transient_error(error):
        return error
    answered = sum(1 for update in received if update.contents)
    if not answered:
        return error
    broken = interrupted(error, answered)  # pyright: ignore[reportArgumentType]  # transient: a ChatClientError
    broken.__cause__ = error
    return broken


def interrupted(error: ChatClientError, answered: int) -> StreamInterruptedError:
    """The error of a stream that failed transiently with `error` after `answered`
    updates with contents reached the caller."""
    return StreamInterruptedError(
        f"the model's stream broke off after {answered} updates with contents "
        f"({type(error).__name__}: {error}); it is not restarted because the caller "
        "already has part of the answer: run the call again to get a whole one",
        updates_received=answered,
        status_code=error.status_code,
    )
