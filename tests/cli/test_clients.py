from typing import Any

import pytest

from agentry.cli import _clients
from agentry.cli._errors import CliError
from agentry.errors import MissingExtraError


def test_auto_picks_openai_when_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen: list[str] = []

    def find(choice: str) -> Any:
        chosen.append(choice)

        def build(*args: str) -> tuple[str, tuple[str, ...]]:
            return choice, args

        return build

    monkeypatch.setattr(_clients, "_find_client", find)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert _clients.make_client("auto") == ("local", ())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert _clients.make_client("auto", model="gpt-x") == ("openai", ("gpt-x",))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert _clients.make_client("auto") == ("openai-chat", ())
    assert chosen == ["local", "openai", "openai-chat"]


def test_a_client_module_this_installation_lacks_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_clients.CLIENT_LOCATIONS, "local", (("agentry.no_such_local", "Client"),))
    with pytest.raises(CliError, match=r"has no local chat client \(agentry.no_such_local"):
        _clients.make_client("local")


def test_a_client_whose_extra_is_missing_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def import_module(name: str) -> Any:
        raise ModuleNotFoundError("No module named 'llama_cpp'", name="llama_cpp")

    monkeypatch.setattr(_clients.importlib, "import_module", import_module)
    with pytest.raises(MissingExtraError, match=r"pip install 'agentry\[local\]'"):
        _clients.make_client("local")


def test_script_only_goes_with_the_scripted_client() -> None:
    with pytest.raises(CliError, match="--script only works with --client scripted"):
        _clients.make_client("openai", script="x.json")
