"""Agent Skills: an agent discovers a skill folder, loads it, reads a reference and runs a
script (after the user approves it).

The skill is examples/skills/unit-converter; the model is scripted so the example runs
offline and always the same way.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentry import Agent, Content, Message, SkillsProvider
from agentry.clients.scripted import ScriptedChatClient
from agentry.skills import SkillScriptResult

SKILLS = Path(__file__).resolve().parent / "skills"
SKILL = "unit-converter"


def scripted_model() -> ScriptedChatClient:
    """What a model would do: load the skill, read its factors, run its script, answer."""
    return ScriptedChatClient(
        [
            ScriptedChatClient.function_call("load_skill", {"name": SKILL}),
            ScriptedChatClient.function_call(
                "read_skill_resource", {"skill": SKILL, "resource": "references/factors.md"}
            ),
            ScriptedChatClient.function_call(
                "run_skill_script",
                {"skill": SKILL, "script": "scripts/convert.py", "args": ["26.2", "mi", "km"]},
            ),
            ScriptedChatClient.reply("A marathon, 26.2 miles, is 42.16 kilometres."),
        ]
    )


async def main(approve: bool = True) -> str:
    provider = SkillsProvider(SKILLS)
    for skill in provider.skills.values():
        print(f"skill {skill.name}: {skill.description}")
    agent = Agent(client=scripted_model(), context_providers=[provider])
    session = agent.create_session()
    response = await agent.run("How many kilometres is a marathon of 26.2 miles?", session=session)
    show(response.messages)
    while response.user_input_requests:
        answers: list[Content] = []
        for request in response.user_input_requests:
            call = request.function_call
            assert call is not None
            print(f"approve {call.name}({call.arguments})? {approve}")
            answers.append(request.to_function_approval_response(approved=approve))
        response = await agent.run(Message("user", answers), session=session)
        show(response.messages)
    print(response.text)
    return response.text


def show(messages: list[Message]) -> None:
    """Print the tool calls of a run and the first line of each result."""
    for message in messages:
        for content in message.contents:
            if content.type == "function_call":
                print(f"[calling {content.name} {content.arguments}]")
            elif content.type == "function_result":
                result = content.result
                text = result.stdout if isinstance(result, SkillScriptResult) else str(result)
                print(f"[result] {text.strip().splitlines()[0]}")


if __name__ == "__main__":
    asyncio.run(main())
