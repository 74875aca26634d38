"""Recorded HTTP exchanges: the file format shared by the recorder and the replay server.

A recording file is a JSON list of exchanges:

    {"request": {"method": "POST", "path": "/v1/chat/completions", "body": {...}},
     "response": {"status": 200, "body": {...}}}

A streamed response has `"sse": [event, ...]` instead of `"body"`: each event is the
JSON payload of one `data:` line (or a dict `{"event": name, "data": payload}`), and the
stream ends with `data: [DONE]` when `"done": true`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

__all__ = ["Exchange", "load_exchanges", "save_exchanges"]


@dataclass
class Exchange:
    """One request and the response it got."""

    method: str
    path: str
    status: int = 200
    body: Any = None
    sse: list[Any] | None = None
    done: bool = False
    request_body: Any = None
    headers: dict[str, str] = field(default_factory=dict[str, str])

    def to_dict(self) -> dict[str, Any]:
        """The exchange as a JSON-ready dict."""
        response: dict[str, Any] = {"status": self.status}
        if self.sse is not None:
            response["sse"] = self.sse
            response["done"] = self.done
        else:
            response["body"] = self.body
        if self.headers:
            response["headers"] = self.headers
        request: dict[str, Any] = {"method": self.method, "path": self.path}
        if self.request_body is not None:
            request["body"] = self.request_body
        return {"request": request, "response": response}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Exchange:
        """An exchange from :meth:`to_dict` output."""
        request = cast(dict[str, Any], data["request"])
        response = cast(dict[str, Any], data["response"])
        return cls(
            method=str(request.get("method", "POST")).upper(),
            path=str(request["path"]),
            status=int(response.get("status", 200)),
            body=response.get("body"),
            sse=response.get("sse"),
            done=bool(response.get("done", False)),
            request_body=request.get("body"),
            headers=dict(response.get("headers", {})),
        )


def load_exchanges(path: str | Path) -> list[Exchange]:
    """The exchanges of a recording file."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [Exchange.from_dict(item) for item in cast(list[dict[str, Any]], data)]


def save_exchanges(path: str | Path, exchanges: list[Exchange]) -> None:
    """Write exchanges to a recording file (replacing it)."""
    text = json.dumps([e.to_dict() for e in exchanges], indent=2, ensure_ascii=False)
    Path(path).write_text(text + "\n", encoding="utf-8")
