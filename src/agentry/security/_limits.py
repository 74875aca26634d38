"""`ResultSizeLimit`: a cap on what a tool result feeds back to the model."""

from __future__ import annotations

from agentry.middleware import FunctionInvocationContext, FunctionMiddleware
from agentry.middleware._base import CallNext
from agentry.tools import tool_result_to_text

__all__ = ["ResultSizeLimit"]


class ResultSizeLimit(FunctionMiddleware):
    """Function middleware that cuts tool results longer than `max_chars` characters.

    A cut result ends with a marker saying how much was left out, so the model knows it
    saw only the start (and can ask for less: a narrower search, a smaller range).

    Args:
        max_chars: The most characters of a result the model gets.

    Example:
        >>> limit = ResultSizeLimit(max_chars=10_000)
    """

    def __init__(self, max_chars: int = 20_000) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, not {max_chars}")
        self.max_chars = max_chars

    async def process(self, context: FunctionInvocationContext, call_next: CallNext) -> None:
        """Run the call, then cut its result if it is too long."""
        await call_next()
        if context.result is None:
            return
        text = tool_result_to_text(context.result)
        if len(text) <= self.max_chars:
            return
        cut = len(text) - self.max_chars
        context.result = (
            f"{text[: self.max_chars]}\n[... {cut} more characters cut: the result was "
            f"{len(text)} characters, over the limit of {self.max_chars}; ask for less]"
        )
