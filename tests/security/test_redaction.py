"""Redaction of JSON text, escaped secrets, and log records with tracebacks."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from agentry.security import RedactingFilter, Redactor

KEY = "sk-abcdefghijklmnopqrstuvwx"


def test_json_pairs_lose_their_values_and_stay_json() -> None:
    document = json.dumps({"api_key": "live-123456", "password": "two words", "city": "Oslo"})
    assert json.loads(Redactor().redact(document)) == {
        "api_key": "[REDACTED]",
        "password": "[REDACTED]",
        "city": "Oslo",
    }


def test_json_pairs_inside_a_json_string_are_redacted_too() -> None:
    arguments = json.dumps({"token": 'live "quoted" 123', "city": "Oslo"})
    recorded = json.dumps(arguments)  # JSON arguments recorded as a JSON string
    assert json.loads(json.loads(Redactor().redact(recorded))) == {
        "token": "[REDACTED]",
        "city": "Oslo",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("access_token: xyz123;", "access_token: [REDACTED];"),
        ("client_secret='two words' ok", "client_secret='[REDACTED]' ok"),
        ("AWS_SECRET_ACCESS_KEY=abc/def", "AWS_SECRET_ACCESS_KEY=[REDACTED]"),
        ('{"password": null}', '{"password": [REDACTED]}'),
        ("max_tokens: 100, tokens=5", "max_tokens: 100, tokens=5"),
    ],
)
def test_names_that_end_in_a_secret_word_have_their_values_hidden(text: str, expected: str) -> None:
    assert Redactor().redact(text) == expected


@pytest.mark.parametrize("secret", ['pa"ss', "back\\slash", "two\nlines", "été"])
def test_exact_secrets_are_found_json_escaped_once_or_twice(secret: str) -> None:
    redactor = Redactor(secrets=[secret])
    once = json.dumps({"answer": f"it is {secret}"})
    twice = json.dumps(once)
    for text in (once, twice, json.dumps(once, ensure_ascii=False)):
        assert json.loads(redactor.redact(text)) is not None  # still JSON
    assert json.loads(redactor.redact(once)) == {"answer": "it is [REDACTED]"}
    assert json.loads(json.loads(redactor.redact(twice))) == {"answer": "it is [REDACTED]"}


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger below `agentry` whose records reach a handler with a `RedactingFilter`."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    parent = logging.getLogger("agentry.test_filter")
    parent.addHandler(handler)
    parent.setLevel(logging.INFO)
    try:
        yield logging.getLogger("agentry.test_filter.child"), stream
    finally:
        parent.removeHandler(handler)
        parent.setLevel(logging.NOTSET)


def test_the_filter_on_a_handler_redacts_records_of_child_loggers(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = logged
    logger.warning("calling with key %s", KEY)
    assert stream.getvalue() == "calling with key [REDACTED]\n"


def test_the_filter_redacts_tracebacks_and_stacks(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = logged
    try:
        raise ValueError(f"rejected {KEY}")
    except ValueError:
        logger.exception("the call failed")
    logger.info("here, with %s", KEY, stack_info=True)

    text = stream.getvalue()
    assert "ValueError: rejected [REDACTED]" in text
    assert "Traceback (most recent call last):" in text
    assert "Stack (most recent call last):" in text
    assert KEY not in text


def test_the_filter_takes_any_function_from_text_to_text() -> None:
    record = logging.LogRecord("agentry", logging.INFO, __file__, 1, "hi %s", ("Ada",), None)
    RedactingFilter(str.upper).filter(record)
    assert record.getMessage() == "HI ADA"


def test_observability_and_security_export_the_same_redaction() -> None:
    import agentry.observability as observability
    import agentry.security as security

    assert observability.Redactor is security.Redactor
    assert observability.RedactingFilter is security.RedactingFilter
    assert observability.DEFAULT_PATTERNS is security.DEFAULT_PATTERNS
    assert observability.Redactor().redact("key sk-abcdefghijklmnopqrstu") == "key [REDACTED]"
