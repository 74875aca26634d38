"""An analyst agent served over MCP on stdio, each of its runs a long-running task.

Started by `../mcp_tasks.py`; runs offline on the scripted model.
"""

import asyncio

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient


@tool
async def crunch_numbers(dataset: str) -> str:
    """Summarise a dataset (this takes a while)."""
    await asyncio.sleep(1.5)
    return f"{dataset}: 1204 rows, mean 42.0, no outliers"


analyst = Agent(
    client=ScriptedChatClient(
        [
            ScriptedChatClient.function_call("crunch_numbers", {"dataset": "sales-q3"}),
            "Q3 sales were steady: mean 42.0 over 1204 rows, no outliers.",
        ]
    ),
    name="analyst",
    description="Analyses datasets.",
    tools=[crunch_numbers],
)

if __name__ == "__main__":
    asyncio.run(analyst.as_mcp_server(tasks=True).run_stdio())
