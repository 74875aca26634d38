"""A Chat Completions request, checked, and what it asks of an agent run.

The request model forbids fields it does not know, so a caller that counts on one the
server does not honour (client-side `tools`, `n` above 1, `logprobs`...) is told so rather
than answered as if it had been.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentry.openai.server._contents import image_content
from agentry.openai.server._run_keywords import json_format, run_keywords
from agentry.types import Content, Message

__all__ = ["ChatCompletionRequest", "run_inputs"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _TextPart(_Strict):
    type: Literal["text"]
    text: str


class _ImageURL(_Strict):
    url: str
    detail: Literal["auto", "low", "high"] | None = None


class _ImagePart(_Strict):
    type: Literal["image_url"]
    image_url: _ImageURL


class _InputAudio(_Strict):
    data: str
    format: str


class _AudioPart(_Strict):
    type: Literal["input_audio"]
    input_audio: _InputAudio


class _FileData(_Strict):
    file_data: str
    filename: str | None = None


class _FilePart(_Strict):
    type: Literal["file"]
    file: _FileData


_UserPart = Annotated[_TextPart | _ImagePart | _AudioPart | _FilePart, Field(discriminator="type")]


class _SystemMessage(_Strict):
    role: Literal["system", "developer"]
    content: str | list[_TextPart]
    name: str | None = None


class _UserMessage(_Strict):
    role: Literal["user"]
    content: str | list[_UserPart]
    name: str | None = None


class _Function(_Strict):
    name: str
    arguments: str


class _ToolCall(_Strict):
    id: str
    type: Literal["function"] = "function"
    function: _Function


class _AssistantMessage(_Strict):
    role: Literal["assistant"]
    content: str | list[_TextPart] | None = None
    tool_calls: list[_ToolCall] | None = None
    name: str | None = None
    refusal: str | None = None


class _ToolMessage(_Strict):
    role: Literal["tool"]
    tool_call_id: str
    content: str | list[_TextPart]


_Message = Annotated[
    _SystemMessage | _UserMessage | _AssistantMessage | _ToolMessage,
    Field(discriminator="role"),
]


class _StreamOptions(_Strict):
    include_usage: bool = False
    include_obfuscation: bool | None = None


class _JSONSchema(_Strict):
    name: str
    description: str | None = None
    schema_: dict[str, Any] = Field(default_factory=dict[str, Any], alias="schema")
    strict: bool | None = None


class _TextFormat(_Strict):
    type: Literal["text"]


class _JSONObjectFormat(_Strict):
    type: Literal["json_object"]


class _JSONSchemaFormat(_Strict):
    type: Literal["json_schema"]
    json_schema: _JSONSchema


_ResponseFormat = Annotated[
    _TextFormat | _JSONObjectFormat | _JSONSchemaFormat, Field(discriminator="type")
]


class _FunctionDeclaration(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class _ToolDeclaration(_Strict):
    type: Literal["function"]
    function: _FunctionDeclaration


class _FunctionName(_Strict):
    name: str


class _NamedToolChoice(_Strict):
    type: Literal["function"]
    function: _FunctionName


class ChatCompletionRequest(_Strict):
    """The body of `POST /v1/chat/completions`, as far as an agent can honour it.

    `model` names the served agent. The agent runs its own tools; `tools` the request
    declares are the caller's: when the model calls one, the answer carries the call.
    """

    model: str
    messages: list[_Message] = Field(min_length=1)
    stream: bool = False
    stream_options: _StreamOptions | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    stop: str | list[str] | None = None
    seed: int | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    response_format: _ResponseFormat | None = None
    user: str | None = None
    n: Literal[1] | None = None
    logprobs: Literal[False] | None = None
    tools: list[_ToolDeclaration] | None = None
    tool_choice: Literal["auto", "none", "required"] | _NamedToolChoice | None = None
    parallel_tool_calls: bool | None = None

    @property
    def caller_tool_names(self) -> set[str]:
        """The names of the tools the request declares."""
        return {t.function.name for t in self.tools or ()}


def run_inputs(request: ChatCompletionRequest) -> tuple[list[Message], dict[str, Any]]:
    """(messages, keyword arguments) of the agent run `request` asks for: chat options,
    response format, the caller's tools.

    Raises:
        ValueError: A message part cannot be read (a file that is not a `data:` URI, audio
            that is not base64).
    """
    messages = [_message(m) for m in request.messages]
    choice = request.tool_choice
    sampling = {
        "temperature": request.temperature,
        "top_p": request.top_p,
        "max_tokens": request.max_completion_tokens or request.max_tokens,
        "stop": request.stop,
        "seed": request.seed,
        "frequency_penalty": request.frequency_penalty,
        "presence_penalty": request.presence_penalty,
        "user": request.user,
    }
    response_format = request.response_format
    schema = (
        response_format.json_schema.schema_
        if isinstance(response_format, _JSONSchemaFormat)
        else None
    )
    run = run_keywords(
        sampling,
        tool_choice=None if isinstance(choice, _NamedToolChoice) else choice,
        chosen_tool=choice.function.name if isinstance(choice, _NamedToolChoice) else None,
        parallel_tool_calls=request.parallel_tool_calls,
        declared_tools=(
            (t.function.name, t.function.description, t.function.parameters)
            for t in request.tools or ()
        ),
        response_format=json_format(response_format and response_format.type, schema),
    )
    return messages, run


def _message(message: object) -> Message:
    if isinstance(message, _SystemMessage):
        return Message("system", [_text(message.content)], author_name=message.name)
    if isinstance(message, _UserMessage):
        parts = message.content
        contents = (
            [Content.from_text(parts)] if isinstance(parts, str) else [_part(p) for p in parts]
        )
        return Message("user", contents, author_name=message.name)
    if isinstance(message, _AssistantMessage):
        contents: list[Content] = []
        if message.content:
            contents.append(Content.from_text(_text(message.content)))
        contents.extend(
            Content.from_function_call(
                call_id=call.id, name=call.function.name, arguments=call.function.arguments
            )
            for call in message.tool_calls or ()
        )
        return Message("assistant", contents, author_name=message.name)
    assert isinstance(message, _ToolMessage)
    result = Content.from_function_result(
        call_id=message.tool_call_id, result=_text(message.content)
    )
    return Message("tool", [result])


def _text(content: str | list[_TextPart]) -> str:
    return content if isinstance(content, str) else "".join(p.text for p in content)


def _part(part: object) -> Content:
    if isinstance(part, _TextPart):
        return Content.from_text(part.text)
    if isinstance(part, _ImagePart):
        return image_content(part.image_url.url)
    if isinstance(part, _AudioPart):
        try:
            data = base64.b64decode(part.input_audio.data, validate=True)
        except binascii.Error:
            raise ValueError("input_audio.data must be base64") from None
        return Content.from_data(data, f"audio/{part.input_audio.format}")
    assert isinstance(part, _FilePart)
    if not part.file.file_data.startswith("data:"):
        raise ValueError("file.file_data must be a data: URI (file ids are not served here)")
    return Content.from_uri(part.file.file_data, name=part.file.filename)
