"""llama.cpp's own HTTP server (`llama-server`), run with the default local model.

It serves the OpenAI Chat Completions and Responses APIs and the Anthropic Messages API
from one process, so every provider client meets a real server here. `make llama-server`
builds it into `.llama-server/bin/`; `AGENTRY_LLAMA_SERVER` may name another binary.
The server is started by the command of docs/openai.md's recipe, run by bash as written,
with only what a test needs added after it: its own port on 127.0.0.1, a key, a small
context, and greedy sampling with a fixed seed, so answers do not change from run to run.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "openai.md"
API_KEY = "sk-local-test"
"""The key the server accepts; any other is refused with HTTP 401."""
CONTEXT_TOKENS = 2048
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


def documented_command() -> str:
    """The shell command of docs/openai.md that starts `llama-server`."""
    blocks = re.findall(r"^```bash\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.M | re.S)
    (command,) = [b.strip() for b in blocks if b.startswith("llama-server ")]
    return command


@contextmanager
def running_llama_server() -> Generator[str, None, None]:
    """Start `llama-server` on 127.0.0.1 by the guide's command and yield its base URL
    (without `/v1`)."""
    port = _free_port()
    for_tests = [
        "--host", "127.0.0.1",
        "--port", str(port),  # the last --port wins over the guide's
        "--api-key", API_KEY,
        "--ctx-size", str(CONTEXT_TOKENS),
        "--parallel", "1",
        "--threads", "2",
        "--temp", "0",
        "--seed", "7",
    ]  # fmt: skip
    # `llama-server` in the guide's command is this function, which becomes the server.
    script = (
        f'llama-server() {{ exec "$LLAMA_SERVER_BINARY" "$@" {shlex.join(for_tests)}; }}\n'
        f"{documented_command()}\n"
    )
    environment = {
        **os.environ,
        "LLAMA_SERVER_BINARY": str(llama_server_binary()),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT / "src"),
        "OMP_WAIT_POLICY": "passive",
    }
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            ["bash", "-c", script], stdout=subprocess.DEVNULL, stderr=log, env=environment
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_until_healthy(server, url, log)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_healthy(server: subprocess.Popen[bytes], url: str, log: IO[bytes]) -> None:
    deadline = time.monotonic() + _STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            log.seek(0)
            last_lines = log.read().decode(errors="replace").splitlines()[-10:]
            raise RuntimeError(
                f"llama-server exited with code {server.returncode}:\n" + "\n".join(last_lines)
            )
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2):
                return  # 200 once the model is loaded; 503 before
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    raise RuntimeError(f"llama-server did not become healthy within {_STARTUP_SECONDS} s")
