"""Workflows ask for authorization: an agent's tool inside one, or an executor itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typing_extensions import Never

from agentry import (
    Agent,
    Content,
    FunctionInvocationContext,
    Message,
    require_authorization,
    tool,
)
from agentry.clients.scripted import ScriptedChatClient
from agentry.workflows import (
    AgentExecutorResponse,
    Executor,
    FileCheckpointStorage,
    WorkflowBuilder,
    WorkflowContext,
    WorkflowRunState,
    executor,
    handler,
    response_handler,
)

TOKEN = "ghp_workflow_secret"


@tool
def list_repos(owner: str, context: FunctionInvocationContext) -> str:
    """List the owner's repositories."""
    token = require_authorization(context, "A GitHub token")["token"]
    return f"{owner}/agentry (read with {len(token)} characters of token)"


@executor
async def report(response: AgentExecutorResponse, ctx: WorkflowContext[Never, str]) -> None:
    await ctx.yield_output(f"{response.executor_id} said: {response.agent_response.text}")


def repos_workflow() -> Any:
    client = ScriptedChatClient(
        [
            ScriptedChatClient.function_call("list_repos", {"owner": "ada"}, call_id="c1"),
            lambda messages, options: f"Found {messages[-1].contents[0].result}.",
        ]
    )
    agent = Agent(client=client, name="github", tools=[list_repos])
    return (
        WorkflowBuilder(name="repos", start_executor=agent, output_from=[report])
        .add_edge(agent, report)
        .build()
    )


async def test_an_agent_asking_for_authorization_becomes_a_request_of_the_run(
    tmp_path: Path,
) -> None:
    storage = FileCheckpointStorage(tmp_path)
    workflow = repos_workflow()
    first = await workflow.run("list ada's repositories", checkpoint_storage=storage)
    assert first.get_final_state() is WorkflowRunState.IDLE_WITH_PENDING_REQUESTS
    (event,) = first.get_request_info_events()
    request = event.data
    assert isinstance(request, Content)
    assert (request.type, request.id, request.text) == (
        "authorization_request",
        "c1",
        "A GitHub token",
    )
    assert event.request_id is not None
    answer = request.to_authorization_response({"token": TOKEN})
    second = await workflow.run(responses={event.request_id: answer}, checkpoint_storage=storage)
    assert second.get_outputs() == [
        f"github said: Found ada/agentry (read with {len(TOKEN)} characters of token)."
    ]
    saved = [path.read_text() for path in tmp_path.glob("*.json")]
    assert saved
    assert all(TOKEN not in text for text in saved)


async def test_authorization_requests_pass_through_a_workflow_agent() -> None:
    agent = repos_workflow().as_agent(name="repos-agent")
    session = agent.create_session()
    first = await agent.run("list ada's repositories", session=session)
    (request,) = first.user_input_requests
    assert request.type == "authorization_request"
    second = await agent.run(
        Message("user", [request.to_authorization_response({"token": TOKEN})]), session=session
    )
    assert second.text.startswith("github said: Found ada/agentry")
    assert TOKEN not in str(session.to_dict())


class Deployer(Executor):
    """Asks for a deploy key itself before deploying."""

    @handler
    async def deploy(self, messages: list[Message], ctx: WorkflowContext[Never, str]) -> None:
        request = Content.from_authorization_request(
            id="deploy-key", description="A deploy key for production", scheme="api_key"
        )
        await ctx.request_info(request, Content)

    @response_handler
    async def deploy_with_key(
        self, request: Content, answer: Content, ctx: WorkflowContext[Never, str]
    ) -> None:
        key = (answer.credentials or {}).get("api_key", "")
        await ctx.yield_output(f"deployed with a key of {len(key)} characters")


async def test_an_executor_can_ask_for_authorization_itself() -> None:
    agent = WorkflowBuilder(start_executor=Deployer("deployer")).build().as_agent(name="ops")
    first = await agent.run("deploy")
    (request,) = first.user_input_requests
    assert (request.type, request.scheme) == ("authorization_request", "api_key")
    second = await agent.run(
        Message("user", [request.to_authorization_response({"api_key": "k" * 12})])
    )
    assert second.text == "deployed with a key of 12 characters"
