"""`SkillsProvider`: offers skills to an agent, a little at a time."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any

from agentry.errors import ToolArgumentsError
from agentry.sessions import ContextProvider
from agentry.skills._discovery import DEFAULT_MAX_DEPTH, discover_skills
from agentry.skills._errors import SkillError
from agentry.skills._runner import SkillScriptRunner, SubprocessScriptRunner
from agentry.skills._script import ScriptArguments
from agentry.skills._skill import Skill
from agentry.skills._skill_files import DEFAULT_MAX_RESOURCE_BYTES
from agentry.tools import FunctionTool

if TYPE_CHECKING:
    from agentry.protocols import SupportsAgentRun
    from agentry.sessions import AgentSession, SessionContext

__all__ = ["SkillsProvider"]

INSTRUCTIONS = """\
You have skills: instructions and files for particular tasks. When a task matches a \
skill's description, call load_skill with the skill's name first and follow what it says. \
A loaded skill lists its resources (read them with read_skill_resource) and scripts (run \
them with run_skill_script).
Available skills:
"""


class SkillsProvider(ContextProvider):
    """Gives an agent skills by progressive disclosure.

    Each run, the instructions name every skill with its description; tools let the model
    load a skill's instructions (`load_skill`), read its resources
    (`read_skill_resource`) and run its scripts (`run_skill_script`). Running a script asks
    for the user's approval unless `require_script_approval` is off.

    Args:
        skill_directories: Folders searched for SKILL.md files (see `discover_skills`).
        skills: Skills defined in code.
        script_runner: Runs script files; by default a :class:`SubprocessScriptRunner`.
        require_script_approval: Hold every script run for the user's approval.
        max_depth: How deep below each folder skills are looked for.
        max_resource_bytes: The largest resource file a found skill reads (1 MiB by
            default); a larger one gives the model an error naming the limit.
        source_id: The provider's id in sessions.

    Raises:
        SkillError: Two skills share a name, or a folder does not exist.

    Example:
        >>> provider = SkillsProvider("examples/skills")  # doctest: +SKIP
        >>> agent = Agent(client=client, context_providers=[provider])  # doctest: +SKIP
    """

    DEFAULT_SOURCE_ID = "skills"

    def __init__(
        self,
        skill_directories: str | Path | Sequence[str | Path] | None = None,
        *,
        skills: Sequence[Skill] = (),
        script_runner: SkillScriptRunner | None = None,
        require_script_approval: bool = True,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
        source_id: str | None = None,
    ) -> None:
        super().__init__(source_id)
        if isinstance(skill_directories, (str, Path)):
            skill_directories = [skill_directories]
        found = discover_skills(
            skill_directories or [], max_depth=max_depth, max_resource_bytes=max_resource_bytes
        )
        self._skills: dict[str, Skill] = {}
        for skill in [*skills, *found]:
            _add(self._skills, skill)
        self.script_runner: SkillScriptRunner = script_runner or SubprocessScriptRunner()
        self.require_script_approval = require_script_approval
        self._tools = self._make_tools()

    @property
    def skills(self) -> Mapping[str, Skill]:
        """The skills offered, by name."""
        return MappingProxyType(self._skills)

    @property
    def tools(self) -> list[FunctionTool]:
        """The tools added to each run (none without skills)."""
        return list(self._tools)

    def instructions(self) -> str:
        """What the model is told about the skills each run."""
        lines = [f"- {s.name}: {s.description}" for s in self._skills.values()]
        return INSTRUCTIONS + "\n".join(lines)

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, object],
    ) -> None:
        if not self._skills:
            return
        context.extend_instructions(self.source_id, self.instructions())
        context.extend_tools(self.source_id, self._tools)

    async def load_skill(self, name: str) -> str:
        """A skill's instructions, followed by its resources and scripts.

        Raises:
            ToolArgumentsError: There is no skill called `name`.
        """
        skill = self._skill(name)
        parts = [skill.content]
        if skill.resources:
            parts.append(
                "Resources (read with read_skill_resource):\n"
                + "\n".join(_item_line(r.name, r.description) for r in skill.resources)
            )
        if skill.scripts:
            parts.append(
                "Scripts (run with run_skill_script):\n"
                + "\n".join(_item_line(s.name, s.description) for s in skill.scripts)
            )
        return "\n\n".join(parts)

    async def read_skill_resource(self, skill: str, resource: str) -> Any:
        """The content of one of a skill's resources.

        A resource that refuses to be read (a file now a link or a FIFO, or one over the
        size limit, say) gives an error text rather than raising.

        Raises:
            ToolArgumentsError: There is no such skill or resource.
        """
        found = self._skill(skill)
        item = found.get_resource(resource)
        if item is None:
            names = ", ".join(r.name for r in found.resources) or "none"
            raise ToolArgumentsError(
                f"skill {skill!r} has no resource {resource!r}; its resources: {names}"
            )
        try:
            return await item.read()
        except SkillError as error:
            return f"Error: {error}"

    async def run_skill_script(
        self, skill: str, script: str, args: ScriptArguments | None = None
    ) -> Any:
        """Run one of a skill's scripts and return its result.

        An inline script's function gets `args` (positional from a list, by keyword from a
        mapping). A script file runs with `args` as its command line (a mapping becomes
        `--name value` options). A script the runner refuses (one leading outside its skill
        directory, say) gives an error text rather than raising.

        Raises:
            ToolArgumentsError: There is no such skill or script.
        """
        found = self._skill(skill)
        item = found.get_script(script)
        if item is None:
            names = ", ".join(s.name for s in found.scripts) or "none"
            raise ToolArgumentsError(
                f"skill {skill!r} has no script {script!r}; its scripts: {names}"
            )
        if item.is_inline:
            return await item.call(args)
        try:
            result = self.script_runner(found, item, _command_line(args))
            if inspect.isawaitable(result):
                result = await result
        except SkillError as error:
            return f"Error: {error}"
        return result

    def _skill(self, name: str) -> Skill:
        skill = self._skills.get(name)
        if skill is None:
            names = ", ".join(self._skills) or "none"
            raise ToolArgumentsError(f"there is no skill named {name!r}; the skills: {names}")
        return skill

    def _make_tools(self) -> list[FunctionTool]:
        if not self._skills:
            return []

        async def load_skill(
            name: Annotated[str, "The name of the skill, as listed in the instructions"],
        ) -> str:
            """Load a skill: its instructions and the resources and scripts it has."""
            return await self.load_skill(name)

        tools = [FunctionTool(func=load_skill)]
        if any(s.resources for s in self._skills.values()):

            async def read_skill_resource(
                skill: Annotated[str, "The skill's name"],
                resource: Annotated[str, "The resource's name, as load_skill listed it"],
            ) -> Any:
                """Read one of a loaded skill's resources."""
                return await self.read_skill_resource(skill, resource)

            tools.append(FunctionTool(func=read_skill_resource))
        if any(s.scripts for s in self._skills.values()):

            async def run_skill_script(
                skill: Annotated[str, "The skill's name"],
                script: Annotated[str, "The script's name, as load_skill listed it"],
                args: Annotated[
                    list[str] | dict[str, Any] | None,
                    "The script's arguments: a list of command-line arguments, or named "
                    "arguments as an object",
                ] = None,
            ) -> Any:
                """Run one of a loaded skill's scripts, as its instructions say."""
                return await self.run_skill_script(skill, script, args)

            tools.append(
                FunctionTool(
                    func=run_skill_script,
                    approval_mode=(
                        "always_require" if self.require_script_approval else "never_require"
                    ),
                )
            )
        return tools


def _add(skills: dict[str, Skill], skill: Skill) -> None:
    existing = skills.get(skill.name)
    if existing is not None:
        raise SkillError(
            f"two skills are named {skill.name!r}: {_origin(existing)} and {_origin(skill)}; "
            "skill names must be unique"
        )
    skills[skill.name] = skill


def _origin(skill: Skill) -> str:
    directory = skill.directory
    if directory is not None:
        return f"the skill in {directory}"
    return f"the code-defined {type(skill).__name__}"


def _item_line(name: str, description: str | None) -> str:
    return f"- {name}: {description}" if description else f"- {name}"


def _command_line(args: ScriptArguments | None) -> list[str]:
    if args is None:
        return []
    if not isinstance(args, Mapping):
        return [str(a) for a in args]
    line: list[str] = []
    for key, value in args.items():
        if value is False or value is None:
            continue
        line.append(f"--{key}")
        if value is not True:
            line.append(str(value))
    return line
