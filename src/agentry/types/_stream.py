"""`ResponseStream`: an async stream of updates that also yields its final response."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Generator
from typing import Any, Generic, TypeVar

__all__ = ["ResponseStream"]

UpdateT = TypeVar("UpdateT")
FinalT = TypeVar("FinalT")


class ResponseStream(Generic[UpdateT, FinalT]):
    """Updates as they come, and the final response they fold into.

    Iterate it with `async for`, then (or instead) `await stream.get_final_response()`;
    awaiting the stream itself is the same as `get_final_response()`. A stream is consumed
    once.

    Example:
        >>> async def demo(agent):
        ...     stream = agent.run("Tell me a joke", stream=True)
        ...     async for update in stream:
        ...         print(update.text, end="")
        ...     return await stream.get_final_response()
    """

    __slots__ = ("_final", "_finalizer", "_finished", "_iterator", "_source", "updates")

    def __init__(
        self,
        updates: AsyncIterable[UpdateT],
        finalizer: Callable[[list[UpdateT]], FinalT],
    ) -> None:
        self._source = updates
        self._iterator: AsyncIterator[UpdateT] | None = None
        self._finalizer = finalizer
        self._finished = False
        self._final: FinalT | None = None
        self.updates: list[UpdateT] = []
        """The updates consumed so far."""

    @property
    def source(self) -> AsyncIterable[UpdateT]:
        """The async iterable of updates this stream reads and keeps."""
        return self._source

    def __aiter__(self) -> AsyncIterator[UpdateT]:
        return self

    async def __anext__(self) -> UpdateT:
        if self._finished:
            raise StopAsyncIteration
        if self._iterator is None:
            self._iterator = self._source.__aiter__()
        try:
            update = await self._iterator.__anext__()
        except StopAsyncIteration:
            self._finished = True
            raise
        except Exception as error:
            failure = self._failure(error)
            if failure is error:
                raise
            raise failure from error
        self.updates.append(update)
        return update

    def _failure(self, error: Exception) -> BaseException:
        """What to raise when reading the updates failed with `error` (by default,
        `error` itself)."""
        return error

    async def get_final_response(self) -> FinalT:
        """Consume what is left of the stream and return the final response."""
        if self._final is None:
            async for _ in self:
                pass
            self._final = self._finalizer(self.updates)
        return self._final

    def __await__(self) -> Generator[Any, None, FinalT]:
        return self.get_final_response().__await__()

    async def aclose(self) -> None:
        """Stop the stream early and release what produces it."""
        self._finished = True
        close = getattr(self._iterator, "aclose", None)
        if close is not None:
            await close()
