"""The Anthropic chat client, on the official `anthropic` SDK (the `anthropic` extra).

`AnthropicChatClient` speaks the Messages API: Anthropic's own, or any server that serves
it, such as llama.cpp's `llama-server` (point `base_url` at it).

Example:
    >>> from agentry import Agent
    >>> from agentry.anthropic import AnthropicChatClient
    >>> agent = Agent(client=AnthropicChatClient(model="claude-sonnet-5-5", api_key="sk-ant-..."))
"""

try:
    import anthropic  # noqa: F401  # pyright: ignore[reportUnusedImport]  # the extra must be installed
except ImportError as error:  # pragma: no cover - exercised without the extra
    from agentry.errors import MissingExtraError

    raise MissingExtraError("The Anthropic client", "anthropic") from error

from agentry.anthropic._client import AnthropicChatClient
from agentry.anthropic._options import AnthropicChatOptions, StructuredOutputMode

__all__ = ["AnthropicChatClient", "AnthropicChatOptions", "StructuredOutputMode"]
