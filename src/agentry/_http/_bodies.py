"""Request bodies read as JSON, never past a size limit."""

from __future__ import annotations

import json

from starlette.requests import Request

from agentry._http._problem import HTTPProblem

__all__ = ["read_json"]


async def read_json(request: Request, max_bytes: int) -> object:
    """The request's JSON body, read up to `max_bytes`.

    Raises:
        HTTPProblem: The body is too large (413) or not JSON (400).
    """
    declared = request.headers.get("content-length", "")
    too_large = HTTPProblem(
        413, f"the request body is larger than the server accepts ({max_bytes} bytes)"
    )
    if declared.isdigit() and int(declared) > max_bytes:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise too_large
    try:
        return json.loads(body)
    except ValueError as error:
        raise HTTPProblem(400, f"the request body is not JSON: {error}") from None
