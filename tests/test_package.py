import subprocess
import sys

import pytest

import agentry

OPTIONAL = (
    "openai",
    "anthropic",
    "mcp",
    "a2a",
    "opentelemetry",
    "llama_cpp",
    "sqlalchemy",
    "pydantic",
    "uvicorn",
    "dbos",
    "psycopg",
    "asyncpg",
)


def test_version_is_exposed() -> None:
    assert agentry.__version__ == "0.1.0"


def test_every_public_name_resolves() -> None:
    for name in agentry.__all__:
        assert getattr(agentry, name) is not None, name


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        agentry.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018


def test_importing_agentry_loads_no_optional_integration() -> None:
    code = (
        "import sys, agentry\n"
        "from agentry import Agent, tool, Message, AgentSession\n"
        f"print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"


def test_orchestrators_are_exported_from_the_package_root_on_first_use() -> None:
    code = (
        "import sys, agentry\n"
        "assert 'agentry.orchestrations' not in sys.modules\n"
        "from agentry import (ConcurrentOrchestrator, GroupChatOrchestrator,\n"
        "    HandoffOrchestrator, MagenticOrchestrator, SequentialOrchestrator)\n"
        "import agentry.orchestrations as o\n"
        "print(SequentialOrchestrator is o.SequentialOrchestrator,\n"
        "      HandoffOrchestrator is o.HandoffOrchestrator)"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["True", "True"]
