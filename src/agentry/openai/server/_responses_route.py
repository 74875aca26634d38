"""`/v1/responses`: a served agent answers a Responses API request, and stored responses
are read back and deleted."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from agentry.errors import HistoryStoreError
from agentry.openai.server._answer_text import TextStream, answer_text
from agentry.openai.server._caller_tools import pending_calls
from agentry.openai.server._errors import RequestError
from agentry.openai.server._response_store import ResponseStore, StoredResponse, conversation
from agentry.openai.server._responses_replies import ResponseDraft
from agentry.openai.server._responses_requests import ResponseRequest, input_messages, run_options
from agentry.openai.server._runs import (
    AgentStream,
    answer_to,
    complete,
    first_update,
    run_agent,
    start_agent,
    updates,
)
from agentry.openai.server._served import Served, checked
from agentry.types import AgentResponse, AgentResponseUpdate, Message

__all__ = ["create_response", "delete_response", "get_response"]

logger = logging.getLogger("agentry.openai.server")


async def create_response(served: Served, store: ResponseStore, request: Request) -> Response:
    """`POST /v1/responses`: run the agent the request names on its input, after the
    conversation of `previous_response_id`."""
    try:
        served.authorize(request)
        asked: ResponseRequest = checked(ResponseRequest, await served.body(request))
        agent = served.agent(asked.model)
        try:
            new = input_messages(asked)
        except ValueError as error:
            raise RequestError(400, str(error), param="input") from None
        history = await _history(store, asked.previous_response_id)
        instructions = [Message("system", [asked.instructions])] if asked.instructions else []
        messages = [*instructions, *history, *new]
        options = run_options(asked)
        draft = ResponseDraft(asked)
        if not asked.stream:
            response = await run_agent(agent, asked.model, messages, options)
            body = _finished(draft, response)
            await _keep(store, draft, new, response, body)
            return JSONResponse(body)
        stream = start_agent(agent, asked.model, messages, options)
        first = await first_update(stream)
    except RequestError as error:
        return error.response()
    return StreamingResponse(
        _events(draft, stream, first, store, new), media_type="text/event-stream"
    )


async def get_response(served: Served, store: ResponseStore, request: Request) -> Response:
    """`GET /v1/responses/{id}`: a stored response as it was answered."""
    try:
        served.authorize(request)
        stored = await _stored(store, request.path_params["response_id"])
    except RequestError as error:
        return error.response()
    return JSONResponse(stored.body)


async def delete_response(served: Served, store: ResponseStore, request: Request) -> Response:
    """`DELETE /v1/responses/{id}`: forget a stored response."""
    response_id = request.path_params["response_id"]
    try:
        served.authorize(request)
        try:
            deleted = await store.delete(response_id)
        except HistoryStoreError as error:
            raise _store_failure(error) from error
        if not deleted:
            raise _not_stored(response_id)
    except RequestError as error:
        return error.response()
    return JSONResponse({"id": response_id, "object": "response.deleted", "deleted": True})


async def _history(store: ResponseStore, previous_response_id: str | None) -> list[Message]:
    if previous_response_id is None:
        return []
    try:
        return await conversation(store, previous_response_id)
    except LookupError as error:
        raise RequestError(
            400,
            f"{error}: continue a response stored by this server (store: true), or send the "
            "conversation in input",
            param="previous_response_id",
            code="previous_response_not_found",
        ) from None
    except HistoryStoreError as error:
        raise _store_failure(error) from error


async def _stored(store: ResponseStore, response_id: str) -> StoredResponse:
    try:
        stored = await store.get(response_id)
    except HistoryStoreError as error:
        raise _store_failure(error) from error
    if stored is None:
        raise _not_stored(response_id)
    return stored


def _not_stored(response_id: str) -> RequestError:
    return RequestError(404, f"there is no stored response {response_id!r}", code="not_found")


def _store_failure(error: HistoryStoreError) -> RequestError:
    logger.error("the response store failed: %s", error)
    return RequestError(
        503, "the server cannot reach its response store; try again", type="server_error"
    )


def _finished(draft: ResponseDraft, response: AgentResponse[Any]) -> dict[str, Any]:
    structured = draft.request.response_format is not None
    return draft.body(
        status="completed",
        text=answer_text(response, structured),
        finish_reason=response.finish_reason,
        usage=response.usage_details,
        calls=pending_calls(response, draft.request.caller_tool_names),
    )


async def _keep(
    store: ResponseStore,
    draft: ResponseDraft,
    new: list[Message],
    response: AgentResponse[Any],
    body: dict[str, Any],
) -> None:
    """Store the response when the request asked to (its instructions are not kept: a
    later response has its own)."""
    if not draft.request.store:
        return
    messages = [m.to_dict() for m in [*new, *response.messages]]
    stored = StoredResponse(draft.id, draft.request.previous_response_id, messages, body)
    try:
        await store.put(stored)
    except HistoryStoreError as error:
        raise _store_failure(error) from error


async def _events(
    draft: ResponseDraft,
    stream: AgentStream,
    first: AgentResponseUpdate | None,
    store: ResponseStore,
    new: list[Message],
) -> AsyncIterator[str]:
    """The events of a streamed response, as the Responses API sends them: created, the
    output message and its text part opened, the text as it comes (a structured answer
    whole, once validated), the part and message closed, completed (or failed)."""
    structured = draft.request.response_format is not None
    in_progress = draft.body(status="in_progress")
    yield draft.event("response.created", response=in_progress)
    yield draft.event("response.in_progress", response=in_progress)
    yield draft.event(
        "response.output_item.added", output_index=0, item=draft.message("", "in_progress")
    )
    yield draft.text_event("response.content_part.added", part=draft.part(""))
    try:
        text = TextStream()
        async for update in updates(first, stream):
            delta = text.text_of(update)
            if delta and not structured:
                yield draft.text_event("response.output_text.delta", delta=delta, logprobs=[])
        response = complete(await stream.get_final_response())
        body = _finished(draft, response)
        answer = body["output"][0]["content"][0]["text"]
        if structured:
            yield draft.text_event("response.output_text.delta", delta=answer, logprobs=[])
        await _keep(store, draft, new, response, body)
    except Exception as error:
        failure = answer_to(error)
        code = "rate_limit_exceeded" if failure.status == 429 else "server_error"
        failed = draft.body(status="failed", error={"code": code, "message": failure.message})
        yield draft.event("response.failed", response=failed)
        return
    finally:
        await stream.aclose()
    yield draft.text_event("response.output_text.done", text=answer, logprobs=[])
    yield draft.text_event("response.content_part.done", part=draft.part(answer))
    yield draft.event(
        "response.output_item.done", output_index=0, item=draft.message(answer, "completed")
    )
    for index, item in enumerate(body["output"][1:], start=1):
        yield draft.event(
            "response.output_item.added",
            output_index=index,
            item={**item, "arguments": "", "status": "in_progress"},
        )
        where = {"item_id": item["id"], "output_index": index}
        arguments = item["arguments"]
        yield draft.event("response.function_call_arguments.delta", **where, delta=arguments)
        yield draft.event(
            "response.function_call_arguments.done", **where, arguments=arguments, name=item["name"]
        )
        yield draft.event("response.output_item.done", output_index=index, item=item)
    yield draft.event(f"response.{body['status']}", response=body)
