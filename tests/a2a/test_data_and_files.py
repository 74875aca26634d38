"""Structured data (`Content.from_json_value`) and named files, as contents and on the wire."""

from __future__ import annotations

import pytest
from a2a.types import Part, TaskState
from google.protobuf import json_format

from agentry import Agent, Content, Message
from agentry.a2a import A2AAgent
from agentry.a2a._parts import content_to_part, part_to_content
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ContentError
from agentry.types import AgentResponse

from .conftest import a2a_client, serve
from .helpers import send_blocking, user_message

pytestmark = pytest.mark.timeout(30)


def test_json_content_keeps_its_value_and_reads_as_text() -> None:
    data = Content.from_json_value({"total": 3, "items": ["a", "b"]})
    assert (data.type, data.media_type) == ("text", "application/json")
    assert data.text == '{"total": 3, "items": ["a", "b"]}'
    assert data.json_value == {"total": 3, "items": ["a", "b"]}
    vendor = Content.from_json_value([1, 2], media_type="application/vnd.report+json")
    assert vendor.json_value == [1, 2]


def test_json_and_named_files_survive_to_dict_and_back() -> None:
    contents = [
        Content.from_json_value({"total": 3}, name="summary"),
        Content.from_data(b"a,b\n1,2\n", "text/csv", name="table.csv"),
        Content.from_uri("https://example.com/r.pdf", "application/pdf", name="report.pdf"),
    ]
    back = [Content.from_dict(c.to_dict()) for c in contents]
    assert back == contents
    assert back[0].json_value == {"total": 3}
    assert [c.name for c in back] == ["summary", "table.csv", "report.pdf"]
    assert back[1].get_data_bytes() == b"a,b\n1,2\n"


def test_what_is_not_json_is_refused_clearly() -> None:
    with pytest.raises(ContentError, match="needs a JSON value"):
        Content.from_json_value({"when": object()})
    with pytest.raises(ContentError, match="needs a JSON media type"):
        Content.from_json_value({"a": 1}, media_type="text/plain")
    with pytest.raises(ContentError, match="json_value needs text content with a JSON media"):
        _ = Content.from_text("hello").json_value
    with pytest.raises(ContentError, match="not valid JSON"):
        _ = Content.from_text("{oops", media_type="application/json").json_value


def test_json_contents_are_never_merged_into_neighbouring_text() -> None:
    response = AgentResponse(
        messages=[
            Message(
                "assistant",
                [
                    Content.from_text("Totals: "),
                    Content.from_json_value({"a": 1}),
                    Content.from_json_value({"b": 2}),
                ],
            )
        ]
    )
    folded = AgentResponse.from_updates(response.to_updates())
    assert [c.json_value for c in folded.messages[0].contents[1:]] == [{"a": 1}, {"b": 2}]


def test_typed_contents_map_to_a2a_parts_and_back() -> None:
    data_part = content_to_part(Content.from_json_value({"total": 3}))
    raw_part = content_to_part(Content.from_data(b"a,b", "text/csv", name="t.csv"))
    url_part = content_to_part(
        Content.from_uri("https://e.com/r.pdf", "application/pdf", name="r.pdf")
    )
    assert data_part is not None
    assert raw_part is not None
    assert url_part is not None
    assert data_part.WhichOneof("content") == "data"
    assert json_format.MessageToDict(data_part.data) == {"total": 3}
    assert raw_part == Part(raw=b"a,b", media_type="text/csv", filename="t.csv")
    assert url_part == Part(
        url="https://e.com/r.pdf", media_type="application/pdf", filename="r.pdf"
    )
    back = [part_to_content(p) for p in (data_part, raw_part, url_part)]
    assert [c.name if c else None for c in back] == [None, "t.csv", "r.pdf"]
    assert back[0] is not None
    assert back[0].json_value == {"total": 3}


def analyst_answer(messages: list[Message], options: object) -> Message:
    """Answers with text, a JSON summary of what it got, and a named CSV file."""
    del options
    got = [
        {"type": c.type, "name": c.name, "media_type": c.media_type} for c in messages[-1].contents
    ]
    return Message(
        "assistant",
        [
            Content.from_text("Here is the table."),
            Content.from_json_value({"received": got}),
            Content.from_data(b"city,days\nParis,3\n", "text/csv", name="trip.csv"),
        ],
    )


async def test_served_agent_answers_with_a_data_part_and_a_named_file() -> None:
    agent = Agent(client=ScriptedChatClient([analyst_answer]), name="analyst")
    async with serve(agent) as server, a2a_client(server.url, streaming=False) as client:
        task = await send_blocking(client, user_message("Plan it", data={"city": "Paris"}))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    [artifact] = task.artifacts
    kinds = [p.WhichOneof("content") for p in artifact.parts]
    assert kinds == ["text", "data", "raw"]
    assert json_format.MessageToDict(artifact.parts[1].data) == {
        "received": [
            {"type": "text", "name": None, "media_type": None},
            {"type": "text", "name": None, "media_type": "application/json"},
        ]
    }
    assert artifact.parts[2].filename == "trip.csv"
    assert artifact.parts[2].media_type == "text/csv"


@pytest.mark.parametrize("streaming", [True, False])
async def test_a2a_agent_sends_and_receives_data_and_named_files(streaming: bool) -> None:
    model = ScriptedChatClient([analyst_answer])
    agent = Agent(client=model, name="analyst")
    question = Message(
        "user",
        [
            Content.from_text("Plan it"),
            Content.from_json_value({"city": "Paris"}),
            Content.from_uri("https://example.com/notes.txt", "text/plain", name="notes.txt"),
        ],
    )
    async with serve(agent) as server, A2AAgent(url=server.url, streaming=streaming) as remote:
        response = await remote.run(question)
    sent = model.calls[0].messages[-1].contents
    assert sent[1].json_value == {"city": "Paris"}
    assert (sent[2].type, sent[2].name) == ("uri", "notes.txt")
    contents = response.messages[-1].contents
    assert [c.type for c in contents] == ["text", "text", "data"]
    assert contents[0].text == "Here is the table."
    assert contents[1].json_value["received"][2] == {
        "type": "uri",
        "name": "notes.txt",
        "media_type": "text/plain",
    }
    assert (contents[2].name, contents[2].media_type) == ("trip.csv", "text/csv")
    assert contents[2].get_data_bytes() == b"city,days\nParis,3\n"
