"""Recorded HTTP exchanges: the JSON files the replay server serves and the recorder writes.

A recording file holds `{"exchanges": [...]}`; each exchange is

    {"request": {"method": "POST", "path": "/v1/chat/completions", "body": {...}},
     "response": {"status": 200, "headers": {...}, "body": {...}}}

or, for a streamed answer, `"response": {"status": 200, "events": [...]}` where each
server-sent event is `{"event": "response.created", "data": {...}}` (`event` optional,
`data` a JSON value or a plain string such as `"[DONE]"`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from agentry.errors import SerializationError

__all__ = ["format_sse", "load_exchanges", "parse_sse", "save_exchanges"]


def load_exchanges(path: str | Path) -> list[dict[str, Any]]:
    """The exchanges of a recording file.

    Raises:
        SerializationError: The file is not a recording.
    """
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SerializationError(f"{file} is not valid JSON: {error}") from None
    document = cast("dict[str, Any]", data) if isinstance(data, dict) else {}
    exchanges: Any = document.get("exchanges")
    if not isinstance(exchanges, list):
        raise SerializationError(f'{file} is not a recording: expected {{"exchanges": [...]}}')
    checked = cast("list[Any]", exchanges)
    for index, exchange in enumerate(checked):
        if not isinstance(exchange, dict) or not {"request", "response"} <= set(
            cast("dict[str, Any]", exchange)
        ):
            raise SerializationError(
                f"exchange {index} of {file} needs a 'request' and a 'response' object"
            )
    return cast("list[dict[str, Any]]", checked)


def save_exchanges(path: str | Path, exchanges: list[dict[str, Any]]) -> None:
    """Write `exchanges` to a recording file (atomically: a crash leaves the old file)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    temporary = file.with_name(file.name + ".tmp")
    temporary.write_text(
        json.dumps({"exchanges": exchanges}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    temporary.replace(file)


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Server-sent events text as a list of `{"event": ..., "data": ...}` dicts."""
    events: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        event: dict[str, Any] = {}
        data_lines: list[str] = []
        for line in block.split("\n"):
            if line.startswith("event:"):
                event["event"] = line[6:].strip()
            elif line.startswith("data:"):
                data_lines.append(line[5:].lstrip())
        if not data_lines:
            continue
        data = "\n".join(data_lines)
        try:
            event["data"] = json.loads(data)
        except json.JSONDecodeError:
            event["data"] = data
        events.append(event)
    return events


def format_sse(events: list[dict[str, Any]]) -> list[bytes]:
    """The wire form of each event of a recording."""
    chunks: list[bytes] = []
    for event in events:
        data = event.get("data")
        line = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        prefix = f"event: {event['event']}\n" if event.get("event") else ""
        chunks.append(f"{prefix}data: {line}\n\n".encode())
    return chunks
