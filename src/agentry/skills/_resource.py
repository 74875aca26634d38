"""`SkillResource`: supplementary content a skill offers to read on demand."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from agentry.skills._errors import SkillError

__all__ = ["SkillResource"]


class SkillResource:
    """Named content of a skill: static text, or a function (sync or async) making it.

    Exactly one of `content` and `function` is given.

    Args:
        name: What the model asks for, such as `references/forms.md`.
        content: The content itself.
        function: Called with no arguments each time the resource is read.
        description: What the resource holds, shown when the skill is loaded.

    Example:
        >>> SkillResource("style-guide", content="Use short sentences.").name
        'style-guide'
    """

    def __init__(
        self,
        name: str,
        *,
        content: str | None = None,
        function: Callable[[], object] | None = None,
        description: str | None = None,
    ) -> None:
        if not name:
            raise SkillError("a skill resource needs a non-empty name")
        if (content is None) == (function is None):
            raise SkillError(
                f"skill resource {name!r} needs exactly one of content= (static text) "
                "and function= (a function making it)"
            )
        self.name = name
        self.content = content
        self.function = function
        self.description = description

    async def read(self) -> Any:
        """The resource's content: the static content, or what the function returns."""
        if self.function is None:
            return self.content
        result = self.function()
        if inspect.isawaitable(result):
            return await result
        return result

    def __repr__(self) -> str:
        return f"SkillResource(name={self.name!r})"
