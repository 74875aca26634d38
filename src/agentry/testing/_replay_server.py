"""`ReplayServer`: an HTTP server on 127.0.0.1 that answers with recorded exchanges."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from typing_extensions import Self

from agentry.testing._exchanges import format_sse, load_exchanges

__all__ = ["ReplayServer"]


class ReplayServer:
    """Serves recorded exchanges, in order, to real HTTP clients such as the OpenAI SDK.

    Each request must match the next exchange's method and path; the server answers with
    that exchange's recorded status, headers and body (or server-sent events). What it
    received is kept in `requests` so tests can check what a client sent.

    Example:
        >>> exchanges = [{"request": {"method": "GET", "path": "/v1/models"},
        ...               "response": {"status": 200, "body": {"data": []}}}]
        >>> with ReplayServer(exchanges) as server:
        ...     server.base_url.startswith("http://127.0.0.1:")
        True
    """

    def __init__(self, exchanges: list[dict[str, Any]], *, api_prefix: str = "/v1") -> None:
        """Create a server (not yet listening; use it as a context manager or `start()`).

        Args:
            exchanges: The exchanges to serve, in order (see `load_exchanges`).
            api_prefix: The path `base_url` ends in.
        """
        self.exchanges = exchanges
        self.requests: list[dict[str, Any]] = []
        self.failures: list[str] = []
        self._api_prefix = api_prefix
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """A server for the exchanges of a recording file."""
        return cls(load_exchanges(path))

    @property
    def base_url(self) -> str:
        """The URL to give a client as its base URL, such as `http://127.0.0.1:4321/v1`."""
        if self._server is None:
            raise RuntimeError("the replay server is not running; call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self._api_prefix}"

    @property
    def remaining(self) -> int:
        """How many exchanges have not been served yet."""
        return len(self.exchanges) - len(self.requests)

    def start(self) -> None:
        """Listen on a free port of 127.0.0.1 in a background thread."""
        handler = type("_BoundHandler", (_ReplayHandler,), {"replay": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},  # stop() waits up to one poll
            name="agentry-replay-server",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def next_exchange(self, method: str, path: str, body: Any) -> dict[str, Any] | str:
        """Record a request; the exchange that answers it, or why none does."""
        with self._lock:
            index = len(self.requests)
            self.requests.append({"method": method, "path": path, "body": body})
            if index >= len(self.exchanges):
                failure = f"request {index} ({method} {path}) came after all exchanges were served"
            else:
                exchange = self.exchanges[index]
                expected = cast("dict[str, Any]", exchange["request"])
                if (expected.get("method", "POST"), expected.get("path")) == (method, path):
                    return exchange
                failure = (
                    f"request {index} was {method} {path}, but the recording expects "
                    f"{expected.get('method', 'POST')} {expected.get('path')}"
                )
            self.failures.append(failure)
            return failure


class _ReplayHandler(BaseHTTPRequestHandler):
    replay: ReplayServer

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def do_DELETE(self) -> None:
        self._answer()

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", errors="replace")
        exchange = self.replay.next_exchange(self.command, self.path, body)
        if isinstance(exchange, str):
            self._send_json(599, {"error": {"message": f"replay server: {exchange}"}}, {})
            return
        response = cast("dict[str, Any]", exchange["response"])
        status = int(response.get("status", 200))
        headers = cast("dict[str, str]", response.get("headers") or {})
        events = response.get("events")
        if events is None:
            self._send_json(status, response.get("body"), headers)
        else:
            self._send_events(status, cast("list[dict[str, Any]]", events), headers)

    def _send_json(self, status: int, body: Any, headers: dict[str, str]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _send_events(
        self, status: int, events: list[dict[str, Any]], headers: dict[str, str]
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        for chunk in format_sse(events):
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read `requests` and `failures` instead of a log."""
