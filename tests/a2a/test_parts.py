"""Mapping A2A parts to agentry contents and back, and reading approval answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from a2a.types import Message as A2AMessage
from a2a.types import Part, Role
from google.protobuf import json_format, struct_pb2

from agentry import Content, Message
from agentry.a2a._answers import read_follow_up
from agentry.a2a._parts import (
    approval_request_data,
    content_to_part,
    message_to_agentry,
    part_to_content,
    parts_to_contents,
    to_a2a_message,
)

SRC_ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}


def data_part(value: Any) -> Part:
    return Part(data=json_format.ParseDict(value, struct_pb2.Value()))


def test_each_part_kind_becomes_content() -> None:
    text = part_to_content(Part(text="hi", media_type="text/markdown"))
    raw = part_to_content(Part(raw=b"\x00\x01", media_type="image/png", filename="x.png"))
    url = part_to_content(Part(url="https://example.com/f.pdf", media_type="application/pdf"))
    data = part_to_content(data_part({"n": 3, "xs": [1, 2.5], "ok": True}))
    assert text is not None
    assert (text.type, text.text) == ("text", "hi")
    assert raw is not None
    assert (raw.type, raw.get_data_bytes(), raw.media_type) == ("data", b"\x00\x01", "image/png")
    assert raw.name == "x.png"
    assert url is not None
    assert (url.type, url.uri, url.media_type) == (
        "uri",
        "https://example.com/f.pdf",
        "application/pdf",
    )
    assert data is not None
    assert (data.type, data.media_type) == ("text", "application/json")
    assert data.text == '{"n": 3, "ok": true, "xs": [1, 2.5]}'
    assert data.json_value == {"n": 3, "ok": True, "xs": [1, 2.5]}
    assert part_to_content(Part()) is None


def test_contents_round_trip_to_parts() -> None:
    originals = [
        Part(text="hello"),
        Part(raw=b"abc", media_type="text/csv", filename="t.csv"),
        Part(url="https://example.com/a", media_type="text/html"),
        data_part({"k": [1, {"z": None}]}),
    ]
    contents = parts_to_contents(originals)
    back = [content_to_part(c) for c in contents]
    assert back[0] == Part(text="hello")
    assert back[1] == Part(raw=b"abc", media_type="text/csv", filename="t.csv")
    assert back[2] == Part(url="https://example.com/a", media_type="text/html")
    assert back[3] is not None
    assert json_format.MessageToDict(back[3].data) == {"k": [1, {"z": None}]}


def test_inner_contents_stay_inside_the_agent() -> None:
    call = Content.from_function_call(call_id="1", name="f", arguments={})
    assert content_to_part(call) is None
    assert content_to_part(Content.from_function_result(call_id="1", result=3)) is None
    assert content_to_part(Content.from_text_reasoning("hmm")) is None
    error = content_to_part(Content.from_error("boom"))
    assert error == Part(text="Error: boom")


def test_approval_request_becomes_a_data_part() -> None:
    call = Content.from_function_call(call_id="c", name="rm", arguments='{"path": "/tmp/x"}')
    request = Content.from_function_approval_request(id="c", function_call=call)
    assert approval_request_data(request) == {
        "kind": "function_approval_request",
        "id": "c",
        "call_id": "c",
        "name": "rm",
        "arguments": {"path": "/tmp/x"},
    }
    part = content_to_part(request)
    assert part is not None
    assert part.media_type == "application/json"


def test_messages_keep_role_ids_and_drop_empty_text() -> None:
    message = A2AMessage(
        message_id="m", role=Role.ROLE_AGENT, parts=[Part(text=""), Part(text="answer")]
    )
    converted = message_to_agentry(message)
    assert (converted.role, converted.message_id, converted.text) == ("assistant", "m", "answer")
    assert len(converted.contents) == 1
    outgoing = to_a2a_message([Content.from_text("x")], context_id="c", task_id="t")
    assert (outgoing.role, outgoing.context_id, outgoing.task_id) == (Role.ROLE_AGENT, "c", "t")
    assert [p.text for p in outgoing.parts] == ["x"]


def pending(*ids: str) -> list[Content]:
    return [
        Content.from_function_approval_request(
            id=i, function_call=Content.from_function_call(call_id=i, name="f", arguments={})
        )
        for i in ids
    ]


def reply(*contents: Content) -> Message:
    return Message("user", list(contents))


def answer_data(value: Any) -> Content:
    content = part_to_content(data_part(value))
    assert content is not None
    return content


def test_text_answers_apply_to_every_request() -> None:
    for word, approved in [("Yes", True), ("approve.", True), (" no ", False), ("Reject!", False)]:
        answers = read_follow_up(reply(Content.from_text(word)), pending("a", "b")).answers
        assert answers is not None
        assert [(a.id, a.approved, a.type) for a in answers] == [
            ("a", approved, "function_approval_response"),
            ("b", approved, "function_approval_response"),
        ]


def test_data_answers_can_decide_each_request() -> None:
    both = read_follow_up(
        reply(answer_data({"approvals": {"a": True, "b": False}})), pending("a", "b")
    ).answers
    assert both is not None
    assert [(a.id, a.approved) for a in both] == [("a", True), ("b", False)]
    one = read_follow_up(reply(answer_data({"id": "b", "approved": False})), pending("b")).answers
    assert one is not None
    assert [(a.id, a.approved) for a in one] == [("b", False)]
    everything = read_follow_up(reply(answer_data({"approved": True})), pending("a")).answers
    assert everything is not None
    assert everything[0].approved is True


def test_unclear_or_partial_answers_are_none() -> None:
    assert read_follow_up(reply(Content.from_text("perhaps")), pending("a")).answers is None
    assert (
        read_follow_up(reply(answer_data({"approvals": {"a": True}})), pending("a", "b")).answers
        is None
    )
    assert read_follow_up(reply(answer_data({"approved": "yes"})), pending("a")).answers is None


def test_importing_agentry_does_not_import_the_sdk() -> None:
    code = (
        "import sys, agentry, agentry.a2a; "
        "agentry.a2a.SQLiteContextSessionStore, agentry.a2a.RemoteAgentError; "
        "assert 'a2a' not in sys.modules, 'the SDK was imported eagerly'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, env=SRC_ENV)


def test_missing_sdk_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['a2a'] = None\n"
        "import agentry.a2a\n"
        "try:\n"
        "    agentry.a2a.create_app\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=SRC_ENV,
    )
    assert completed.stdout.startswith("MissingExtraError A2A needs")
    assert "pip install 'agentry[a2a]'" in completed.stdout
