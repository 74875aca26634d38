"""`ClassSkill`: a skill written as a class, its resources and scripts as methods."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal, TypeVar, overload

from agentry.skills._errors import SkillError
from agentry.skills._frontmatter import SkillFrontmatter
from agentry.skills._resource import SkillResource
from agentry.skills._script import SkillScript
from agentry.skills._skill import Skill

__all__ = ["ClassSkill"]

_FuncT = TypeVar("_FuncT", bound=Callable[..., Any])
_MARK = "__agentry_skill_member__"
_Kind = Literal["resource", "script"]


class _Member:
    __slots__ = ("description", "kind", "name")

    def __init__(self, kind: _Kind, name: str | None, description: str | None) -> None:
        self.kind: _Kind = kind
        self.name = name
        self.description = description


class ClassSkill(Skill):
    """A skill as a class: the frontmatter a class attribute, the instructions its
    docstring (or a `content` class attribute), resources and scripts decorated methods.

    Methods marked `@ClassSkill.resource` take no arguments and return the content;
    methods marked `@ClassSkill.script` take the script's arguments. Either may be async.
    Their names default to the method's name and their descriptions to its docstring.

    Args:
        frontmatter: Replaces the class's `frontmatter`.
        content: Replaces the class's instructions.

    Example:
        >>> class Units(ClassSkill):
        ...     '''Convert with the `convert` script; factors are in `factors`.'''
        ...
        ...     frontmatter = SkillFrontmatter(name="units", description="Convert units.")
        ...
        ...     @ClassSkill.resource
        ...     def factors(self) -> str:
        ...         '''Conversion factors.'''
        ...         return "1 mile = 1.609 km"
        ...
        ...     @ClassSkill.script
        ...     def convert(self, miles: float) -> float:
        ...         '''Miles to kilometres.'''
        ...         return float(miles) * 1.609
        >>> [s.name for s in Units().scripts]
        ['convert']
    """

    def __init__(
        self, *, frontmatter: SkillFrontmatter | None = None, content: str | None = None
    ) -> None:
        chosen = frontmatter or getattr(type(self), "frontmatter", None)
        if chosen is None:
            raise SkillError(
                f"{type(self).__name__} needs a frontmatter: set the class attribute "
                "frontmatter = SkillFrontmatter(...) or pass frontmatter="
            )
        self.frontmatter = chosen
        self.content = content if content is not None else self._class_content()
        resources: list[SkillResource] = []
        scripts: list[SkillScript] = []
        for attribute, member in _members(type(self)):
            method = getattr(self, attribute)
            name = member.name or attribute
            description = member.description or _doc_summary(method)
            if member.kind == "resource":
                resources.append(SkillResource(name, function=method, description=description))
            else:
                scripts.append(SkillScript(name, function=method, description=description))
        self._set_parts(resources, scripts)

    @overload
    @staticmethod
    def resource(method: _FuncT, /) -> _FuncT: ...

    @overload
    @staticmethod
    def resource(
        *, name: str | None = None, description: str | None = None
    ) -> Callable[[_FuncT], _FuncT]: ...

    @staticmethod
    def resource(
        method: _FuncT | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
    ) -> _FuncT | Callable[[_FuncT], _FuncT]:
        """Mark a method (no arguments) as a resource, optionally naming and describing it."""
        return _mark("resource", method, name, description)

    @overload
    @staticmethod
    def script(method: _FuncT, /) -> _FuncT: ...

    @overload
    @staticmethod
    def script(
        *, name: str | None = None, description: str | None = None
    ) -> Callable[[_FuncT], _FuncT]: ...

    @staticmethod
    def script(
        method: _FuncT | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
    ) -> _FuncT | Callable[[_FuncT], _FuncT]:
        """Mark a method as a script, optionally naming and describing it."""
        return _mark("script", method, name, description)

    def _class_content(self) -> str:
        """The nearest class's `content` attribute or docstring, subclasses first."""
        for klass in type(self).__mro__:
            if klass is ClassSkill:
                break
            content = vars(klass).get("content")
            if isinstance(content, str):
                return content
            if klass.__doc__:
                return inspect.cleandoc(klass.__doc__)
        raise SkillError(
            f"{type(self).__name__} has no instructions: give the class a docstring, "
            "a content class attribute, or pass content="
        )


def _mark(
    kind: _Kind, method: _FuncT | None, name: str | None, description: str | None
) -> _FuncT | Callable[[_FuncT], _FuncT]:
    def mark(function: _FuncT) -> _FuncT:
        setattr(function, _MARK, _Member(kind, name, description))
        return function

    return mark(method) if method is not None else mark


def _members(cls: type) -> list[tuple[str, _Member]]:
    """Marked methods in definition order, base classes first, overrides taking their place."""
    found: dict[str, _Member] = {}
    for klass in reversed(cls.__mro__):
        for attribute, value in vars(klass).items():
            member = getattr(value, _MARK, None)
            if isinstance(member, _Member):
                found[attribute] = member
            elif attribute in found:
                del found[attribute]  # overridden by an unmarked attribute
    return list(found.items())


def _doc_summary(function: Callable[..., object]) -> str | None:
    doc = inspect.getdoc(function)
    return doc.strip().split("\n\n")[0].strip() if doc else None
