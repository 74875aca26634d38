"""The packages whose names load on first use: `dir()`, unknown names, kept values, and
a missing extra named with the command that installs it."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

LAZY_PACKAGES = [
    "agentry",
    "agentry.a2a",
    "agentry.azure",
    "agentry.durable",
    "agentry.observability",
    "agentry.orchestrations",
    "agentry.sessions",
    "agentry.testing",
]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": ""},
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_lists_and_resolves_its_public_names(package: str) -> None:
    module = importlib.import_module(package)
    public: list[str] = list(module.__all__)
    assert dir(module) == sorted(public)
    for name in public:
        assert getattr(module, name) is not None, name
        assert name in vars(module), name  # kept: the next use costs nothing
    with pytest.raises(AttributeError, match=rf"module '{package}' has no attribute 'Nope'"):
        getattr(module, "Nope")  # noqa: B009


def test_importing_the_lazy_packages_loads_none_of_their_dependencies() -> None:
    shown = _python(
        "import sys\n"
        "import agentry, agentry.a2a, agentry.azure, agentry.durable, agentry.sessions\n"
        "import agentry.observability, agentry.orchestrations, agentry.testing\n"
        "heavy = ('a2a', 'dbos', 'openai', 'sqlalchemy', 'opentelemetry', 'uvicorn')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("blocked", "name", "extra", "feature"),
    [
        ("dbos", "agentry.durable.DurableRuntime", "durable", "agentry.durable"),
        ("a2a", "agentry.a2a.A2AAgent", "a2a", "A2A"),
        (
            "openai",
            "agentry.azure.AzureOpenAIChatClient",
            "azure",
            "agentry.azure.AzureOpenAIChatClient",
        ),
    ],
)
def test_a_name_whose_extra_is_missing_names_the_extra_to_install(
    blocked: str, name: str, extra: str, feature: str
) -> None:
    package, _, attribute = name.rpartition(".")
    shown = _python(
        f"import sys\nsys.modules[{blocked!r}] = None\nfrom {package} import {attribute}"
    )
    assert shown.returncode == 1
    assert shown.stderr.splitlines()[-1] == (
        f"agentry.errors.MissingExtraError: {feature} needs the optional dependencies of the "
        f"'{extra}' extra; install them with: pip install 'agentry[{extra}]'"
    )


def test_an_import_error_of_the_package_itself_is_not_taken_for_a_missing_extra() -> None:
    shown = _python(
        "import sys\n"
        "sys.modules['agentry.durable._runtime'] = None\n"
        "try:\n"
        "    from agentry.durable import DurableRuntime\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__)\n"
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "ModuleNotFoundError"  # not a MissingExtraError
