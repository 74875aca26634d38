"""An agent served over A2A, and used from another process's point of view with A2AAgent.

The served agent looks up the weather with a tool and needs approval before it books a
trip. The client side is an `A2AAgent`: it streams the answer, keeps the conversation in
its session, and gets the approval request like any agentry agent's.
"""

from __future__ import annotations

import asyncio
import socket

import uvicorn

from agentry import Agent, Content, Message, tool
from agentry.a2a import A2AAgent, create_app
from agentry.clients.scripted import ScriptedChatClient


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny and 24 degrees in {city}"


@tool(approval_mode="always_require")
def book_trip(city: str) -> str:
    """Book a trip to a city."""
    return f"booked a trip to {city}"


def travel_agent() -> Agent:
    """The hosted agent; its model is scripted so the example runs offline."""
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("get_weather", {"city": "Lisbon"}),
            "Lisbon is sunny and 24 degrees.",
            ScriptedChatClient.function_call("book_trip", {"city": "Lisbon"}),
            "Done: your trip to Lisbon is booked.",
        ]
    )
    return Agent(
        client=model,
        name="travel",
        description="Checks the weather and books trips.",
        tools=[get_weather, book_trip],
    )


async def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    app = create_app(travel_agent(), url=url, database=None)  # database=None: in memory
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:  # noqa: ASYNC110 (uvicorn has no event to wait on)
        await asyncio.sleep(0.01)

    async with A2AAgent(url=url) as remote:
        session = remote.create_session()
        print(f"remote agent: {remote.name} ({remote.description})")
        async for update in remote.run(
            "How is the weather in Lisbon?", stream=True, session=session
        ):
            print(update.text, end="", flush=True)
        print()
        response = await remote.run("Book me a trip there.", session=session)
        while response.user_input_requests:
            answers: list[Content] = []
            for request in response.user_input_requests:
                call = request.function_call
                assert call is not None
                print(f"approve {call.name}({call.parse_arguments()})? yes")
                answers.append(request.to_function_approval_response(approved=True))
            response = await remote.run(Message("user", answers), session=session)
        print(response.text)

    server.should_exit = True
    await serving


if __name__ == "__main__":
    asyncio.run(main())
