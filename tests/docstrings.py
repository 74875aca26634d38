"""The examples of a package's docstrings, run as each area's `test_docstrings.py` asks."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

__all__ = ["failed_examples", "modules_of"]


def modules_of(package: ModuleType) -> list[str]:
    """The names of `package` and of its modules."""
    prefix = f"{package.__name__}."
    return [package.__name__, *(prefix + m.name for m in pkgutil.iter_modules(package.__path__))]


def failed_examples(module_name: str) -> int:
    """How many examples in the docstrings of `module_name` fail (`...` matches anything)."""
    module = importlib.import_module(module_name)
    return doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed
