"""The Agent Skills example runs and really runs its skill's script."""

from .running import EXAMPLES, run_example


def test_skills_agent_example() -> None:
    completed = run_example("skills_agent.py")
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("skill unit-converter: Convert lengths")
    assert "[result] # Converting units" in lines
    assert "[result] # Conversion factors" in lines
    assert any(line.startswith("approve run_skill_script(") for line in lines)
    assert "[result] 26.2 mi = 42.16 km" in lines  # printed by the skill's own script
    assert lines[-1] == "A marathon, 26.2 miles, is 42.16 kilometres."


def test_the_example_skill_is_valid() -> None:
    from agentry.skills import FileSkill

    skill = FileSkill(EXAMPLES / "skills" / "unit-converter")
    assert skill.frontmatter.license == "MIT"
    assert skill.frontmatter.metadata == {"author": "agentry", "version": "1.0"}
    assert [r.name for r in skill.resources] == ["references/factors.md"]
    assert [s.name for s in skill.scripts] == ["scripts/convert.py"]
