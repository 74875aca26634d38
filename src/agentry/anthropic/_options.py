"""`AnthropicChatOptions`: chat options with the Messages API's own settings."""

from __future__ import annotations

from typing import Literal

from anthropic.types import CacheControlEphemeralParam, ThinkingConfigParam

from agentry.types import ChatOptions

__all__ = ["AnthropicChatOptions", "StructuredOutputMode"]

StructuredOutputMode = Literal["json_schema", "tool"]
"""How a `response_format` reaches the model: the API's JSON output format, or a tool the
model is made to call with the answer as its arguments."""


class AnthropicChatOptions(ChatOptions, total=False):
    """`ChatOptions` plus the settings only the Anthropic Messages API has.

    Example:
        >>> options: AnthropicChatOptions = {
        ...     "max_tokens": 4096,
        ...     "thinking": {"type": "enabled", "budget_tokens": 2048},
        ...     "cache_control": {"type": "ephemeral"},
        ... }
    """

    thinking: ThinkingConfigParam
    """Extended thinking: `{"type": "adaptive"}`, or `{"type": "enabled", "budget_tokens": n}`."""
    effort: Literal["low", "medium", "high", "xhigh", "max"]
    """How much effort the model puts into its answer (`output_config.effort`)."""
    cache_control: CacheControlEphemeralParam
    """Prompt caching of the whole request up to its last cacheable block."""
    top_k: int
    """Sample from the k likeliest tokens; sent only where sampling options are (see the
    client's `send_sampling_options`)."""
    service_tier: Literal["auto", "standard_only"]
    structured_output: StructuredOutputMode
    """Overrides the client's `structured_output` for this request."""
