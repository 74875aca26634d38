"""`agentry.azure` loads on first use, and a missing extra names itself."""

from __future__ import annotations

import subprocess
import sys


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_importing_agentry_or_agentry_azure_loads_no_sdk() -> None:
    shown = _python(
        "import sys, agentry, agentry.azure\n"
        "loaded = lambda: sorted(m for m in ('openai', 'azure', 'agentry.foundry') "
        "if m in sys.modules)\n"
        "print(loaded())\n"
        "from agentry.azure import AzureOpenAIChatClient\n"
        "print(loaded(), 'azure.identity' in sys.modules)\n"
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == ["[]", "['openai'] False"]


def test_without_the_openai_sdk_the_azure_clients_name_the_azure_extra() -> None:
    shown = _python(
        "import sys\n"
        "sys.modules['openai'] = None\n"
        "from agentry.errors import MissingExtraError\n"
        "for statement in ('from agentry.azure import AzureOpenAIChatClient',\n"
        "                  'from agentry.foundry import FoundryChatClient'):\n"
        "    try:\n"
        "        exec(statement)\n"
        "    except MissingExtraError as error:\n"
        "        print(error)\n"
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [
        "agentry.azure.AzureOpenAIChatClient needs the optional dependencies of the 'azure' "
        "extra; install them with: pip install 'agentry[azure]'",
        "The Foundry chat client needs the optional dependencies of the 'azure' extra; "
        "install them with: pip install 'agentry[azure]'",
    ]


def test_without_azure_identity_an_entra_id_sign_in_names_the_azure_extra() -> None:
    shown = _python(
        "import sys\n"
        "sys.modules['azure.identity'] = None\n"
        "from agentry.azure import AzureOpenAIChatClient\n"
        "from agentry.errors import MissingExtraError\n"
        "with_key = AzureOpenAIChatClient('d', endpoint='https://r.openai.azure.com', api_key='k')\n"
        "try:\n"
        "    AzureOpenAIChatClient('d', endpoint='https://r.openai.azure.com')\n"
        "except MissingExtraError as error:\n"
        "    print(error)\n"
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == (
        "Microsoft Entra ID sign-in needs the optional dependencies of the 'azure' extra; "
        "install them with: pip install 'agentry[azure]'"
    )
