"""A durable cashier for the A2A resume tests (served by `agentry serve a2a --durable`).

The scripted model asks for `charge`, then answers with the tool's result. Every model and
tool call is noted, with its process, in the SQLite file `$DURABLE_APP_CALLS`. With
`$DURABLE_APP_BLOCK` set, the final model call notes `blocked` and never returns: a server
killed then has the tool call completed and the final model call under way.

`refunds` asks for `refund`, which waits for a person's approval, and answers the user's
next message; with `$DURABLE_APP_BLOCK` set, that answer never comes.
"""

from __future__ import annotations

import asyncio
import os

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.types import ChatOptions, ChatResponse, Message
from tests.call_log import note_call

CALLS_ENV = "DURABLE_APP_CALLS"
BLOCK_ENV = "DURABLE_APP_BLOCK"


def note(kind: str) -> None:
    """Note a call of `kind` made by this process."""
    note_call(os.environ[CALLS_ENV], kind)


async def block_if_asked() -> None:
    """With `$DURABLE_APP_BLOCK` set, note `blocked` and never return."""
    if os.environ.get(BLOCK_ENV):
        note("blocked")
        await asyncio.Event().wait()  # under way until the server is killed


@tool
def charge(cents: int) -> str:
    """Charge the customer."""
    note("tool")
    return f"charged {cents} cents"


async def model(messages: list[Message], options: ChatOptions) -> ChatResponse:
    del options
    note("model")
    results = [c for m in messages for c in m.contents if c.type == "function_result"]
    if not results:
        return ScriptedChatClient.function_call("charge", {"cents": 1200}, call_id="c1")
    await block_if_asked()
    return ScriptedChatClient.reply(f"Done: {results[0].result}.")


agent = Agent(ScriptedChatClient([model] * 100), name="cashier", tools=[charge])


@tool(approval_mode="always_require")
def refund(cents: int) -> str:
    """Refund the customer (a person approves each refund)."""
    note("tool")
    return f"refunded {cents} cents"


async def refund_model(messages: list[Message], options: ChatOptions) -> ChatResponse:
    """Asks for `refund`; then answers the user's last message, saying which roles it saw.
    With `$DURABLE_APP_BLOCK` set, the answer to a new message never comes."""
    del options
    note("model")
    if len(messages) == 1:
        return ScriptedChatClient.function_call("refund", {"cents": 500}, call_id="r1")
    await block_if_asked()
    return ScriptedChatClient.reply(f"saw {[m.role for m in messages]}: {messages[-1].text}")


refunds = Agent(ScriptedChatClient([refund_model] * 100), name="refunds", tools=[refund])
