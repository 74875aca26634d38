"""OpenAI chat clients, on the official `openai` SDK (the `openai` extra).

`OpenAIChatClient` speaks the Responses API; `OpenAIChatCompletionClient` speaks Chat
Completions, which most OpenAI-compatible servers serve too (point `base_url` at them,
or name one: `OpenAIChatCompletionClient.for_provider("ollama", model="qwen2.5")`, see
`agentry.openai.providers`).

Example:
    >>> from agentry import Agent
    >>> from agentry.openai import OpenAIChatClient
    >>> agent = Agent(client=OpenAIChatClient(model="gpt-4.1", api_key="sk-..."))
"""

try:
    import openai  # noqa: F401  # pyright: ignore[reportUnusedImport]  # the extra must be installed
except ImportError as error:  # pragma: no cover - exercised without the extra
    from agentry.errors import MissingExtraError

    raise MissingExtraError("The OpenAI clients", "openai") from error

from agentry.openai._chat_completion import MaxTokensParameter, OpenAIChatCompletionClient
from agentry.openai._responses import OpenAIChatClient

__all__ = ["MaxTokensParameter", "OpenAIChatClient", "OpenAIChatCompletionClient"]
