"""Token usage of the OpenAI APIs in agentry's terms."""

from __future__ import annotations

from typing import Any, cast

from agentry.types import UsageDetails

__all__ = ["usage_details"]


def usage_details(
    input_tokens: int | None,
    output_tokens: int | None,
    total_tokens: int | None,
    *,
    input_details: Any = None,
    output_details: Any = None,
) -> UsageDetails | None:
    """Usage in agentry's terms, or `None` when the service reported none.

    The provider's token details add `reasoning_token_count` and
    `cached_input_token_count` where it reports them.
    """
    if input_tokens is None and output_tokens is None and total_tokens is None:
        return None
    usage = UsageDetails()
    if input_tokens is not None:
        usage["input_token_count"] = input_tokens
    if output_tokens is not None:
        usage["output_token_count"] = output_tokens
    if total_tokens is not None:
        usage["total_token_count"] = total_tokens
    extra = cast(dict[str, Any], usage)
    reasoning = getattr(output_details, "reasoning_tokens", None)
    if isinstance(reasoning, int):
        extra["reasoning_token_count"] = reasoning
    cached = getattr(input_details, "cached_tokens", None)
    if isinstance(cached, int):
        extra["cached_input_token_count"] = cached
    return usage
