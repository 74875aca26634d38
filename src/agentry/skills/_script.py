"""`SkillScript`: something a skill can run, a function here or a file run by a runner."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from agentry.skills._errors import SkillError

__all__ = ["ScriptArguments", "SkillScript"]

ScriptArguments: TypeAlias = "Sequence[str] | Mapping[str, Any]"
"""A script's arguments: positional values, or named ones (`--name value` for a file)."""


class SkillScript:
    """An executable part of a skill: an inline function, or a file on disk.

    Exactly one of `function` and `path` is given. An inline function runs in-process with
    the call's arguments (positional from a list, by keyword from a mapping); a file is run
    by the provider's :class:`SkillScriptRunner`. A relative `path` is taken from the skill's
    directory.

    Args:
        name: What the model asks for, such as `scripts/fill_form.py`.
        function: A sync or async function.
        path: The script file.
        description: What the script does and what arguments it takes.

    Example:
        >>> SkillScript("double", function=lambda x: 2 * int(x)).is_inline
        True
    """

    def __init__(
        self,
        name: str,
        *,
        function: Callable[..., object] | None = None,
        path: str | Path | None = None,
        description: str | None = None,
    ) -> None:
        if not name:
            raise SkillError("a skill script needs a non-empty name")
        if (function is None) == (path is None):
            raise SkillError(
                f"skill script {name!r} needs exactly one of function= (runs in-process) "
                "and path= (a file run by the script runner)"
            )
        self.name = name
        self.function = function
        self.path = Path(path) if path is not None else None
        self.description = description

    @property
    def is_inline(self) -> bool:
        """Whether the script is a function run in-process."""
        return self.function is not None

    async def call(self, args: ScriptArguments | None = None) -> Any:
        """Run an inline script's function with `args`.

        Raises:
            SkillError: The script is a file; run it with a :class:`SkillScriptRunner`.
        """
        if self.function is None:
            raise SkillError(f"skill script {self.name!r} is a file; run it with a script runner")
        if args is None:
            result = self.function()
        elif isinstance(args, Mapping):
            result = self.function(**args)
        else:
            result = self.function(*args)
        if inspect.isawaitable(result):
            return await result
        return result

    def __repr__(self) -> str:
        where = "inline" if self.function is not None else str(self.path)
        return f"SkillScript(name={self.name!r}, {where})"
