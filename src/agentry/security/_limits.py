"""`ResultSizeLimit`: a cap on what a tool result feeds back to the model."""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Annotated

from agentry.middleware import CallNext, FunctionInvocationContext, FunctionMiddleware
from agentry.tools import FunctionTool, tool_result_to_text

__all__ = ["ResultSizeLimit"]

READ_TOOL_RESULT = "read_tool_result"


class ResultSizeLimit(FunctionMiddleware):
    """Function middleware that cuts tool results longer than `max_chars` characters.

    A cut result ends with a marker saying how much was left out, so the model knows it
    saw only the start (and can ask for less: a narrower search, a smaller range).

    With `pageable=True` the limit also keeps the whole text of the last `keep` cut
    results and offers the model its `read_tool_result` tool from the first cut on: the
    marker names the result's id, and the tool returns the next `max_chars` characters
    from an offset. A result can be read only in the session whose call produced it.

    Args:
        max_chars: The most characters of a result the model gets.
        pageable: Keep cut results and offer the `read_tool_result` tool.
        keep: How many cut results to keep, newest first (older ones are forgotten).

    Example:
        >>> limit = ResultSizeLimit(max_chars=10_000, pageable=True)
        >>> limit.read_tool_result.name
        'read_tool_result'
    """

    def __init__(self, max_chars: int = 20_000, *, pageable: bool = False, keep: int = 32) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, not {max_chars}")
        if keep < 1:
            raise ValueError(f"keep must be at least 1, not {keep}")
        self.max_chars = max_chars
        self.pageable = pageable
        self.keep = keep
        self._kept: OrderedDict[str, tuple[str | None, str]] = OrderedDict()
        self._ids = itertools.count(1)
        self.read_tool_result = FunctionTool(
            func=self._read,
            name=READ_TOOL_RESULT,
            description="Read more of a tool result that was cut because it was too long.",
        )

    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        """Run the call, then cut its result if it is too long."""
        await call_next()
        if context.result is None or context.function is self.read_tool_result:
            return
        text = tool_result_to_text(context.result)
        if len(text) <= self.max_chars:
            return
        cut = len(text) - self.max_chars
        marker = (
            f"[... {cut} more characters cut: the result was {len(text)} characters, "
            f"over the limit of {self.max_chars}; ask for less]"
        )
        if self.pageable:
            result_id = self._keep(context, text)
            marker = (
                f"[... {cut} more characters cut: the result was {len(text)} characters; "
                f"call {READ_TOOL_RESULT}(result_id={result_id!r}, offset={self.max_chars}) "
                "to read on]"
            )
            context.add_tools([self.read_tool_result])
        context.result = f"{text[: self.max_chars]}\n{marker}"

    def _keep(self, context: FunctionInvocationContext, text: str) -> str:
        result_id = f"result-{next(self._ids)}"
        session_id = context.session.session_id if context.session else None
        self._kept[result_id] = (session_id, text)
        while len(self._kept) > self.keep:
            self._kept.popitem(last=False)
        return result_id

    def _read(
        self,
        result_id: Annotated[str, "The id the cut result's marker names"],
        offset: Annotated[int, "Where to start reading, in characters from the start"],
        context: FunctionInvocationContext,
    ) -> str:
        session_id = context.session.session_id if context.session else None
        kept = self._kept.get(result_id)
        if kept is None or kept[0] != session_id:
            known = ", ".join(k for k, (s, _) in self._kept.items() if s == session_id)
            return f"Error: no kept result {result_id!r}. Kept results: {known or 'none'}."
        text = kept[1]
        if not 0 <= offset < len(text):
            return f"Error: offset must be from 0 to {len(text) - 1}, not {offset}."
        end = offset + self.max_chars
        page = text[offset:end]
        if end < len(text):
            return (
                f"{page}\n[... {len(text) - end} more characters: call {READ_TOOL_RESULT}"
                f"(result_id={result_id!r}, offset={end}) to read on]"
            )
        return f"{page}\n[end of result {result_id}]"
