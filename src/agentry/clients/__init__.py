"""Chat clients: the model boundary.

Model clients live in their own packages (`agentry.openai`, `agentry.anthropic`,
`agentry.local`); the scripted test double is `agentry.clients.scripted.ScriptedChatClient`.
What provider clients share is here too: `agentry.clients.wire_format` (tools, tool choices,
response formats) and `agentry.clients.sdk_errors` (SDK errors as `ChatClientError`s).
"""

from agentry.clients._base import BaseChatClient
from agentry.clients.scripted import RecordedCall, ScriptedChatClient
from agentry.protocols import SupportsChatGetResponse

__all__ = ["BaseChatClient", "RecordedCall", "ScriptedChatClient", "SupportsChatGetResponse"]
