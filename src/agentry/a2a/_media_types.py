"""An ASGI guard giving the HTTP+JSON binding its `415 Unsupported Media Type` answers.

The A2A protocol answers a content type it does not support with HTTP 415 on the
HTTP+JSON binding: a request body that is not JSON, and a message part whose media type
is not among the agent's input modes (the SDK reports that one as 400).
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any, cast

from a2a.utils.error_handlers import build_rest_error_payload
from a2a.utils.errors import ContentTypeNotSupportedError

from agentry.a2a._limits import ASGIApp, Receive, Scope, Send

__all__ = ["UnsupportedMediaTypeGuard"]

_REASON = "CONTENT_TYPE_NOT_SUPPORTED"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_UNSUPPORTED = 415


class UnsupportedMediaTypeGuard:
    """Answers 415 on the HTTP+JSON binding for content types it cannot take.

    Requests to `jsonrpc_path` pass untouched: JSON-RPC reports errors in its own objects.
    """

    def __init__(self, app: ASGIApp, *, jsonrpc_path: str = "/") -> None:
        self.app = app
        self.jsonrpc_path = jsonrpc_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") == self.jsonrpc_path:
            await self.app(scope, receive, send)
            return
        if scope.get("method") in _BODY_METHODS:
            declared = _header(scope, b"content-type")
            if declared is not None and not _is_json(declared):
                await _refuse(send, declared)
                return
        await self.app(scope, receive, _UnsupportedPartStatus(send))


class _UnsupportedPartStatus:
    """Passes a response on, turning a 400 for an unsupported content type into 415."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._held: MutableMapping[str, Any] | None = None

    async def __call__(self, message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start" and message.get("status") == 400:
            self._held = message  # the status depends on the body that follows
            return
        held, self._held = self._held, None
        if held is not None and message["type"] == "http.response.body":
            payload = _unsupported_content_error(message)
            if payload is not None:
                payload["error"]["code"] = _UNSUPPORTED
                body = json.dumps(payload).encode()
                headers = [(k, v) for k, v in held.get("headers", []) if k != b"content-length"]
                headers.append((b"content-length", str(len(body)).encode()))
                held = {**held, "status": _UNSUPPORTED, "headers": headers}
                message = {**message, "body": body}
        if held is not None:
            await self._send(held)
        await self._send(message)


def _header(scope: Scope, name: bytes) -> str | None:
    headers = cast("list[tuple[bytes, bytes]]", scope.get("headers") or [])
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _is_json(content_type: str) -> bool:
    essence = content_type.split(";", 1)[0].strip().lower()
    return essence == "application/json" or essence.endswith("+json")


def _unsupported_content_error(message: MutableMapping[str, Any]) -> dict[str, Any] | None:
    """The error payload of a whole response body reporting an unsupported content type."""
    if message.get("more_body", False):
        return None
    try:
        payload = cast("dict[str, Any]", json.loads(message.get("body", b"")))
        details = cast("list[dict[str, Any]]", payload["error"]["details"])
        reason = details[0]["reason"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return payload if reason == _REASON else None


async def _refuse(send: Send, declared: str) -> None:
    error = ContentTypeNotSupportedError(
        message=(
            f"Unsupported media type {declared!r}: send the request body as JSON "
            "(Content-Type: application/json or application/a2a+json)"
        )
    )
    payload = build_rest_error_payload(error)
    payload["error"]["code"] = _UNSUPPORTED
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": _UNSUPPORTED,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
