"""Record real HTTP exchanges of the OpenAI SDK to files the `ReplayServer` serves.

Needs the `openai` extra (the SDK's HTTP library). Example:

    >>> from agentry.testing.recording import RecordingTransport
    >>> recorder = RecordingTransport()
    >>> # client = OpenAIChatClient("gpt-4.1-mini", http_client=recorder.http_client())
    >>> # ... run the client against the real service ...
    >>> # recorder.save("tests/recordings/my_exchange.json")
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from agentry.testing._exchanges import parse_sse, save_exchanges

__all__ = ["RecordingTransport"]

_DROPPED_HEADERS = frozenset(
    {"content-encoding", "content-length", "transfer-encoding", "connection", "set-cookie"}
)
"""The body is stored decoded and replayed whole, so framing headers no longer apply;
cookies are never written to a recording."""

_KEPT_HEADERS = frozenset({"retry-after", "x-request-id", "openai-processing-ms"})


class RecordingTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport that passes requests on and keeps every exchange for `save()`.

    Request headers are never recorded (they hold the API key); request and response
    bodies are, so record only what may be shared.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        """Create a recorder.

        Args:
            inner: The transport that really sends requests (a new
                `httpx2.AsyncHTTPTransport` when not given).
        """
        self.inner = inner or httpx2.AsyncHTTPTransport()
        self.exchanges: list[dict[str, Any]] = []

    def http_client(self) -> httpx2.AsyncClient:
        """An HTTP client for the OpenAI clients' `http_client=` argument."""
        import openai

        return openai.DefaultAsyncHttpxClient(transport=self)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send `request`, record the exchange, and return the response, read whole."""
        response = await self.inner.handle_async_request(request)
        content = await response.aread()
        await response.aclose()
        self.exchanges.append(_exchange(request, response, content))
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in _DROPPED_HEADERS]
        return httpx2.Response(
            response.status_code, headers=headers, content=content, request=request
        )

    def save(self, path: str | Path) -> None:
        """Write the exchanges recorded so far to a recording file."""
        save_exchanges(path, self.exchanges)

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self.inner.aclose()


def _exchange(request: httpx2.Request, response: httpx2.Response, content: bytes) -> dict[str, Any]:
    request_body = _json_or_text(request.content)
    recorded: dict[str, Any] = {"status": response.status_code}
    kept = {k: v for k, v in response.headers.items() if k.lower() in _KEPT_HEADERS}
    if kept:
        recorded["headers"] = kept
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        recorded["events"] = parse_sse(content.decode("utf-8"))
    else:
        recorded["body"] = _json_or_text(content)
    path = request.url.raw_path.decode("ascii")
    return {
        "request": {"method": request.method, "path": path, "body": request_body},
        "response": recorded,
    }


def _json_or_text(content: bytes) -> Any:
    if not content:
        return None
    try:
        return json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return content.decode("utf-8", errors="replace")
