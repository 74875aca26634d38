import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli.conftest import Agentry

COUNTING_AGENT = """
from agentry import Agent
from agentry.clients.scripted import ScriptedChatClient

def count_turns(messages, options):
    seen = sum(1 for m in messages if m.role == "user")
    return f"You said {messages[-1].text!r}; {seen} message(s) so far."

agent = Agent(client=ScriptedChatClient([count_turns] * 10), name="counter")
"""


def _script(tmp_path: Path, data: object) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_chat_streams_scripted_answers_turn_by_turn(agentry: Agentry, tmp_path: Path) -> None:
    script = _script(
        tmp_path, {"responses": ["Hello there, friend!", {"text": "Bye now."}], "chunk_size": 4}
    )
    result = agentry("chat", "--client", "scripted", "--script", script, stdin="hi\n\nbye\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello there, friend!\nBye now.\n"
    assert result.stderr == ""


def test_chat_keeps_the_conversation_and_reset_starts_over(
    agentry: Agentry, tmp_path: Path
) -> None:
    (tmp_path / "counting.py").write_text(COUNTING_AGENT)
    result = agentry(
        "chat", "--agent", "counting:agent", stdin="one\ntwo\n/reset\nthree\n/exit\nnever\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "You said 'one'; 1 message(s) so far.",
        "You said 'two'; 2 message(s) so far.",
        "You said 'three'; 1 message(s) so far.",
    ]
    assert "(new conversation)" in result.stderr


def test_chat_json_lines(agentry: Agentry, tmp_path: Path) -> None:
    script = _script(tmp_path, {"responses": ["Hello there"], "chunk_size": 6})
    result = agentry("chat", "--client", "scripted", "--script", script, "--json", stdin="hi\n")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["type"] for line in lines] == ["text", "text", "response"]
    assert "".join(line["text"] for line in lines[:2]) == "Hello there"
    assert lines[-1]["text"] == "Hello there"
    assert lines[-1]["finish_reason"] == "stop"


def test_unknown_chat_command_is_explained(agentry: Agentry, tmp_path: Path) -> None:
    script = _script(tmp_path, ["ok"])
    result = agentry("chat", "--client", "scripted", "--script", script, stdin="/help\nhi\n")
    assert result.returncode == 0
    assert result.stdout == "ok\n"
    assert "unknown command '/help'" in result.stderr


def test_scripted_client_needs_a_script(agentry: Agentry) -> None:
    result = agentry("chat", "--client", "scripted", stdin="hi\n")
    assert result.returncode == 2
    assert "--client scripted needs --script FILE.json" in result.stderr


def test_bad_script_files_are_named(agentry: Agentry, tmp_path: Path) -> None:
    missing = agentry("chat", "--client", "scripted", "--script", "nope.json")
    assert missing.returncode == 1
    assert "script file not found: 'nope.json'" in missing.stderr
    bad = _script(tmp_path, [42])
    result = agentry("chat", "--client", "scripted", "--script", bad)
    assert "answer 0 of script file" in result.stderr
    assert result.returncode == 1


def test_a_failing_model_ends_with_a_clear_error(agentry: Agentry, tmp_path: Path) -> None:
    script = _script(tmp_path, [{"error": "rate limited, try later"}])
    result = agentry("chat", "--client", "scripted", "--script", script, stdin="hi\n")
    assert result.returncode == 1
    assert result.stderr.strip().endswith("agentry: error: rate limited, try later")
    assert "Traceback" not in result.stderr


def test_agent_option_excludes_client_options(agentry: Agentry, tmp_path: Path) -> None:
    (tmp_path / "counting.py").write_text(COUNTING_AGENT)
    result = agentry("chat", "--agent", "counting:agent", "--model", "x")
    assert result.returncode == 2
    assert "--agent brings its own client" in result.stderr


APPROVAL_AGENT = '''
from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient

@tool(approval_mode="always_require")
def send_email(to: str) -> str:
    """Send an email."""
    return f"sent to {to}"

def reply(messages, options):
    results = [c for m in messages for c in m.contents if c.type == "function_result"]
    return f"Tool said: {results[-1].result}"

def email_call(call_id):
    return ScriptedChatClient.function_call("send_email", {"to": "ada@example.com"}, call_id=call_id)

client = ScriptedChatClient([email_call("c1"), reply, email_call("c2"), reply])
agent = Agent(client=client, tools=[send_email], name="mailer")
'''


def test_ctrl_c_while_waiting_for_input_ends_the_chat(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    from tests.cli.conftest import SRC

    script = _script(tmp_path, ["ok", "never"])
    process = subprocess.Popen(
        [sys.executable, "-m", "agentry.cli", "chat", "--client", "scripted", "--script", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write("hi\n")
    process.stdin.flush()
    assert process.stdout.readline() == "ok\n"  # now it waits for the next line
    process.send_signal(signal.SIGINT)
    try:
        # stdin stays open: the chat must not wait for a line that will not come
        assert process.wait(timeout=30) == 130
    finally:
        process.kill()
        _, err = process.communicate()
    assert "Traceback" not in err


def test_chat_uses_the_embedded_local_model_by_default(agentry: Agentry) -> None:
    result = agentry("--otel", "console", "chat", stdin="Say hello in three words.\n")
    assert result.returncode == 0, result.stderr
    (answer,) = result.stdout.splitlines()
    assert answer.strip()
    assert '"gen_ai.provider.name": "llama.cpp"' in result.stderr
    assert '"name": "invoke_agent assistant"' in result.stderr


CTRL_C_ON_ANOTHER_THREAD = """
import asyncio, signal, sys, threading, time
from agentry.cli import main

def deliver_ctrl_c_to(thread):
    time.sleep(1)
    signal.pthread_kill(thread.ident, signal.SIGINT)

busy = threading.Thread(target=time.sleep, args=(60,), daemon=True)
busy.start()
threading.Thread(target=deliver_ctrl_c_to, args=(busy,), daemon=True).start()
sys.exit(main(["chat", "--client", "scripted", "--script", sys.argv[1]]))
"""


def test_ctrl_c_reaching_another_thread_still_ends_the_chat(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.cli.conftest import SRC

    script = _script(tmp_path, ["never"])
    # stdin stays open and silent: only the Ctrl-C can end this chat
    process = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_ON_ANOTHER_THREAD, script],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    try:
        assert process.wait(timeout=30) == 130
    finally:
        process.kill()
        process.communicate()


CREDENTIAL_AGENT = '''
from agentry import Agent, FunctionInvocationContext, require_authorization, tool
from agentry.clients.scripted import ScriptedChatClient

@tool
def list_repos(owner: str, context: FunctionInvocationContext) -> str:
    """List the owner's repositories."""
    token = require_authorization(context, "A GitHub token")["token"]
    return f"{owner}/agentry (with a token of {len(token)} characters)"

def reply(messages, options):
    results = [c for m in messages for c in m.contents if c.type == "function_result"]
    return f"Tool said: {results[-1].result}"

def repos_call(call_id):
    return ScriptedChatClient.function_call("list_repos", {"owner": "ada"}, call_id=call_id)

client = ScriptedChatClient([repos_call("c1"), reply, repos_call("c2"), reply])
agent = Agent(client=client, tools=[list_repos], name="github")
'''


@dataclass(frozen=True)
class AskingSession:
    """A chat whose agent's tool asks the user twice: granted, then refused."""

    id: str
    agent: str
    stdin: str
    answers: list[str]
    prompts: list[str]
    """Each is shown on stderr once per tool call."""
    secret: str | None = None
    """What the user typed that stderr must not echo."""

    def __str__(self) -> str:
        return self.id


ASKING_SESSIONS = [
    AskingSession(
        "approval",
        APPROVAL_AGENT,
        "mail Ada\ny\nagain\nn\n",
        [
            "Tool said: sent to ada@example.com",
            "Tool said: Error: the user did not approve this tool call; do not retry it.",
        ],
        ['approve send_email({"to": "ada@example.com"})? [y/N]', "! send_email needs approval"],
    ),
    AskingSession(
        "credential",
        CREDENTIAL_AGENT,
        "list\nghp_12345\nagain\n\n",
        [
            "Tool said: ada/agentry (with a token of 9 characters)",
            "Tool said: Error: the user did not authorize this tool call; do not retry it.",
        ],
        [
            "list_repos needs a bearer credential (A GitHub token)",
            "! list_repos needs authorization",
        ],
        secret="ghp_12345",
    ),
]


@pytest.mark.parametrize("session", ASKING_SESSIONS, ids=str)
def test_chat_asks_the_user_what_a_tool_needs(
    agentry: Agentry, tmp_path: Path, session: AskingSession
) -> None:
    (tmp_path / "asking.py").write_text(session.agent)
    result = agentry("chat", "--agent", "asking:agent", stdin=session.stdin)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == session.answers
    assert [result.stderr.count(prompt) for prompt in session.prompts] == [2, 2]
    if session.secret is not None:
        assert session.secret not in result.stderr
