"""`POST /v1/chat/completions`: a served agent answers a Chat Completions request."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from agentry.openai.server._answer_text import TextStream
from agentry.openai.server._chat_replies import Completion
from agentry.openai.server._chat_requests import ChatCompletionRequest, run_inputs
from agentry.openai.server._errors import RequestError
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
from agentry.types import AgentResponseUpdate

__all__ = ["chat_completions"]

_TOOL_FIELDS = ("tools", "tool_choice", "parallel_tool_calls", "functions", "function_call")


async def chat_completions(served: Served, request: Request) -> Response:
    """Run the agent the request names on its messages."""
    try:
        served.authorize(request)
        chat: ChatCompletionRequest = checked(
            ChatCompletionRequest, await served.body(request), tool_fields=_TOOL_FIELDS
        )
        agent = served.agent(chat.model)
        try:
            messages, options, response_format = run_inputs(chat)
        except ValueError as error:
            raise RequestError(400, str(error), param="messages") from None
        run_options: dict[str, Any] = {}
        if options:
            run_options["options"] = options
        if response_format is not None:
            run_options["response_format"] = response_format
        completion = Completion(chat.model)
        structured = response_format is not None
        if not chat.stream:
            response = await run_agent(agent, chat.model, messages, run_options)
            return JSONResponse(completion.of(response, structured=structured))
        stream = start_agent(agent, chat.model, messages, run_options)
        first = await first_update(stream)
    except RequestError as error:
        return error.response()
    include_usage = bool(chat.stream_options and chat.stream_options.include_usage)
    events = _events(stream, first, completion, structured=structured, usage=include_usage)
    return StreamingResponse(events, media_type="text/event-stream")


async def _events(
    stream: AgentStream,
    first: AgentResponseUpdate | None,
    completion: Completion,
    *,
    structured: bool,
    usage: bool,
) -> AsyncIterator[str]:
    """The server-sent events of a streamed answer: the text as it comes (a structured
    answer whole, once validated), the finish reason, the usage if asked, `[DONE]`."""
    yield _event(completion.chunk(role="assistant", content=""))
    try:
        text = TextStream()
        async for update in updates(first, stream):
            delta = text.text_of(update)
            if delta and not structured:
                yield _event(completion.chunk(content=delta))
        response = complete(await stream.get_final_response())
        if structured:
            yield _event(completion.chunk(content=json.dumps(response.value, ensure_ascii=False)))
        yield _event(completion.chunk(finish=response.finish_reason or "stop"))
        if usage:
            yield _event(completion.usage_chunk(response.usage_details))
    except Exception as error:
        yield _event(answer_to(error).body())
        return
    finally:
        await stream.aclose()
    yield "data: [DONE]\n\n"


def _event(data: object) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"
