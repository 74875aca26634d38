"""Must-level protocol behaviour, checked on the wire, and bad input."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from a2a.types import AgentCard, Part
from a2a.utils.errors import ContentTypeNotSupportedError
from a2a.utils.proto_utils import warn_on_missing_required_fields
from google.protobuf import json_format

from agentry import Agent
from agentry.a2a import A2AConfigError, build_agent_card, create_app
from agentry.clients.scripted import ScriptedChatClient

from .conftest import a2a_client, serve
from .helpers import add, collect, delete_file, user_message

pytestmark = pytest.mark.timeout(30)

VERSION = {"A2A-Version": "1.0"}


@asynccontextmanager
async def raw_http(**options: Any) -> AsyncGenerator[httpx.AsyncClient, None]:
    agent = Agent(
        client=ScriptedChatClient(["hello"] * 5),
        name="helper",
        description="Helps.",
        tools=[add, delete_file],
    )
    async with (
        serve(agent, **options) as server,
        httpx.AsyncClient(base_url=server.url, timeout=10) as http,
    ):
        yield http


def rpc(method: str, params: dict[str, Any], request_id: int | str = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def send_params(*parts: dict[str, Any], **message: Any) -> dict[str, Any]:
    return {
        "message": {
            "messageId": uuid.uuid4().hex,
            "role": "ROLE_USER",
            "parts": list(parts),
            **message,
        }
    }


async def test_agent_card_has_the_required_fields() -> None:
    async with raw_http() as http:
        response = await http.get("/.well-known/agent-card.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    card = response.json()
    assert card["name"] == "helper"
    assert card["description"] == "Helps."
    assert card["version"]
    assert card["capabilities"]["streaming"] is True
    assert card["defaultInputModes"] == ["text/plain", "application/json"]
    assert card["defaultOutputModes"] == ["text/plain", "application/json"]
    interfaces = {i["protocolBinding"]: i for i in card["supportedInterfaces"]}
    assert set(interfaces) == {"JSONRPC", "HTTP+JSON"}
    assert all(i["protocolVersion"] == "1.0" for i in interfaces.values())
    assert interfaces["JSONRPC"]["url"] == str(http.base_url).rstrip("/") + "/"
    skills = {s["id"]: s for s in card["skills"]}
    assert set(skills) == {"add", "delete_file"}
    assert skills["add"]["description"] == "Add two numbers."
    assert skills["add"]["tags"] == ["tool"]
    parsed = json_format.ParseDict(card, AgentCard())
    assert warn_on_missing_required_fields(parsed, "served card")


def test_card_without_tools_has_the_agent_as_its_skill() -> None:
    agent = Agent(client=ScriptedChatClient([]), name="Trip Planner")
    card = build_agent_card(agent, url="http://example.com")
    assert [(s.id, s.name) for s in card.skills] == [("trip-planner", "Trip Planner")]
    assert card.description == "The Trip Planner agent."
    assert warn_on_missing_required_fields(card, "built card")


async def test_card_can_be_overridden() -> None:
    agent = Agent(client=ScriptedChatClient([]), name="inner")
    custom = build_agent_card(
        agent,
        url="http://example.com",
        name="Public name",
        version="2.1.0",
        documentation_url="http://example.com/docs",
    )
    async with serve(agent, agent_card=custom) as server, httpx.AsyncClient() as http:
        card = (await http.get(server.url + "/.well-known/agent-card.json")).json()
    assert card["name"] == "Public name"
    assert card["version"] == "2.1.0"
    assert card["documentationUrl"] == "http://example.com/docs"
    app = create_app(agent, database=None, name="renamed", description="Does things.")
    assert (app.agent_card.name, app.agent_card.description) == ("renamed", "Does things.")


async def test_a2a_version_header_is_required_and_checked() -> None:
    params = {"id": "some-task"}
    async with raw_http() as http:
        missing = (await http.post("/", json=rpc("GetTask", params))).json()
        wrong = (
            await http.post("/", json=rpc("GetTask", params), headers={"A2A-Version": "2.0"})
        ).json()
        right = (await http.post("/", json=rpc("GetTask", params), headers=VERSION)).json()
        rest_missing = await http.get("/tasks/some-task")
    assert missing["error"]["code"] == -32009
    assert wrong["error"]["code"] == -32009
    assert "2.0" in wrong["error"]["message"]
    assert right["error"]["code"] == -32001  # the version is fine; the task is unknown
    assert rest_missing.status_code == 400
    assert rest_missing.json()["error"]["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"


async def test_unknown_task_errors_on_both_bindings() -> None:
    async with raw_http() as http:
        get = (await http.post("/", json=rpc("GetTask", {"id": "nope"}), headers=VERSION)).json()
        cancel = (
            await http.post("/", json=rpc("CancelTask", {"id": "nope"}), headers=VERSION)
        ).json()
        follow_up = (
            await http.post(
                "/",
                json=rpc("SendMessage", send_params({"text": "hi"}, taskId="nope")),
                headers=VERSION,
            )
        ).json()
        rest = await http.get("/tasks/nope", headers=VERSION)
    assert get["error"]["code"] == -32001
    assert get["id"] == 1
    assert cancel["error"]["code"] == -32001
    assert follow_up["error"]["code"] == -32001
    assert rest.status_code == 404
    assert rest.json()["error"]["status"] == "NOT_FOUND"


async def test_unsupported_operations_are_refused() -> None:
    async with raw_http() as http:
        push = (
            await http.post(
                "/",
                json=rpc("CreateTaskPushNotificationConfig", {"taskId": "t", "url": "http://a"}),
                headers=VERSION,
            )
        ).json()
        extended = (
            await http.post("/", json=rpc("GetExtendedAgentCard", {}), headers=VERSION)
        ).json()
        done = (
            await http.post(
                "/", json=rpc("SendMessage", send_params({"text": "hi"})), headers=VERSION
            )
        ).json()
        task_id = done["result"]["task"]["id"]
        cancel_done = (
            await http.post("/", json=rpc("CancelTask", {"id": task_id}), headers=VERSION)
        ).json()
        resubscribe = await http.post(
            "/", json=rpc("SubscribeToTask", {"id": task_id}), headers=VERSION
        )
    assert push["error"]["code"] == -32003
    assert extended["error"]["code"] == -32004
    assert cancel_done["error"]["code"] == -32002  # a completed task is not cancelable
    assert "-32004" in resubscribe.text  # a terminal task has nothing to stream


async def test_content_types_of_both_bindings() -> None:
    async with raw_http() as http:
        jsonrpc = await http.post(
            "/", json=rpc("SendMessage", send_params({"text": "hi"})), headers=VERSION
        )
        rest = await http.post("/message:send", json=send_params({"text": "hi"}), headers=VERSION)
        async with http.stream(
            "POST",
            "/",
            json=rpc("SendStreamingMessage", send_params({"text": "hi"})),
            headers=VERSION,
        ) as stream:
            stream_type = stream.headers["content-type"]
            body = "".join([chunk async for chunk in stream.aiter_text()])
    assert jsonrpc.headers["content-type"] == "application/json"
    assert jsonrpc.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert rest.headers["content-type"] == "application/a2a+json"
    assert rest.json()["task"]["artifacts"][0]["parts"] == [{"text": "hello"}]
    assert stream_type.startswith("text/event-stream")
    events = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
    assert events[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_malformed_requests_get_protocol_errors_and_the_server_keeps_serving() -> None:
    async with raw_http(max_request_bytes=10_000) as http:
        parse = await http.post("/", content=b"{not json", headers=VERSION)
        not_object = await http.post("/", content=b"[1, 2]", headers=VERSION)
        no_version = await http.post(
            "/", json={"id": 1, "method": "GetTask", "params": {}}, headers=VERSION
        )
        unknown = await http.post("/", json=rpc("tasks/frobnicate", {}), headers=VERSION)
        bad_params = await http.post("/", json=rpc("GetTask", {"id": 5}), headers=VERSION)
        no_parts = await http.post("/", json=rpc("SendMessage", send_params()), headers=VERSION)
        empty_text = await http.post(
            "/", json=rpc("SendMessage", send_params({"text": ""})), headers=VERSION
        )
        too_big = await http.post(
            "/", json=rpc("SendMessage", send_params({"text": "x" * 20_000})), headers=VERSION
        )
        rest_too_big = await http.post(
            "/message:send", json=send_params({"text": "x" * 20_000}), headers=VERSION
        )
        rest_bad_json = await http.post("/message:send", content=b"{x", headers=VERSION)
        still_fine = await http.post(
            "/", json=rpc("SendMessage", send_params({"text": "hi"})), headers=VERSION
        )
    assert parse.json()["error"]["code"] == -32700
    assert parse.json()["id"] is None
    assert not_object.json()["error"]["code"] == -32600
    assert no_version.json()["error"]["code"] == -32600
    assert unknown.json()["error"]["code"] == -32601
    assert bad_params.json()["error"]["code"] == -32602
    assert no_parts.json()["error"]["code"] == -32602
    assert "parts" in json.dumps(no_parts.json()["error"])
    assert empty_text.json()["error"]["code"] == -32602
    assert "no content" in empty_text.json()["error"]["message"]
    assert too_big.status_code == 413
    assert too_big.json()["error"]["code"] == -32600
    assert "10000 bytes" in too_big.json()["error"]["message"]
    assert rest_too_big.status_code == 413
    assert rest_too_big.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert rest_bad_json.status_code == 400
    assert still_fine.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_data_only_message_is_accepted() -> None:
    async with raw_http() as http:
        response = await http.post(
            "/", json=rpc("SendMessage", send_params({"data": {"question": 1}})), headers=VERSION
        )
    assert response.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_media_types_outside_the_input_modes_are_refused() -> None:
    image = {"raw": "iVBORw0KGgo=", "mediaType": "image/png", "filename": "a.png"}
    async with raw_http() as http:
        jsonrpc = await http.post(
            "/", json=rpc("SendMessage", send_params({"text": "look"}, image)), headers=VERSION
        )
        rest = await http.post(
            "/message:send", json=send_params({"text": "look"}, image), headers=VERSION
        )
        declared = await http.post(
            "/",
            json=rpc("SendMessage", send_params({"text": "hi", "mediaType": "text/plain"})),
            headers=VERSION,
        )
    assert jsonrpc.json()["error"]["code"] == -32005
    assert "image/png" in jsonrpc.json()["error"]["message"]
    assert rest.status_code == 415
    assert rest.json()["error"]["code"] == 415
    assert rest.json()["error"]["details"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"
    assert declared.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_oversized_chunked_body_is_refused_too() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield b" " * 1_000

    async with raw_http(max_request_bytes=10_000) as http:
        response = await http.post("/", content=chunks(), headers=VERSION)
        after = await http.post("/", json=rpc("GetTask", {"id": "x"}), headers=VERSION)
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json()["error"]["code"] == -32600
    assert after.json()["error"]["code"] == -32001


def test_create_app_refuses_arguments_that_do_not_fit() -> None:
    agent = Agent(client=ScriptedChatClient([]), name="x")
    card = build_agent_card(agent, url="http://example.com")
    with pytest.raises(A2AConfigError, match=r"agent_card= and card options \['name'\]"):
        create_app(agent, agent_card=card, name="other", database=None)
    with pytest.raises(A2AConfigError, match="must be positive"):
        create_app(agent, max_request_bytes=0, database=None)


async def test_http_json_answers_unsupported_media_types_with_415() -> None:
    body = json.dumps(send_params({"text": "hi"})).encode()
    image = Part(raw=b"\x89PNG", media_type="image/png")
    async with raw_http() as http:
        as_text = await http.post(
            "/message:send", content=body, headers={**VERSION, "Content-Type": "text/plain"}
        )
        as_a2a_json = await http.post(
            "/message:send",
            content=body,
            headers={**VERSION, "Content-Type": "application/a2a+json; charset=utf-8"},
        )
        async with a2a_client(str(http.base_url).rstrip("/"), "HTTP+JSON") as client:
            request = user_message("look")
            request.message.parts.append(image)
            with pytest.raises(ContentTypeNotSupportedError, match="image/png"):
                await collect(client, request)
    assert as_text.status_code == 415
    assert as_text.json()["error"]["details"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"
    assert "application/json" in as_text.json()["error"]["message"]
    assert as_a2a_json.status_code == 200
    assert as_a2a_json.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
