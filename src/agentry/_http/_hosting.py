"""What the `agentry serve` commands of HTTP servers share: keys and where they listen."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

__all__ = ["add_host_arguments", "keys_from_environment", "warn_when_open"]


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `--host`, `--port`, `--api-key-env` and `--log-level` to `parser`."""
    parser.add_argument("--host", default="127.0.0.1", help="interface (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument(
        "--api-key-env",
        action="append",
        default=[],
        metavar="VARIABLE",
        help="an environment variable holding a key callers must send as a bearer token "
        "(repeat for several keys; a key is never given on the command line, where other "
        "users of the machine could read it)",
    )
    parser.add_argument("--log-level", default="info", help="uvicorn log level")


def keys_from_environment(variables: list[str]) -> list[str]:
    """The keys the `--api-key-env` variables hold.

    Raises:
        ValueError: A variable is not set, or empty.
    """
    keys: list[str] = []
    for variable in variables:
        key = os.environ.get(variable, "")
        if not key:
            raise ValueError(
                f"--api-key-env {variable}: the environment variable is not set or empty"
            )
        keys.append(key)
    return keys


def warn_when_open(host: str, keys: list[str]) -> None:
    """Warn on stderr when a server listens beyond this machine without a key."""
    if keys or _is_loopback(host):
        return
    print(
        f"agentry: warning: serving on {host} without an API key: anyone who reaches this "
        "port can run the agent (set --api-key-env)",
        file=sys.stderr,
        flush=True,
    )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
