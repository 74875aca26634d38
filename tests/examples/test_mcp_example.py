"""The MCP examples: a server's tools and prompt, and an agent served with tasks."""

from .running import run_example


def test_mcp_tools_example() -> None:
    completed = run_example("mcp_tools.py")
    assert completed.stdout.splitlines() == [
        "tools: ['get_forecast']",
        "prompt: What should I pack for a trip to Oslo? Check the forecast first.",
        "forecast: snow, -3 °C",
        "Snow in Oslo: pack a warm coat, boots and gloves.",
    ]


def test_mcp_tasks_example() -> None:
    completed = run_example("mcp_tasks.py")
    assert completed.stdout.splitlines() == [
        "analyst: Q3 sales were steady: mean 42.0 over 1204 rows, no outliers.",
        "The analyst reports steady Q3 sales.",
    ]
    assert "log: MCP server 'analyst' runs tool 'analyst' as task '" in completed.stderr
