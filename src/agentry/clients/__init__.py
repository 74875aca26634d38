"""Chat clients: the model boundary.

Model clients live in their own packages (`agentry.openai`, `agentry.anthropic`,
`agentry.local`); the scripted test double is `agentry.clients.scripted.ScriptedChatClient`;
`FallbackChatClient` asks several clients in turn; `HoldsSDKClient` closes a provider
client's own SDK client.
What provider clients share is here too: `agentry.clients.wire_format` (tools, tool choices,
response formats) and `agentry.clients.sdk_errors` (SDK errors as `ChatClientError`s).
"""

from agentry.clients._base import BaseChatClient, checked_responder, checked_streamer
from agentry.clients._chat_stream import ChatResponseStream, stream_break
from agentry.clients._fallback import ANSWERED_BY, FallbackChatClient, FallbackOn
from agentry.clients._sdk_client import HoldsSDKClient
from agentry.clients.scripted import RecordedCall, ScriptedChatClient
from agentry.protocols import SupportsChatGetResponse

__all__ = [
    "ANSWERED_BY",
    "BaseChatClient",
    "ChatResponseStream",
    "FallbackChatClient",
    "FallbackOn",
    "HoldsSDKClient",
    "RecordedCall",
    "ScriptedChatClient",
    "SupportsChatGetResponse",
    "checked_responder",
    "checked_streamer",
    "stream_break",
]
