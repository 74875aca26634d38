"""docs/openai.md's local OpenAI-compatible server recipe works as written.

The session's `llama_server` is started by the guide's own command (see `llama_server.py`);
here the guide's agent runs against it as a script, on both OpenAI clients.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agentry.local import get_local_model, resolve_model_file
from agentry.local._llama_server import SERVED_MODEL
from tests.docs.guide_blocks import python_blocks
from tests.providers.llama_server import API_KEY, GUIDE, ROOT

GUIDE_SERVER = "http://127.0.0.1:8080/v1"


def _run(
    arguments: list[str], *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.run(
        [sys.executable, *arguments],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_guides_agent_calls_the_tool_and_answers_from_it_on_both_apis(
    llama_server: str, tmp_path: Path
) -> None:
    (block,) = [b for b in python_blocks(GUIDE) if GUIDE_SERVER in b.source and "@tool" in b.source]
    script = tmp_path / "weather.py"
    script.write_text(block.source.replace(GUIDE_SERVER, f"{llama_server}/v1"))

    completed = _run([str(script)], env={"OPENAI_API_KEY": API_KEY})

    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    calls = [i for i, line in enumerate(lines) if line.startswith("get_weather(")]
    assert [lines[i] for i in calls] == ["get_weather('Paris')"] * 2  # once per API
    chat_completions_answer = "\n".join(lines[calls[0] + 1 : calls[1]])
    responses_answer = "\n".join(lines[calls[1] + 1 :])
    assert "21" in chat_completions_answer
    assert "21" in responses_answer


def test_the_server_arguments_name_the_verified_model_and_a_tool_call_template() -> None:
    completed = _run(["-m", "agentry.local", "llama-server-args"])

    assert completed.returncode == 0, completed.stderr
    model_flag, model, jinja, template_flag, template = completed.stdout.split()
    expected_model = resolve_model_file(get_local_model(SERVED_MODEL))
    assert (model_flag, Path(model), jinja) == ("--model", expected_model, "--jinja")
    assert template_flag == "--chat-template-file"
    assert "tool" in Path(template).read_text()


def test_an_unknown_model_is_refused_with_the_known_ones() -> None:
    completed = _run(["-m", "agentry.local", "llama-server-args", "--model", "nope"])

    assert completed.returncode == 2
    assert "invalid choice: 'nope'" in completed.stderr
    assert SERVED_MODEL in completed.stderr
