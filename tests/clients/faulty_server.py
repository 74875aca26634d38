"""A real HTTP server on 127.0.0.1 that answers requests in order from a list, and can
drop a connection in the middle of a streamed answer, as a failing network does.

It speaks just enough HTTP/1.1 for the `openai` SDK: one request at a time per
connection, JSON answers with a length, streamed (SSE) answers chunked.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from agentry.testing import Exchange

__all__ = ["Drop", "FaultyServer"]


@dataclass
class Drop:
    """Answer with `exchange`'s stream, but close the connection after `after` events."""

    exchange: Exchange
    after: int


class FaultyServer:
    """Serves `answers` to the requests it gets, one each, in order; once they run out it
    answers HTTP 599."""

    def __init__(self, answers: Iterable[Exchange | Drop]) -> None:
        self._answers: deque[Exchange | Drop] = deque(answers)
        self.requests: list[tuple[str, Any]] = []
        self.open_connections = 0
        """The connections clients hold open now."""
        self._connections_changed = asyncio.Condition()
        self._server: asyncio.Server | None = None
        self.url = ""

    async def __aenter__(self) -> FaultyServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def all_connections_closed(self) -> None:
        """Return once no client holds a connection open."""
        async with self._connections_changed:
            await self._connections_changed.wait_for(lambda: self.open_connections == 0)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open_connections += 1
        try:
            while await self._answer_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            self.open_connections -= 1
            async with self._connections_changed:
                self._connections_changed.notify_all()

    async def _answer_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; whether the connection stays open for another."""
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in header_lines if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        path = request_line.split(" ")[1]
        self.requests.append((path, json.loads(body) if body else None))
        answer = self._answers.popleft() if self._answers else None
        if answer is None:
            error = {"error": {"message": f"no answer left for {path}"}}
            writer.write(_json_answer(599, error, {}))
        elif isinstance(answer, Drop):
            writer.write(_stream_head(answer.exchange.status))
            for event in (answer.exchange.sse or [])[: answer.after]:
                writer.write(_chunk(_sse_bytes(event)))
            await writer.drain()
            writer.transport.abort()  # no final chunk: the answer is cut short
            return False
        elif answer.sse is None:
            writer.write(_json_answer(answer.status, answer.body, answer.headers))
        else:
            writer.write(_stream_head(answer.status))
            for event in answer.sse:
                writer.write(_chunk(_sse_bytes(event)))
            if answer.done:
                writer.write(_chunk(b"data: [DONE]\n\n"))
            writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


def _json_answer(status: int, body: Any, headers: dict[str, str]) -> bytes:
    payload = json.dumps(body).encode()
    lines = [
        f"HTTP/1.1 {status} Answer",
        "content-type: application/json",
        f"content-length: {len(payload)}",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return "\r\n".join(lines).encode() + b"\r\n\r\n" + payload


def _stream_head(status: int) -> bytes:
    return (
        f"HTTP/1.1 {status} Answer\r\ncontent-type: text/event-stream\r\n"
        "transfer-encoding: chunked\r\n\r\n"
    ).encode()


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _sse_bytes(event: Any) -> bytes:
    if isinstance(event, dict) and set(event) == {"event", "data"}:  # pyright: ignore[reportUnknownArgumentType]
        return f"event: {event['event']}\ndata: {json.dumps(event['data'])}\n\n".encode()
    return f"data: {json.dumps(event)}\n\n".encode()
