"""`POST /v1/chat/completions`: a served agent answers a Chat Completions request."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from agentry.openai.server._answer_text import TextStream
from agentry.openai.server._caller_tools import pending_calls
from agentry.openai.server._chat_replies import Completion, finish_reason
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

_REFUSED = {
    "functions": "the legacy function-calling fields are not served; declare them in tools",
    "function_call": "the legacy function-calling fields are not served; use tool_choice",
}


async def chat_completions(served: Served, request: Request) -> Response:
    """Run the agent the request names on its messages."""
    try:
        served.authorize(request)
        chat: ChatCompletionRequest = checked(
            ChatCompletionRequest, await served.body(request), refused=_REFUSED
        )
        agent = served.agent(chat.model)
        try:
            messages, run = run_inputs(chat)
        except ValueError as error:
            raise RequestError(400, str(error), param="messages") from None
        completion = Completion(chat.model)
        structured = "response_format" in run
        callers = chat.caller_tool_names
        if not chat.stream:
            response = await run_agent(agent, chat.model, messages, run)
            calls = pending_calls(response, callers)
            return JSONResponse(completion.of(response, structured=structured, calls=calls))
        stream = start_agent(agent, chat.model, messages, run)
        first = await first_update(stream)
    except RequestError as error:
        return error.response()
    include_usage = bool(chat.stream_options and chat.stream_options.include_usage)
    events = _events(
        stream, first, completion, structured=structured, usage=include_usage, callers=callers
    )
    return StreamingResponse(events, media_type="text/event-stream")


async def _events(
    stream: AgentStream,
    first: AgentResponseUpdate | None,
    completion: Completion,
    *,
    structured: bool,
    usage: bool,
    callers: set[str],
) -> AsyncIterator[str]:
    """The server-sent events of a streamed answer: the text as it comes (a structured
    answer whole, once validated), the calls of the caller's tools, the finish reason, the
    usage if asked, `[DONE]`."""
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
        calls = pending_calls(response, callers)
        for index, call in enumerate(calls):
            yield _event(completion.call_chunk(index, call))
        finish = "tool_calls" if calls else finish_reason(response.finish_reason)
        yield _event(completion.chunk(finish=finish))
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
