"""The provider SDK client behind a chat client, and who closes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from agentry.clients._closing import ClosedOnExit

__all__ = ["HoldsSDKClient"]


class _Closable(Protocol):
    async def close(self) -> None: ...


SDK = TypeVar("SDK", bound=_Closable)


class HoldsSDKClient(ClosedOnExit, Generic[SDK]):
    """Mixin of the chat clients that call a provider through its SDK client (`client`).

    An SDK client the chat client built is its own: `aclose()`, or leaving `async with`,
    closes its connections, and the next call builds a fresh one, so a chat client that
    several agents share keeps working after one of them closes it. An SDK client passed
    in (`client=`) belongs to the caller, who closes it; `aclose()` leaves it open.
    """

    _sdk: SDK | None
    _build_sdk: Callable[[], SDK] | None

    def _hold_sdk(self, sdk: SDK, build: Callable[[], SDK] | None) -> None:
        """Call through `sdk`; `build` makes another after a close (`None`: the caller's)."""
        self._sdk = sdk
        self._build_sdk = build

    @property
    def client(self) -> SDK:
        """The SDK client that the calls go through."""
        sdk = self._sdk
        if sdk is None:  # closed by aclose(), which only closes one that can be built again
            sdk = self._sdk = self._build_sdk()  # pyright: ignore[reportOptionalCall]
        return sdk

    @client.setter
    def client(self, sdk: SDK) -> None:
        """Call through `sdk` from now on: the caller's, left open by `aclose()` (as is the
        client it replaces: `aclose()` before, to close one this chat client built)."""
        self._hold_sdk(sdk, None)

    @property
    def owns_client(self) -> bool:
        """Whether the chat client built its SDK client, and so closes it in `aclose()`."""
        return self._build_sdk is not None

    async def aclose(self) -> None:
        """Close the connections of the SDK client this chat client built (a later call
        builds a new one). An SDK client passed in as `client=` is left open."""
        sdk = self._sdk
        if sdk is None or self._build_sdk is None:
            return
        self._sdk = None
        await sdk.close()
