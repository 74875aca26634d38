"""A relay in front of llama-server that answers a request it has already passed on from
memory.

The conformance suite sends the same request to the same server from several clients that
share a wire format (OpenAI's client, then Azure OpenAI's on two URL styles, then Foundry's,
all with the model "local"). Sampling is greedy with a fixed seed, so the server would give
the same bytes again; the relay gives back the first answer instead of computing it again.
A request with any difference (path, key, a byte of its JSON body) goes to the server, so a
client that maps a request differently still meets the live model. Only successful answers
are kept; errors always come from the server.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from tests.threaded_http import serving

_CREDENTIAL_HEADERS = ("authorization", "x-api-key")
"""The headers llama-server takes a key from (OpenAI's bearer, Anthropic's key)."""


@dataclass(frozen=True)
class _Answer:
    status: int
    content_type: str
    body: bytes


@contextmanager
def memo_relay(upstream: str) -> Generator[str]:
    """Serve the relay for `upstream` (a base URL) on 127.0.0.1 and yield its base URL."""
    answers: dict[tuple[str, str, str], _Answer] = {}
    lock = threading.Lock()

    class Relay(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            credentials = {
                name: value
                for name in _CREDENTIAL_HEADERS
                if (value := self.headers.get(name)) is not None
            }
            key = (self.path, json.dumps(credentials, sort_keys=True), _canonical(body))
            with lock:
                answer = answers.get(key)
            if answer is None:
                answer = _forward(f"{upstream}{self.path}", body, credentials)
                if answer.status == 200:
                    with lock:
                        answers[key] = answer
            self.send_response(answer.status)
            self.send_header("content-type", answer.content_type)
            self.send_header("content-length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        def log_message(self, format: str, *args: object) -> None:
            return  # quiet

    with serving(Relay) as url:
        yield url


def _canonical(body: bytes) -> str:
    """The JSON body with its keys sorted, so that key order alone makes no difference."""
    try:
        return json.dumps(json.loads(body), sort_keys=True)
    except ValueError:
        return body.decode(errors="replace")


def _forward(url: str, body: bytes, credentials: dict[str, str]) -> _Answer:
    headers = {"content-type": "application/json", **credentials}
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return _Answer(response.status, response.headers["content-type"], response.read())
    except urllib.error.HTTPError as error:
        return _Answer(error.code, error.headers["content-type"] or "", error.read())
