"""Human in the loop: a tool that needs approval pauses the run until a person answers."""

from __future__ import annotations

import asyncio

from agentry import Agent, Content, Message, tool
from agentry.clients.scripted import ScriptedChatClient


@tool(approval_mode="always_require")
def send_email(to: str, subject: str) -> str:
    """Send an email."""
    return f"sent '{subject}' to {to}"


async def main(approve: bool = True) -> str:
    email = {"to": "ada@example.com", "subject": "Hi"}
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("send_email", email),
            ScriptedChatClient.reply("The email is on its way."),
        ]
    )
    agent = Agent(client=client, tools=[send_email])
    session = agent.create_session()
    response = await agent.run("Email Ada to say hi.", session=session)
    while response.user_input_requests:
        answers: list[Content] = []
        for request in response.user_input_requests:
            call = request.function_call
            assert call is not None
            print(f"approve {call.name}({call.arguments})? {approve}")
            answers.append(request.to_function_approval_response(approved=approve))
        response = await agent.run(Message("user", answers), session=session)
    print(response.text)
    return response.text


if __name__ == "__main__":
    asyncio.run(main())
