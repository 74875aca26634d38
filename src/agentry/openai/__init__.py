"""Chat clients for the OpenAI APIs and every server that speaks them.

`OpenAIChatClient` uses the Responses API, `OpenAIChatCompletionClient` the Chat
Completions API. Both need the `openai` extra: `pip install 'agentry[openai]'`.
"""

from importlib.util import find_spec

from agentry.errors import MissingExtraError

if find_spec("openai") is None:  # pragma: no cover - only without the extra
    raise MissingExtraError("OpenAI clients", "openai")

from agentry.openai._chat_completion import OpenAIChatCompletionClient
from agentry.openai._responses import OpenAIChatClient

__all__ = ["OpenAIChatClient", "OpenAIChatCompletionClient"]
