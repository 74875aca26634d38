"""A small MCP server with one tool and one prompt, run over stdio by `mcp_tools.py`."""

from mcp.server import MCPServer

server = MCPServer("weather")

FORECASTS = {"Paris": "sunny, 21 °C", "Oslo": "snow, -3 °C"}


@server.tool()
def get_forecast(city: str) -> str:
    """Tomorrow's weather for a city."""
    return FORECASTS.get(city, "no forecast for that city")


@server.prompt()
def packing_list(city: str) -> str:
    """Ask for a packing list for a trip."""
    return f"What should I pack for a trip to {city}? Check the forecast first."


if __name__ == "__main__":
    server.run()
