"""Microsoft Entra ID token sources for tests: credentials that implement azure-identity's
`get_token`, and a stand-in `az` command for the real `AzureCliCredential`."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

from azure.core.credentials import AccessToken

from tests.azure.front import entra_token


class FakeCredential:
    """A sync credential: a token naming the scope asked for; counts the calls.

    Args:
        audience: Give tokens for this resource whatever the scope asked, as an identity
            set up for another service would (the service refuses them).
    """

    def __init__(self, *, audience: str | None = None) -> None:
        self.scopes: list[tuple[str, ...]] = []
        self.audience = audience

    def get_token(self, *scopes: str, **options: object) -> AccessToken:
        self.scopes.append(scopes)
        return AccessToken(entra_token(self.audience or scopes[0]), int(time.time()) + 3600)


class FakeAsyncCredential:
    """An async credential, like those of `azure.identity.aio`."""

    def __init__(self) -> None:
        self.scopes: list[tuple[str, ...]] = []

    async def get_token(self, *scopes: str, **options: object) -> AccessToken:
        self.scopes.append(scopes)
        return AccessToken(entra_token(scopes[0]), int(time.time()) + 3600)

    async def close(self) -> None:
        return None


_AZ = """#!{python}
import json, sys
arguments = sys.argv[1:]
resource = arguments[arguments.index("--resource") + 1]
print(json.dumps({{"accessToken": "entra:" + resource, "expires_on": {expires},
                  "expiresOn": "2100-01-01 00:00:00.000000", "tokenType": "Bearer"}}))
"""


def install_fake_az(folder: Path) -> str:
    """Write an `az` that answers `az account get-access-token --resource R` as the real
    one does once signed in; the PATH value that finds it first."""
    script = folder / "az"
    expires = int(time.time()) + 3600
    script.write_text(_AZ.format(python=sys.executable, expires=json.dumps(expires)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"
