"""An agent that uses the tools and a prompt of an MCP server it starts over stdio.

Runs offline on the scripted model; the server is `mcp/weather_server.py`.
"""

import asyncio
import sys
from pathlib import Path

from agentry import Agent, MCPStdioTool
from agentry.clients.scripted import ScriptedChatClient

SERVER = Path(__file__).parent / "mcp" / "weather_server.py"


async def main() -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_forecast", {"city": "Oslo"}),
            "Snow in Oslo: pack a warm coat, boots and gloves.",
        ]
    )
    async with MCPStdioTool("weather", sys.executable, [str(SERVER)]) as weather:
        print("tools:", [tool.name for tool in weather.functions])
        prompt = await weather.get_prompt("packing_list", {"city": "Oslo"})
        print("prompt:", prompt[0].text)
        agent = Agent(client=model, tools=[weather], instructions="Help people pack.")
        response = await agent.run(prompt)
    result = model.calls[1].messages[-1].contents[0].result
    print("forecast:", result)
    print(response.text)


if __name__ == "__main__":
    asyncio.run(main())
