"""A durable agent whose tool needs a person's approval (for `agentry worker`).

The (scripted) model asks for `send_email`, a tool that needs approval, then says what
the tool answered. Every model call and every tool call notes itself, with its process,
in a table of `$APPROVAL_CALLS_URL`; the runs are in `$AGENTRY_DURABLE_DATABASE_URL`.
Workers take over a silent worker's runs after `TAKEOVER_AFTER` seconds.
"""

from __future__ import annotations

import os

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.durable import DurableRuntime
from agentry.types import ChatOptions, ChatResponse, Message
from tests.durable.outside_tables import OutsideTables

CALLS_URL_ENV = "APPROVAL_CALLS_URL"
TAKEOVER_AFTER = 2.0


class Calls(OutsideTables):
    """The table of the agent's model and tool calls, with the process that made each."""

    def __init__(self, url: str) -> None:
        super().__init__(url, ["calls (kind TEXT, pid INTEGER)"])

    def all(self) -> list[tuple[str, int]]:
        return [(str(kind), int(pid)) for kind, pid in self.rows("SELECT kind, pid FROM calls")]


def build_mailer(calls: Calls | None = None) -> Agent:
    """An agent that emails Ada once a person approves."""

    @tool(approval_mode="always_require")
    def send_email(to: str, text: str) -> str:
        """Send an email."""
        if calls is not None:
            calls.note("calls", "tool")
        return f"sent to {to}"

    async def model(messages: list[Message], options: ChatOptions) -> ChatResponse:
        if calls is not None:
            calls.note("calls", "model")
        results = [c for m in messages for c in m.contents if c.type == "function_result"]
        if not results:
            email = {"to": "ada@example.com", "text": "Running late."}
            return ScriptedChatClient.function_call("send_email", email, call_id="mail-call")
        return ScriptedChatClient.reply(f"Done: {results[0].result}.")

    return Agent(ScriptedChatClient([model] * 4), name="mailer", tools=[send_email])


def create_runtime() -> DurableRuntime:
    runtime = DurableRuntime(takeover_after=TAKEOVER_AFTER)
    runtime.register_agent(build_mailer(Calls(os.environ[CALLS_URL_ENV])))
    return runtime
