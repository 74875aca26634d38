"""Loading the agent or workflow a `MODULE:OBJECT` or `path/file.py:OBJECT` reference names.

The command line, the MCP server and the A2A server all find what they run this way.

Example:
    >>> from agentry.targets import load_target
    >>> load_target("json:dumps")([1])
    '[1]'
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentry.errors import AgentryError

if TYPE_CHECKING:
    from agentry.protocols import SupportsAgentRun

__all__ = ["TargetError", "load_agent", "load_target"]


class TargetError(AgentryError):
    """A `MODULE:OBJECT` reference could not be loaded; the message says why.

    Attributes:
        malformed: True when the reference itself is not of the form `MODULE:OBJECT`
            (a usage mistake), False when its module or object cannot be found or used.
    """

    def __init__(self, message: str, *, malformed: bool = False) -> None:
        super().__init__(message)
        self.malformed = malformed


def load_target(spec: str) -> Any:
    """The object `spec` names: `package.module:name` or `path/to/file.py:name`.

    `name` may be dotted (`module:factory.agent`). A plain function that takes no
    arguments is called, so a module can expose `def create_agent() -> Agent`.

    Raises:
        TargetError: `spec` is malformed, or its module or object cannot be found.
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise TargetError(
            f"cannot read {spec!r}: name an object as MODULE:OBJECT "
            "(for example my_app.agents:assistant or ./agents.py:assistant)",
            malformed=True,
        )
    module = _import(module_name)
    value: object = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            available = ", ".join(n for n in dir(module) if not n.startswith("_")) or "nothing"
            raise TargetError(
                f"{module_name!r} has no {attribute!r}; it defines: {available}"
            ) from None
    if inspect.isfunction(value) and _takes_no_arguments(value):
        value = value()
    return value


def load_agent(spec: str) -> SupportsAgentRun:
    """The agent `spec` names (see `load_target`); a workflow, or anything else with
    `as_agent()`, becomes an agent.

    Raises:
        TargetError: `spec` cannot be loaded, or does not name an agent.
    """
    from agentry.protocols import SupportsAgentRun

    value = load_target(spec)
    as_agent = getattr(value, "as_agent", None)
    if not isinstance(value, SupportsAgentRun) and callable(as_agent):
        value = as_agent()
    if not isinstance(value, SupportsAgentRun):
        raise TargetError(
            f"{spec} is a {type(value).__name__}, not an agent; point at an agent, a "
            "workflow, or a function returning one"
        )
    return value


def _import(module_name: str) -> Any:
    if module_name.endswith(".py") or os.sep in module_name:
        return _import_file(module_name)
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: the working directory's modules
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise TargetError(
                f"no module named {module_name!r} (looked in the current directory and "
                "the installed packages); check the name or pass a file path like ./app.py:agent"
            ) from None
        raise TargetError(f"importing {module_name!r} failed: {error}") from error


def _import_file(name: str) -> Any:
    path = Path(name)
    if not path.is_file():
        raise TargetError(f"no such file: {name!r}")
    module_name = f"_agentry_target_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {name!r}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def _takes_no_arguments(function: Any) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not inspect.Parameter.empty
        or p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        for p in parameters
    )
