"""An agent run served over MCP, reported as progress: one notification per step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession

    from agentry.types import AgentResponseUpdate

__all__ = ["RunProgress", "wants_progress"]


def wants_progress(context: ServerRequestContext[Any]) -> bool:
    """Whether the client asked for progress on this request (it sent a progress token)."""
    metas: list[Any] = [context.meta]
    if isinstance(context.params, Mapping):
        metas.append(context.params.get("_meta"))
    return any(
        isinstance(meta, Mapping)
        and any(key in meta for key in ("progressToken", "progress_token"))
        for meta in metas
    )


class RunProgress:
    """Reports the steps of one agent run: each tool call it starts (`calling NAME`) and
    each result it gets (`NAME done`); the progress counts steps, with no total.

    Args:
        session: The session of the request the run answers.
    """

    def __init__(self, session: ServerSession) -> None:
        self.session = session
        self.steps = 0
        self._calls: dict[str, str] = {}

    async def note(self, update: AgentResponseUpdate) -> None:
        """Report what `update` shows the run doing, if anything."""
        for content in update.contents:
            call_id = content.call_id or ""
            if content.type == "function_call" and content.name and call_id not in self._calls:
                self._calls[call_id] = content.name
                await self._report(f"calling {content.name}")
            elif content.type == "function_result":
                await self._report(f"{self._calls.get(call_id, 'a tool')} done")

    async def _report(self, message: str) -> None:
        self.steps += 1
        await self.session.report_progress(self.steps, None, message)
