"""`RecordingTransport`: records real HTTP exchanges to a file for later replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2 as httpx

from agentry.testing._exchanges import Exchange, save_exchanges

__all__ = ["RecordingTransport"]


class RecordingTransport(httpx.AsyncBaseTransport):
    """An HTTP transport (for `httpx2`, the HTTP client of the `openai` and `anthropic`
    SDKs) that passes requests on and records each exchange.

    Give it to the SDK's HTTP client, run the calls, then `save()`:

    Example:
        >>> import httpx2, openai
        >>> transport = RecordingTransport("recordings/chat.json")
        >>> sdk = openai.AsyncOpenAI(http_client=httpx2.AsyncClient(transport=transport))
        >>> # ... make calls, then: transport.save()

    Server-sent event streams are stored event by event, so the replay streams them too.
    """

    def __init__(self, path: str | Path, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.path = Path(path)
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.exchanges: list[Exchange] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        content = await response.aread()
        body = request.content
        exchange = Exchange(
            method=request.method,
            path=request.url.path,
            status=response.status_code,
            request_body=json.loads(body) if body else None,
        )
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            exchange.sse, exchange.done = _parse_sse(content.decode())
        else:
            exchange.body = json.loads(content) if content else None
        self.exchanges.append(exchange)
        return httpx.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )

    def save(self) -> None:
        """Write what was recorded so far."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        save_exchanges(self.path, self.exchanges)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _parse_sse(text: str) -> tuple[list[Any], bool]:
    events: list[Any] = []
    done = False
    for block in text.split("\n\n"):
        name = None
        data_lines: list[str] = []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data_lines.append(line[5:].strip())
        if not data_lines:
            continue
        data = "\n".join(data_lines)
        if data == "[DONE]":
            done = True
            continue
        payload = json.loads(data)
        events.append({"event": name, "data": payload} if name else payload)
    return events, done
