"""A durable agent whose usage limit a recovered run reaches (for `agentry worker`).

`shipper` may make two model requests per run. Its scripted model asks for `ship` (which
needs a person's approval), then for `log`, then would answer: a third request. Each
model and tool call is noted, with its process, in the SQLite file `$USAGE_APP_CALLS`.
The runs are in `$AGENTRY_DURABLE_DATABASE_URL`, read when `create_runtime` is called.
"""

from __future__ import annotations

import os

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import DurableRuntime
from agentry.types import ChatOptions, ChatResponse, Message, UsageLimits
from tests.call_log import note_call

CALLS_ENV = "USAGE_APP_CALLS"
LIMITS = UsageLimits(requests=2)


def note(kind: str) -> None:
    """Note a call of `kind` made by this process."""
    note_call(os.environ[CALLS_ENV], kind)


@tool(approval_mode="always_require")
def ship(order: int) -> str:
    """Ship an order."""
    note("ship")
    return f"order {order} shipped"


@tool
def log(text: str) -> str:
    """Write to the log."""
    note("log")
    return "logged"


async def model(messages: list[Message], options: ChatOptions) -> ChatResponse:
    del options
    note("model")
    results = [c for m in messages for c in m.contents if c.type == "function_result"]
    if not results:
        return ScriptedChatClient.function_call("ship", {"order": 7}, call_id="ship-7")
    if len(results) == 1:
        return ScriptedChatClient.function_call("log", {"text": "shipped 7"}, call_id="log-7")
    return ScriptedChatClient.reply("Order 7 is shipped.")


def create_runtime() -> DurableRuntime:
    runtime = DurableRuntime(takeover_after=None)
    client = ScriptedChatClient([model] * 10)
    runtime.register_agent(Agent(client, name="shipper", tools=[ship, log], usage_limits=LIMITS))
    return runtime
