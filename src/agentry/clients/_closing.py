"""Leaving `async with` on a client closes it."""

from __future__ import annotations

from types import TracebackType

from typing_extensions import Self

__all__ = ["ClosedOnExit"]


class ClosedOnExit:
    """Mixin: `async with client:` returns the client and calls its `aclose()` at the end."""

    async def aclose(self) -> None:
        """Close what the client holds open."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
