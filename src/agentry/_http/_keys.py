"""`BearerKeys`: the API keys a server accepts as `Authorization: Bearer KEY`."""

from __future__ import annotations

import hmac
from collections.abc import Sequence

from agentry._http._problem import HTTPProblem

__all__ = ["BearerKeys"]


class BearerKeys:
    """The keys callers may send; none means every caller is served.

    Args:
        keys: One key or several (to change keys without a moment where none works).

    Raises:
        ValueError: A key is empty.
    """

    def __init__(self, keys: str | Sequence[str] | None) -> None:
        listed = [keys] if isinstance(keys, str) else list(keys or ())
        if any(not key for key in listed):
            raise ValueError("an API key must not be empty")
        self._keys = [key.encode() for key in listed]

    def __bool__(self) -> bool:
        return bool(self._keys)

    def check(self, authorization: str | None) -> None:
        """Check an `Authorization` header.

        Raises:
            HTTPProblem: Keys are needed and the header has none that matches (401).
        """
        if not self._keys:
            return
        scheme, _, key = (authorization or "").partition(" ")
        given = key.strip().encode()
        # every key is compared, so the time taken does not tell which one came close
        matches = [hmac.compare_digest(given, known) for known in self._keys]
        if scheme.lower() != "bearer" or not any(matches):
            raise HTTPProblem(
                401,
                "a valid API key is needed: send it as 'Authorization: Bearer KEY'",
                code="invalid_api_key",
            )
