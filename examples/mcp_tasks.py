"""An agent hands a slow analysis to another agent, served over MCP, as a long-running
task: the call answers at once with a task, and the client polls until the reply is in.

Runs offline on the scripted model; the served agent is `mcp/analyst_server.py`.
"""

import asyncio
import logging
import sys
from datetime import timedelta
from pathlib import Path

from agentry import Agent, MCPStdioTool, MCPTaskOptions
from agentry.clients.scripted import ScriptedChatClient

SERVER = Path(__file__).parent / "mcp" / "analyst_server.py"


async def main() -> None:
    logging.basicConfig(format="log: %(message)s")
    logging.getLogger("agentry.mcp").setLevel(logging.INFO)
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("analyst", {"task": "Analyse the Q3 sales."}),
            "The analyst reports steady Q3 sales.",
        ]
    )
    analyst = MCPStdioTool(
        "analyst",
        sys.executable,
        [str(SERVER)],
        task_options=MCPTaskOptions(max_task_wait=timedelta(minutes=5)),
    )
    async with Agent(client=model, tools=[analyst]) as agent:
        response = await agent.run("How did Q3 sales go?")
    print("analyst:", model.calls[1].messages[-1].contents[0].result)
    print(response.text)


if __name__ == "__main__":
    asyncio.run(main())
