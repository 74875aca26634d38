"""MCP servers that go wrong, for the tests of the error messages.

`python misbehaving.py MODE [ARG]`, where MODE is:

- `stray-output`: writes text that is not MCP to stdout and never answers.
- `crash-at-start`: writes a traceback to stderr and exits with status 3.
- `unauthorized PORT`: an HTTP server that answers every request 401.
"""

from __future__ import annotations

import sys


def stray_output() -> None:
    print("Starting the weather server...", flush=True)
    for line in sys.stdin:
        print(f"got {len(line)} bytes", flush=True)


def crash_at_start() -> None:
    sys.stderr.write(
        "loading settings.toml\n"
        "Traceback (most recent call last):\n"
        '  File "server.py", line 3, in <module>\n'
        "KeyError: 'API_KEY'\n"
    )
    sys.exit(3)


def unauthorized(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def refuse(request: Request) -> JSONResponse:
        return JSONResponse(
            {"error": "invalid_token"},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )

    app = Starlette(routes=[Route("/mcp", refuse, methods=["GET", "POST", "DELETE"])])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "stray-output":
        stray_output()
    elif mode == "crash-at-start":
        crash_at_start()
    elif mode == "unauthorized":
        unauthorized(int(sys.argv[2]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")
