"""`ReplayServer`: serves recorded exchanges over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from agentry.testing._exchanges import Exchange, load_exchanges

__all__ = ["ReplayServer"]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class ReplayServer:
    """An HTTP server that answers each request with the next recorded response for its
    method and path, and keeps the request bodies it received.

    Use it as a context manager; `url` is its base URL. A request with no recording left
    gets HTTP 599 with an explanation, and the test sees that error.

    Example:
        >>> with ReplayServer("tests/openai/recordings/chat_text.json") as server:
        ...     client = OpenAIChatCompletionClient(model="m", base_url=server.url + "/v1")
    """

    def __init__(self, exchanges: str | Path | Iterable[Exchange]) -> None:
        items = load_exchanges(exchanges) if isinstance(exchanges, (str, Path)) else exchanges
        self._queues: dict[tuple[str, str], deque[Exchange]] = defaultdict(deque)
        for exchange in items:
            self._queues[(exchange.method, exchange.path)].append(exchange)
        self.requests: list[tuple[str, str, Any]] = []
        """(method, path, JSON body) of every request received, in order."""
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of the requests received, in order."""
        return [body for _, _, body in self.requests]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        method, path = scope["method"], scope["path"]
        self.requests.append((method, path, json.loads(raw) if raw else None))
        queue = self._queues.get((method, path))
        if not queue:
            await _send_json(
                send, 599, {"error": {"message": f"no recording left for {method} {path}"}}
            )
            return
        exchange = queue.popleft()
        if exchange.sse is None:
            await _send_json(send, exchange.status, exchange.body, exchange.headers)
            return
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": exchange.status, "headers": headers})
        for event in exchange.sse:
            await send({"type": "http.response.body", "body": _sse_bytes(event), "more_body": True})
        tail = b"data: [DONE]\n\n" if exchange.done else b""
        await send({"type": "http.response.body", "body": tail, "more_body": False})

    def __enter__(self) -> ReplayServer:
        import uvicorn

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = uvicorn.Config(
            self, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        for _ in range(500):
            if self._server.started:
                break
            threading.Event().wait(0.01)
        else:
            raise RuntimeError("the replay server did not start within 5 seconds")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)

    async def __aenter__(self) -> ReplayServer:
        return await asyncio.to_thread(self.__enter__)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.__exit__, exc_type, exc, traceback)


async def _send_json(
    send: Send, status: int, body: Any, headers: dict[str, str] | None = None
) -> None:
    payload = json.dumps(body).encode()
    raw_headers = [(b"content-type", b"application/json")]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": payload})


def _sse_bytes(event: Any) -> bytes:
    if isinstance(event, dict) and set(event) == {"event", "data"}:  # pyright: ignore[reportUnknownArgumentType]
        return f"event: {event['event']}\ndata: {json.dumps(event['data'])}\n\n".encode()
    return f"data: {json.dumps(event)}\n\n".encode()
