"""An ASGI guard that turns away request bodies larger than a limit."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["BodySizeLimit"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_INVALID_REQUEST = -32600


class BodySizeLimit:
    """Answers HTTP 413 with a protocol error when a request body exceeds `max_bytes`.

    JSON-RPC requests (posted to `jsonrpc_path`) get a JSON-RPC error object; other
    requests get the HTTP+JSON binding's error object.
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int, jsonrpc_path: str = "/") -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.jsonrpc_path = jsonrpc_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(scope, send)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body.extend(message.get("body", b""))
            more = bool(message.get("more_body", False))
            if len(body) > self.max_bytes:
                await self._reject(scope, send)
                return
        replayed = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _reject(self, scope: Scope, send: Send) -> None:
        text = (
            f"Payload too large: the request body exceeds {self.max_bytes} bytes; "
            "send a smaller message or pass files by URL"
        )
        if scope.get("path") == self.jsonrpc_path:
            payload: dict[str, object] = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": _INVALID_REQUEST, "message": text},
            }
        else:
            payload = {"error": {"code": 413, "status": "INVALID_ARGUMENT", "message": text}}
        body = json.dumps(payload).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
