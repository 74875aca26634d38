"""Which environment variables name each OpenAI client's model."""

import pytest

from agentry.errors import ChatClientError
from agentry.openai import OpenAIChatClient, OpenAIChatCompletionClient

_MODEL_VARIABLES = (
    "OPENAI_CHAT_MODEL",
    "OPENAI_CHAT_COMPLETION_MODEL",
    "OPENAI_RESPONSES_MODEL",
    "OPENAI_MODEL",
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")


def test_each_client_reads_the_variable_a_ported_program_sets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_CHAT_MODEL", "responses-model")
    monkeypatch.setenv("OPENAI_CHAT_COMPLETION_MODEL", "completions-model")

    assert OpenAIChatClient().model == "responses-model"
    assert OpenAIChatCompletionClient().model == "completions-model"


@pytest.mark.parametrize(
    ("client_type", "variables"),
    [
        (OpenAIChatClient, ["OPENAI_CHAT_MODEL", "OPENAI_RESPONSES_MODEL", "OPENAI_MODEL"]),
        (
            OpenAIChatCompletionClient,
            ["OPENAI_CHAT_COMPLETION_MODEL", "OPENAI_CHAT_MODEL", "OPENAI_MODEL"],
        ),
    ],
)
def test_earlier_variables_win_and_later_ones_are_fallbacks(
    monkeypatch: pytest.MonkeyPatch, client_type: type, variables: list[str]
) -> None:
    for rank, name in reversed(list(enumerate(variables))):
        monkeypatch.setenv(name, f"model-{rank}")
        assert client_type().model == f"model-{rank}"


def test_without_a_model_the_error_lists_the_variables_tried() -> None:
    with pytest.raises(ChatClientError) as missing:
        OpenAIChatCompletionClient()
    message = str(missing.value)
    assert "OPENAI_CHAT_COMPLETION_MODEL, OPENAI_CHAT_MODEL, OPENAI_MODEL" in message
    assert "model=" in message
