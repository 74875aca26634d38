"""The package's import structure: packages import each other only through public names,
and the command line sits on top of the libraries."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "agentry"


def imports_of(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every `import` and `from ... import` of agentry modules."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name


def package_of(path: Path) -> str:
    parts = path.relative_to(SRC).parts
    return parts[0] if len(parts) > 1 else ""


def test_no_package_imports_another_packages_private_module() -> None:
    reaches: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        own = package_of(path)
        for line, module in imports_of(path):
            parts = module.split(".")
            if parts[0] != "agentry" or len(parts) < 3 or parts[1] == own:
                continue
            if any(part.startswith("_") for part in parts[2:]):
                reaches.append(f"{path.relative_to(SRC)}:{line} imports {module}")
    assert reaches == []


def test_only_the_command_line_imports_the_command_line() -> None:
    upward = [
        f"{path.relative_to(SRC)}:{line} imports {module}"
        for path in sorted(SRC.rglob("*.py"))
        if package_of(path) != "cli"
        for line, module in imports_of(path)
        if module == "agentry.cli" or module.startswith("agentry.cli.")
    ]
    assert upward == []


# The floors of the house, lowest first: a module imports only from its own floor or below.
# Lazy imports inside functions are not counted: they are how a lower package offers a
# convenience built on a higher one (`client.as_agent()`, `agent.as_mcp_server()`).
FLOORS: list[set[str]] = [
    {"errors", "_version"},
    {"types", "features"},
    {"protocols", "targets", "observability", "storage", "_http"},
    {"middleware", "sessions", "tools", "security", "files"},
    {"clients", "skills", "memory", "mcp", "testing"},
    {"agents", "openai", "anthropic", "local"},
    {"azure", "foundry"},  # agentry.azure is the lazy entry point of both
    {"workflows"},
    {"durable"},
    {"orchestrations", "a2a", "ag_ui"},
    {"cli"},
]

# Type-only reaches up that a signature needs: `SupportsAgentRun.create_session` returns
# an `AgentSession`, `BaseChatClient.as_agent` an `Agent`, and the telemetry observer's
# agent hooks are told the run's `AgentSession`.
TYPE_ONLY_EXCEPTIONS = {
    ("protocols", "sessions"),
    ("clients", "agents"),
    ("observability", "sessions"),
}


def floor_of(package: str) -> int:
    return next(number for number, floor in enumerate(FLOORS) if package in floor)


def module_level_imports(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line, module, type-only) for the imports at module level, TYPE_CHECKING included."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        type_only = isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node) if type_only else [node]:
            if isinstance(inner, ast.ImportFrom) and inner.module and inner.level == 0:
                yield inner.lineno, inner.module, type_only
            elif isinstance(inner, ast.Import):
                for alias in inner.names:
                    yield inner.lineno, alias.name, type_only


def test_every_package_has_a_floor() -> None:
    packages = {
        path.stem if path.is_file() else path.name
        for path in SRC.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert packages == set().union(*FLOORS)


def test_packages_import_only_from_their_floor_or_below() -> None:
    upward: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        own = path.relative_to(SRC).parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        for line, module, type_only in module_level_imports(path):
            parts = module.split(".")
            if parts[0] != "agentry" or len(parts) < 2 or parts[1] == own:
                continue
            if type_only and (own, parts[1]) in TYPE_ONLY_EXCEPTIONS:
                continue
            if floor_of(parts[1]) > floor_of(own):
                upward.append(f"{path.relative_to(SRC)}:{line} imports {module}")
    assert upward == []
