"""A local stand-in for Azure OpenAI and Azure AI Foundry: it checks each request as the real
services would, then forwards it to an OpenAI-compatible server on 127.0.0.1 (llama-server,
or a replay server of recorded exchanges).

Each check names the page of Microsoft's documentation that states it.
Tokens here are the fake ones of `entra_token()`: `entra:<resource>`, so the front checks
that the client asked for the right scope.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

AZURE_OPENAI_RESOURCE = "https://cognitiveservices.azure.com"
FOUNDRY_RESOURCE = "https://ai.azure.com"
API_KEY = "azure-test-key"
# learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle: data-plane versions
# are dates, `YYYY-MM-DD` or `YYYY-MM-DD-preview`.
_DATED_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}(-preview)?$")
# Headers that belong to one hop, not to the answer being relayed.
_HOP_HEADERS = {"content-length", "content-encoding", "transfer-encoding", "connection"}


def entra_token(scope_or_resource: str) -> str:
    """The fake Microsoft Entra ID token for a scope (`.../.default`) or resource."""
    return f"entra:{scope_or_resource.removesuffix('/.default')}"


@dataclass
class Seen:
    """One request the front received."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class AzureFront:
    """The front, as a context manager serving on 127.0.0.1 (`url` is its base URL).

    Args:
        upstream: Base URL (without `/v1`) of the OpenAI-compatible server behind it.
        upstream_key: The bearer key the upstream server takes, if any.
        api_key: The Azure OpenAI resource key the front accepts.
        only_path: Refuse requests to any other path (a client under test must use this
            one URL shape, not merely one the front knows).
    """

    upstream: str
    upstream_key: str | None = None
    api_key: str = API_KEY
    only_path: str | None = None
    seen: list[Seen] = field(default_factory=list[Seen])
    port: int = 0
    _server: Any = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route(
                    "/openai/deployments/{deployment}/chat/completions",
                    self._classic_chat,
                    methods=["POST"],
                ),
                Route("/openai/responses", self._classic_responses, methods=["POST"]),
                Route("/openai/v1/chat/completions", self._v1_chat, methods=["POST"]),
                Route("/openai/v1/responses", self._v1_responses, methods=["POST"]),
                Route(
                    "/api/projects/{project}/openai/v1/responses",
                    self._foundry_responses,
                    methods=["POST"],
                ),
            ]
        )

    # region routes

    # Classic Azure OpenAI URLs (learn.microsoft.com/azure/ai-foundry/openai/reference,
    # "Chat completions - Create"): the deployment in the path, a dated `api-version` in
    # the query, and the key in the `api-key` header or a Microsoft Entra ID token as
    # `Authorization: Bearer` ("Authentication" on the same page).
    async def _classic_chat(self, request: Request) -> Response:
        body = await self._record(request)
        problem = self._refused(request, versioned=True, key_as_bearer=False)
        if problem is None and body.get("model") != request.path_params["deployment"]:
            problem = _error(400, "the body's model is not the deployment of the URL")
        return problem or await self._forward("/chat/completions", body)

    # The Responses API on classic URLs (learn.microsoft.com/azure/ai-foundry/openai/
    # how-to/responses, "REST API"): `/openai/responses?api-version=`, the deployment in
    # the body's `model`, signed in as above.
    async def _classic_responses(self, request: Request) -> Response:
        body = await self._record(request)
        problem = self._refused(request, versioned=True, key_as_bearer=False)
        return problem or await self._forward("/responses", body)

    # The v1 API (learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle,
    # "API evolution"): `/openai/v1/...` takes no `api-version`, and the `openai` SDK's own
    # client (`OpenAI(base_url=".../openai/v1/", api_key=...)`) sends the key as a bearer.
    async def _v1_chat(self, request: Request) -> Response:
        body = await self._record(request)
        problem = self._refused(request, versioned=False, key_as_bearer=True)
        return problem or await self._forward("/chat/completions", body)

    async def _v1_responses(self, request: Request) -> Response:
        body = await self._record(request)
        problem = self._refused(request, versioned=False, key_as_bearer=True)
        return problem or await self._forward("/responses", body)

    # Azure AI Foundry projects (learn.microsoft.com/python/api/azure-ai-projects,
    # `AIProjectClient.get_openai_client`: base URL `{project endpoint}/openai/v1`): Entra
    # ID tokens only, for the scope `https://ai.azure.com/.default`.
    async def _foundry_responses(self, request: Request) -> Response:
        body = await self._record(request)
        problem = self._wrong_path(request) or _no_version(request)
        if problem is None and request.headers.get("authorization") != (
            f"Bearer {entra_token(FOUNDRY_RESOURCE)}"
        ):
            problem = _error(401, "a Foundry project takes a Microsoft Entra ID bearer token")
        return problem or await self._forward("/responses", body)

    # endregion

    def _refused(
        self, request: Request, *, versioned: bool, key_as_bearer: bool
    ) -> Response | None:
        """Why Azure OpenAI would refuse this request, if it would."""
        version = _dated_version(request) if versioned else _no_version(request)
        return self._wrong_path(request) or version or self._azure_auth(request, key_as_bearer)

    def _wrong_path(self, request: Request) -> Response | None:
        if self.only_path is not None and request.url.path != self.only_path:
            return _error(404, f"this front serves only {self.only_path}")
        return None

    def _azure_auth(self, request: Request, key_as_bearer: bool) -> Response | None:
        key = request.headers.get("api-key")
        bearer = request.headers.get("authorization", "")
        entra = f"Bearer {entra_token(AZURE_OPENAI_RESOURCE)}"
        if key == self.api_key or bearer == entra:
            return None
        if key_as_bearer and bearer == f"Bearer {self.api_key}":
            return None
        if bearer.startswith("Bearer entra:"):
            # Azure OpenAI's words for a token of another audience.
            return _error(
                401,
                "Unauthorized. Access token is missing, invalid, audience is incorrect "
                f"({AZURE_OPENAI_RESOURCE}), or have expired.",
            )
        return _error(
            401,
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure "
            "to provide a valid key for an active subscription and use a correct regional "
            "API endpoint for your resource.",
        )

    async def _record(self, request: Request) -> Any:
        body = await request.json()
        self.seen.append(
            Seen(request.url.path, dict(request.query_params), dict(request.headers), body)
        )
        return body

    async def _forward(self, path: str, body: Any) -> Response:
        client = httpx2.AsyncClient(timeout=120)
        headers = {"authorization": f"Bearer {self.upstream_key}"} if self.upstream_key else {}
        upstream_request = client.build_request(
            "POST", f"{self.upstream}/v1{path}", json=body, headers=headers
        )
        answer = await client.send(upstream_request, stream=True)

        async def relay() -> AsyncIterator[bytes]:
            try:
                async for chunk in answer.aiter_raw():
                    yield chunk
            finally:
                await answer.aclose()
                await client.aclose()

        # The answer's own headers go back too: `retry-after-ms` tells the SDK when to retry.
        relayed = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP_HEADERS}
        return StreamingResponse(relay(), status_code=answer.status_code, headers=relayed)

    def __enter__(self) -> AzureFront:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = uvicorn.Config(
            self.app(), host="127.0.0.1", port=self.port, log_level="warning", lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        started = threading.Event()
        for _ in range(500):
            if self._server.started:
                started.set()
                break
            started.wait(0.01)
        if not started.is_set():
            raise RuntimeError("the Azure front did not start within 5 seconds")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)


def _error(status: int, message: str) -> Response:
    # Azure OpenAI's error body (the reference's "ErrorResponse"): code and message.
    return JSONResponse({"error": {"code": str(status), "message": message}}, status_code=status)


def _dated_version(request: Request) -> Response | None:
    version = request.query_params.get("api-version", "")
    if not _DATED_VERSION.match(version):
        return _error(404, f"classic URLs need a dated api-version, got {version!r}")
    return None


def _no_version(request: Request) -> Response | None:
    if "api-version" in request.query_params:
        return _error(400, "the v1 API takes no dated api-version")
    return None
