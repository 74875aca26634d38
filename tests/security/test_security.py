"""Tool policies, result limits and redaction, each through a real agent run or logger."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest

from agentry import Agent, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.security import RedactingFilter, Redactor, ResultSizeLimit, ToolPolicy

call = ScriptedChatClient.function_call
ran: list[str] = []


@tool
def read_notes() -> str:
    """Read the notes."""
    ran.append("read_notes")
    return "notes"


@tool
def delete_notes() -> str:
    """Delete the notes."""
    ran.append("delete_notes")
    return "deleted"


@tool
def dump(size: int) -> str:
    """Return `size` characters."""
    return "x" * size


def last_results(model: ScriptedChatClient) -> list[Any]:
    return [
        c.result
        for m in model.calls[-1].messages
        for c in m.contents
        if c.type == "function_result"
    ]


@pytest.mark.parametrize(
    ("policy", "allowed"),
    [
        (ToolPolicy(), {"read_notes", "delete_notes", "file_access_read_file"}),
        (ToolPolicy(deny=["delete_*"]), {"read_notes", "file_access_read_file"}),
        (ToolPolicy(allow=["read_notes"]), {"read_notes"}),
        (ToolPolicy(allow=["*"], deny=["*notes"]), {"file_access_read_file"}),
        (ToolPolicy(allow=["file_access_*"]), {"file_access_read_file"}),
    ],
)
def test_allow_deny_and_globs(policy: ToolPolicy, allowed: set[str]) -> None:
    names = {"read_notes", "delete_notes", "file_access_read_file"}
    assert {n for n in names if policy.allows(n)} == allowed


async def test_a_denied_call_does_not_run_and_the_model_is_told_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran.clear()
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("read_notes", {}, None), ("delete_notes", {"secret": "s3cret"}, None)]
            ),
            "I could read but not delete.",
        ]
    )
    agent = Agent(
        client=model, tools=[read_notes, delete_notes], middleware=[ToolPolicy(deny=["delete_*"])]
    )
    with caplog.at_level(logging.WARNING, logger="agentry.security"):
        response = await agent.run("Read, then delete the notes.")

    assert response.text == "I could read but not delete."
    assert ran == ["read_notes"]
    assert last_results(model) == [
        "notes",
        "Error: the tool 'delete_notes' is not allowed here; do without it.",
    ]
    assert any("refused a call of 'delete_notes'" in r.getMessage() for r in caplog.records)
    assert all("s3cret" not in r.getMessage() for r in caplog.records)


def test_a_string_where_a_list_belongs_is_refused() -> None:
    with pytest.raises(TypeError, match="not the string"):
        ToolPolicy(deny="delete_notes")  # type: ignore[arg-type]


async def test_long_results_are_cut_with_a_marker() -> None:
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("dump", {"size": 50}, None), ("dump", {"size": 5}, None)]
            ),
            "Done.",
        ]
    )
    agent = Agent(client=model, tools=[dump], middleware=[ResultSizeLimit(max_chars=20)])
    await agent.run("Dump.")

    long, short = last_results(model)
    assert long.startswith("x" * 20 + "\n[... 30 more characters cut")
    assert "over the limit of 20" in long
    assert short == "xxxxx"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("key sk-proj-abcdefghijklmnop1234 here", "sk-proj-abcdefghijklmnop1234"),
        ("Authorization: Bearer eyJhbGciOi.payload.sig", "eyJhbGciOi.payload.sig"),
        ("aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE"),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----", "MIIEvQ"),
        ("login password=swordfish now", "swordfish"),
        ("api_key: abc123xyz", "abc123xyz"),
        ("token ghp_" + "a" * 36, "ghp_" + "a" * 36),
        ("slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
        ("maps AIza" + "B" * 35, "AIza" + "B" * 35),
        ("stripe sk_live_" + "4" * 24, "sk_live_" + "4" * 24),
        ("session eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2Q", "SflKxwRJSMeKKF2Q"),
        ("db postgres://app:s3cr3t@db.internal:5432/main", "s3cr3t"),
    ],
)
def test_each_kind_of_secret_is_redacted(text: str, secret: str) -> None:
    redacted = Redactor().redact(text)
    assert secret not in redacted
    assert "[REDACTED]" in redacted


def test_a_url_keeps_its_host_when_its_credentials_are_hidden() -> None:
    assert (
        Redactor().redact("connect to https://bot:hunter2@example.com/api now")
        == "connect to https://[REDACTED]@example.com/api now"
    )
    assert Redactor().redact("mail me@example.com at https://example.com") == (
        "mail me@example.com at https://example.com"
    )


def test_known_values_and_extra_patterns_are_redacted_too() -> None:
    redactor = Redactor(secrets=["correct horse"], extra_patterns=[r"acct-\d{6}"])
    assert redactor.redact("pass correct horse for acct-123456") == "pass [REDACTED] for [REDACTED]"
    assert Redactor([]).redact("sk-abcdefghijklmnopqrstu") == "sk-abcdefghijklmnopqrstu"
    with pytest.raises(ValueError, match="not a valid regular expression"):
        Redactor(extra_patterns=["("])


def test_the_logging_filter_redacts_messages_and_arguments(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("agentry.test_redaction")
    redacting = RedactingFilter(Redactor(secrets=["hunter2"]))
    logger.addFilter(redacting)
    try:
        with caplog.at_level(logging.INFO, logger="agentry.test_redaction"):
            logger.info("calling with %s and key %s", "hunter2", "sk-abcdefghijklmnopqrstuv")
    finally:
        logger.removeFilter(redacting)
    (record,) = caplog.records
    assert record.getMessage() == "calling with [REDACTED] and key [REDACTED]"


async def test_recorded_telemetry_passes_through_the_redactor() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agentry.observability import disable_instrumentation, enable_instrumentation

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    enable_instrumentation(
        enable_sensitive_data=True, tracer_provider=provider, redact=Redactor().redact
    )
    try:
        model = ScriptedChatClient(
            [call("read_notes", {}), "Your key is sk-abcdefghijklmnopqrstuv."]
        )
        await Agent(client=model, tools=[read_notes], name="keeper").run(
            "Remember password=swordfish please."
        )
    finally:
        disable_instrumentation()
        provider.shutdown()

    recorded = " ".join(
        str(value)
        for span in exporter.get_finished_spans()
        for value in (span.attributes or {}).values()
    )
    assert "Remember" in recorded  # content is recorded...
    assert "swordfish" not in recorded  # ...without its secrets
    assert "sk-abcdefghijklmnopqrstuv" not in recorded
    assert "[REDACTED]" in recorded


def deletes_all(name: str, arguments: Mapping[str, Any]) -> bool:
    return name == "delete_notes" and arguments.get("all") is True


@pytest.mark.parametrize("rule", [["delete_*"], deletes_all])
async def test_a_policy_can_hold_calls_for_approval_the_tool_does_not_ask_for(rule: Any) -> None:
    from agentry import Message

    ran.clear()
    model = ScriptedChatClient(
        [
            ScriptedChatClient.function_calls(
                [("read_notes", {}, None), ("delete_notes", {"all": True}, None)]
            ),
            "Read and deleted.",
        ]
    )
    agent = Agent(
        client=model,
        tools=[read_notes, delete_notes],
        middleware=[ToolPolicy(require_approval=rule)],
    )
    session = agent.create_session()

    paused = await agent.run("Read, then delete all notes.", session=session)
    assert ran == []
    (request,) = paused.user_input_requests
    assert request.function_call is not None
    assert request.function_call.name == "delete_notes"

    approval = request.to_function_approval_response(approved=True)
    done = await agent.run(Message("user", [approval]), session=session)
    assert done.text == "Read and deleted."
    assert sorted(ran) == ["delete_notes", "read_notes"]
