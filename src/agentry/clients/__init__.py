"""Chat clients: the model boundary.

Model clients live in their own packages (`agentry.openai`, `agentry.local`); the scripted
test double is `agentry.clients.scripted.ScriptedChatClient`.
"""

from agentry.clients._base import BaseChatClient
from agentry.clients.scripted import RecordedCall, ScriptedChatClient
from agentry.protocols import SupportsChatGetResponse

__all__ = ["BaseChatClient", "RecordedCall", "ScriptedChatClient", "SupportsChatGetResponse"]
