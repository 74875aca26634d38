"""Test helpers: an HTTP server that replays recorded model exchanges offline.

The recorder that writes such files lives in `agentry.testing.recording` (it needs the
`openai` extra).
"""

from agentry.testing._exchanges import load_exchanges, save_exchanges
from agentry.testing._replay_server import ReplayServer

__all__ = ["ReplayServer", "load_exchanges", "save_exchanges"]
