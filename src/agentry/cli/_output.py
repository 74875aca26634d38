"""How commands show a run: streamed text for people, JSON lines for scripts, and a
progress indicator on a terminal while nothing else is shown."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Generator
from typing import Any, TextIO

__all__ = ["Printer", "json_line"]

_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_PREVIEW = 200


def json_line(value: dict[str, Any]) -> str:
    """One line of JSON; values JSON cannot hold are written as text."""
    return json.dumps(value, default=str, ensure_ascii=False)


class Printer:
    """Writes the updates of runs to `out` (text or JSON lines) and notes to `err`.

    Args:
        out: Where answers go (stdout).
        err: Where tool activity, progress and notes go (stderr).
        json_mode: Write one JSON object per line to `out` instead of text.
        progress: Show a spinner on `err` while waiting (default: when `err` is a terminal
            and not in JSON mode).
    """

    def __init__(
        self, out: TextIO, err: TextIO, *, json_mode: bool, progress: bool | None = None
    ) -> None:
        self.out = out
        self.err = err
        self.json_mode = json_mode
        if progress is None:
            progress = not json_mode and _is_terminal(err)
        self.progress = progress
        self._line_open = False  # text was written without a newline yet
        self._spinner: asyncio.Task[None] | None = None
        self._spinner_shown = False
        self._label = ""

    # region agent runs

    def update(self, update: Any) -> None:
        """Show one `AgentResponseUpdate`."""
        for content in update.contents:
            self._content(content)

    def response(self, response: Any) -> None:
        """End a run: a newline after streamed text, or the final JSON object."""
        if self.json_mode:
            usage = response.usage_details
            self._emit(
                {
                    "type": "response",
                    "text": response.text,
                    "finish_reason": response.finish_reason,
                    "response_id": response.response_id,
                    "usage": dict(usage) if usage else None,
                }
            )
            return
        self._end_line()

    def _content(self, content: Any) -> None:
        kind = content.type
        if kind == "text":
            if self.json_mode:
                self._emit({"type": "text", "text": content.text})
            elif content.text:
                self._clear_spinner()
                self.out.write(content.text)
                self.out.flush()
                self._line_open = not content.text.endswith("\n")
        elif kind == "function_call":
            arguments = content.arguments
            if self.json_mode:
                self._emit(
                    {
                        "type": "tool_call",
                        "call_id": content.call_id,
                        "name": content.name,
                        "arguments": _jsonable_arguments(arguments),
                    }
                )
            else:
                shown = (
                    arguments if isinstance(arguments, str) else json_line(dict(arguments or {}))
                )
                self.note(f"→ {content.name}({_preview(shown)})")
                self._label = f"running {content.name}"
        elif kind == "function_result":
            if self.json_mode:
                self._emit(
                    {"type": "tool_result", "call_id": content.call_id, "result": content.result}
                )
            else:
                self.note(f"← {_preview(str(content.result))}")
                self._label = "thinking"
        elif kind == "function_approval_request":
            call = getattr(content, "function_call", None)
            name = getattr(call, "name", "a tool")
            if self.json_mode:
                self._emit({"type": "approval_request", "id": content.id, "name": name})
            else:
                self.note(f"! {name} needs approval")
        elif kind == "authorization_request":
            call = getattr(content, "function_call", None)
            name = getattr(call, "name", "the agent")
            if self.json_mode:
                self._emit(
                    {
                        "type": "authorization_request",
                        "id": content.id,
                        "name": name,
                        "scheme": content.scheme,
                        "flow": content.flow,
                        "url": content.uri,
                    }
                )
            else:
                self.note(f"! {name} needs authorization")
        elif kind == "error":
            if self.json_mode:
                self._emit({"type": "error", "message": content.message})
            else:
                self.note(f"error: {content.message}")
        elif kind == "text_reasoning" and self.json_mode:
            self._emit({"type": "reasoning", "text": content.text})

    # endregion

    # region workflow runs

    def workflow_event(self, event: object) -> None:
        """Show one workflow event: outputs on `out`, progress on `err`."""
        kind: str = getattr(event, "type", type(event).__name__)
        data = getattr(event, "data", None)
        executor_id = getattr(event, "executor_id", None)
        if self.json_mode:
            self._emit({"type": kind, "executor_id": executor_id, "data": data})
            return
        if kind == "output":
            self._clear_spinner()
            text = getattr(data, "text", None)
            self.out.write(f"{text if isinstance(text, str) else data}\n")
            self.out.flush()
        elif kind == "executor_invoked":
            self._label = f"{executor_id} working"
        elif kind in ("failed", "executor_failed", "warning"):
            self.note(f"{kind}: {data}")

    # endregion

    def note(self, text: str) -> None:
        """A line on `err` (tool activity, hints), never inside streamed text."""
        self._clear_spinner()
        self._end_line()
        self.err.write(text + "\n")
        self.err.flush()

    @contextlib.contextmanager
    def working(self, label: str = "thinking") -> Generator[None, None, None]:
        """Show a spinner on a terminal while the body runs and nothing else is shown."""
        self._label = label
        if self.progress:
            self._spinner = asyncio.get_running_loop().create_task(self._spin())
        try:
            yield
        finally:
            if self._spinner is not None:
                self._spinner.cancel()
                self._spinner = None
            self._clear_spinner()

    async def _spin(self) -> None:
        frame = 0
        while True:
            await asyncio.sleep(0.1)
            if self._line_open:
                continue  # never draw over streamed text
            self.err.write(f"\r{_FRAMES[frame % len(_FRAMES)]} {self._label}\x1b[K")
            self.err.flush()
            self._spinner_shown = True
            frame += 1

    def _clear_spinner(self) -> None:
        if self._spinner_shown:
            self.err.write("\r\x1b[K")
            self.err.flush()
            self._spinner_shown = False

    def _end_line(self) -> None:
        if self._line_open:
            self.out.write("\n")
            self.out.flush()
            self._line_open = False

    def _emit(self, value: dict[str, Any]) -> None:
        self.out.write(json_line(value) + "\n")
        self.out.flush()


def _jsonable_arguments(arguments: object) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
