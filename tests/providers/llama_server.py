"""llama.cpp's own HTTP server (`llama-server`), run with the default local model.

It serves the OpenAI Chat Completions and Responses APIs and the Anthropic Messages API
from one process, so every provider client meets a real server here. `make llama-server`
builds it into `.llama-server/bin/`; `AGENTRY_LLAMA_SERVER` may name another binary.
Sampling is greedy with a fixed seed, so answers do not change from run to run, and the
chat template (`chat_template.jinja`) suits tool calling to this small model.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from agentry.local import DEFAULT_LOCAL_MODEL
from agentry.local._model_files import resolve_model_file
from agentry.local._registry import get_local_model

ROOT = Path(__file__).resolve().parents[2]
API_KEY = "sk-local-test"
"""The key the server accepts; any other is refused with HTTP 401."""
CONTEXT_TOKENS = 2048
CHAT_TEMPLATE = Path(__file__).with_name("chat_template.jinja")
_STARTUP_SECONDS = 120


def llama_server_binary() -> Path:
    """The `llama-server` to run.

    Raises:
        RuntimeError: It has not been built.
    """
    binary = Path(os.environ.get("AGENTRY_LLAMA_SERVER") or ROOT / ".llama-server/bin/llama-server")
    if not os.access(binary, os.X_OK):
        raise RuntimeError(
            f"llama.cpp's server is not at {binary}: run `make llama-server` (or set "
            "AGENTRY_LLAMA_SERVER to a llama-server binary)"
        )
    return binary


@contextmanager
def running_llama_server() -> Generator[str, None, None]:
    """Start `llama-server` on 127.0.0.1 and yield its base URL (without `/v1`)."""
    model = resolve_model_file(get_local_model(DEFAULT_LOCAL_MODEL))
    port = _free_port()
    command = [
        str(llama_server_binary()),
        "--model", str(model),
        "--alias", "local",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--api-key", API_KEY,
        "--ctx-size", str(CONTEXT_TOKENS),
        "--parallel", "1",
        "--threads", "2",
        "--temp", "0",
        "--seed", "7",
        "--jinja",
        "--chat-template-file", str(CHAT_TEMPLATE),
    ]  # fmt: skip
    environment = {**os.environ, "OMP_WAIT_POLICY": "passive"}
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(server, url)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_healthy(server: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + _STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"llama-server exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2):
                return  # 200 once the model is loaded; 503 before
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    raise RuntimeError(f"llama-server did not become healthy within {_STARTUP_SECONDS} s")
