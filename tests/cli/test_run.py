import json
from pathlib import Path

from tests.cli.conftest import Agentry

WEATHER_AGENT = '''
from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient

@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"

def make_agent():
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_weather", {"city": "Paris"}, call_id="c1"),
            "It is sunny in Paris.",
        ],
        chunk_size=5,
    )
    return Agent(client=client, tools=[get_weather], name="weather")

agent = make_agent()
not_an_agent = 42
'''


def _write_agent(tmp_path: Path) -> None:
    (tmp_path / "weather.py").write_text(WEATHER_AGENT)


def test_run_streams_the_answer_and_shows_tool_activity(agentry: Agentry, tmp_path: Path) -> None:
    _write_agent(tmp_path)
    result = agentry("run", "weather:agent", "Weather in Paris?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It is sunny in Paris.\n"
    assert result.stderr.splitlines() == ['→ get_weather({"city": "Paris"})', "← Sunny in Paris"]


def test_run_json_lines_end_with_the_response(agentry: Agentry, tmp_path: Path) -> None:
    _write_agent(tmp_path)
    result = agentry("run", "weather.py:make_agent", "Weather?", "--json")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0] == {
        "type": "tool_call",
        "call_id": "c1",
        "name": "get_weather",
        "arguments": {"city": "Paris"},
    }
    assert lines[1] == {"type": "tool_result", "call_id": "c1", "result": "Sunny in Paris"}
    assert {line["type"] for line in lines[2:-1]} == {"text"}
    assert "".join(line["text"] for line in lines[2:-1]) == "It is sunny in Paris."
    assert lines[-1]["type"] == "response"
    assert lines[-1]["text"] == "It is sunny in Paris."
    assert result.stderr == ""


def test_run_reads_the_prompt_from_stdin(agentry: Agentry, tmp_path: Path) -> None:
    (tmp_path / "echo.py").write_text(
        "from agentry import Agent\n"
        "from agentry.clients.scripted import ScriptedChatClient\n"
        "agent = Agent(client=ScriptedChatClient([lambda m, o: 'got: ' + m[-1].text]))\n"
    )
    result = agentry("run", "echo:agent", stdin="a question\nover two lines\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "got: a question\nover two lines\n"


def test_run_explains_bad_targets(agentry: Agentry, tmp_path: Path) -> None:
    _write_agent(tmp_path)
    no_colon = agentry("run", "weather", "hi")
    assert no_colon.returncode == 2
    assert "name an object as MODULE:OBJECT" in no_colon.stderr
    no_module = agentry("run", "wether:agent", "hi")
    assert no_module.returncode == 1
    assert "no module named 'wether'" in no_module.stderr
    no_object = agentry("run", "weather:agnet", "hi")
    assert "'weather' has no 'agnet'; it defines:" in no_object.stderr
    assert "make_agent" in no_object.stderr
    wrong_kind = agentry("run", "weather:not_an_agent", "hi")
    assert "weather:not_an_agent is of type int, not an agent or a workflow" in wrong_kind.stderr
    no_file = agentry("run", "./missing.py:agent", "hi")
    assert "no such file: './missing.py'" in no_file.stderr
    for result in (no_object, wrong_kind, no_file):
        assert result.returncode == 1
        assert "Traceback" not in result.stderr


def test_run_with_otel_console_writes_spans_to_stderr(agentry: Agentry, tmp_path: Path) -> None:
    _write_agent(tmp_path)
    result = agentry("run", "weather:agent", "Weather?", "--otel", "console")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It is sunny in Paris.\n"
    assert '"name": "invoke_agent weather"' in result.stderr
    assert '"name": "execute_tool get_weather"' in result.stderr
    assert "Sunny in Paris" in result.stderr  # the tool activity line, not a span attribute
    assert "gen_ai.tool.call.result" not in result.stderr


def test_run_stops_with_a_hint_when_a_tool_needs_approval(agentry: Agentry, tmp_path: Path) -> None:
    (tmp_path / "mailer.py").write_text(
        "from agentry import Agent, tool\n"
        "from agentry.clients.scripted import ScriptedChatClient\n"
        "@tool(approval_mode='always_require')\n"
        "def send_email(to: str) -> str:\n"
        "    '''Send an email.'''\n"
        "    return 'sent'\n"
        "client = ScriptedChatClient([ScriptedChatClient.function_call('send_email', {'to': 'x'})])\n"
        "agent = Agent(client=client, tools=[send_email])\n"
    )
    result = agentry("run", "mailer:agent", "mail x")
    assert result.returncode == 1
    assert "the run stopped: send_email needs approval" in result.stderr
    assert "agentry chat --agent mailer:agent" in result.stderr
