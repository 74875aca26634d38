"""A Responses API request, checked, and what it asks of an agent run.

As for Chat Completions, fields the server does not honour are refused by name.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from agentry.openai.server._contents import image_content
from agentry.openai.server._run_keywords import json_format, run_keywords
from agentry.types import Content, Message

__all__ = ["ResponseRequest", "input_messages", "run_options"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _InputText(_Strict):
    type: Literal["input_text"]
    text: str


class _InputImage(_Strict):
    type: Literal["input_image"]
    image_url: str
    detail: Literal["auto", "low", "high"] = "auto"


class _InputFile(_Strict):
    type: Literal["input_file"]
    file_data: str | None = None
    file_url: str | None = None
    filename: str | None = None


class _OutputText(_Strict):
    type: Literal["output_text"]
    text: str
    annotations: list[Any] = Field(default_factory=list[Any])
    logprobs: list[Any] | None = None


_InputPart = Annotated[_InputText | _InputImage | _InputFile, Field(discriminator="type")]
_Part = Annotated[_InputText | _InputImage | _InputFile | _OutputText, Field(discriminator="type")]


class _MessageItem(_Strict):
    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: str | list[_Part]
    id: str | None = None
    status: str | None = None


class _FunctionCallItem(_Strict):
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str
    id: str | None = None
    status: str | None = None


class _FunctionCallOutputItem(_Strict):
    type: Literal["function_call_output"]
    call_id: str
    output: str | list[_InputPart]
    id: str | None = None
    status: str | None = None


def _item_type(item: object) -> str:
    """An item's kind: its `type`, `message` when it has none (as the API allows)."""
    if isinstance(item, dict):
        return str(cast(dict[str, object], item).get("type", "message"))
    return str(getattr(item, "type", None))


_Item = Annotated[
    Annotated[_MessageItem, Tag("message")]
    | Annotated[_FunctionCallItem, Tag("function_call")]
    | Annotated[_FunctionCallOutputItem, Tag("function_call_output")],
    Discriminator(
        _item_type,
        custom_error_type="unsupported_item",
        custom_error_message="an input item's type must be message, function_call or "
        "function_call_output",
    ),
]


class _JSONSchemaFormat(_Strict):
    type: Literal["json_schema"]
    name: str
    schema_: dict[str, Any] = Field(default_factory=dict[str, Any], alias="schema")
    description: str | None = None
    strict: bool | None = None


class _JSONObjectFormat(_Strict):
    type: Literal["json_object"]


class _TextFormat(_Strict):
    type: Literal["text"]


class _TextOptions(_Strict):
    format: Annotated[
        _TextFormat | _JSONObjectFormat | _JSONSchemaFormat, Field(discriminator="type")
    ] = _TextFormat(type="text")


class _FunctionTool(_Strict):
    type: Literal["function"]
    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class _FunctionChoice(_Strict):
    type: Literal["function"]
    name: str


class ResponseRequest(_Strict):
    """The body of `POST /v1/responses`, as far as an agent can honour it.

    `model` names the served agent. `previous_response_id` continues a stored response's
    conversation; `store` (default true) keeps this one for the next. The agent runs its
    own tools; `tools` the request declares are the caller's: when the model calls one,
    the response ends with the call.
    """

    model: str
    input: str | Annotated[list[_Item], Field(min_length=1)]
    instructions: str | None = None
    previous_response_id: str | None = None
    store: bool = True
    stream: bool = False
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    text: _TextOptions | None = None
    user: str | None = None
    metadata: dict[str, str] | None = None
    tools: list[_FunctionTool] | None = None
    tool_choice: Literal["auto", "none", "required"] | _FunctionChoice | None = None
    parallel_tool_calls: bool | None = None

    @property
    def caller_tool_names(self) -> set[str]:
        """The names of the tools the request declares."""
        return {t.name for t in self.tools or ()}

    @property
    def response_format(self) -> dict[str, Any] | None:
        """The agent run's `response_format`: a JSON schema, or None for plain text."""
        text_format = self.text.format if self.text else None
        schema = text_format.schema_ if isinstance(text_format, _JSONSchemaFormat) else None
        return json_format(text_format and text_format.type, schema)


def run_options(request: ResponseRequest) -> dict[str, Any]:
    """The keyword arguments of the agent run: chat options, response format, the
    caller's tools."""
    choice = request.tool_choice
    sampling = {
        "temperature": request.temperature,
        "top_p": request.top_p,
        "max_tokens": request.max_output_tokens,
        "user": request.user,
    }
    return run_keywords(
        sampling,
        tool_choice=None if isinstance(choice, _FunctionChoice) else choice,
        chosen_tool=choice.name if isinstance(choice, _FunctionChoice) else None,
        parallel_tool_calls=request.parallel_tool_calls,
        declared_tools=((t.name, t.description, t.parameters) for t in request.tools or ()),
        response_format=request.response_format,
    )


def input_messages(request: ResponseRequest) -> list[Message]:
    """The request's input as agentry messages (instructions apart)."""
    if isinstance(request.input, str):
        return [Message("user", [request.input])]
    messages: list[Message] = []
    for item in request.input:
        message = _message(item)
        last = messages[-1] if messages else None
        if last is not None and last.role == message.role and message.role in ("assistant", "tool"):
            last.contents.extend(message.contents)  # one turn's calls, one turn's results
        else:
            messages.append(message)
    return messages


def _message(item: object) -> Message:
    if isinstance(item, _FunctionCallItem):
        call = Content.from_function_call(
            call_id=item.call_id, name=item.name, arguments=item.arguments
        )
        return Message("assistant", [call])
    if isinstance(item, _FunctionCallOutputItem):
        output = item.output
        result: object = output if isinstance(output, str) else [_content(p) for p in output]
        return Message("tool", [Content.from_function_result(call_id=item.call_id, result=result)])
    assert isinstance(item, _MessageItem)
    role = "system" if item.role == "developer" else item.role
    if isinstance(item.content, str):
        return Message(role, [item.content])
    return Message(role, [_content(p) for p in item.content])


def _content(part: object) -> Content:
    if isinstance(part, (_InputText, _OutputText)):
        return Content.from_text(part.text)
    if isinstance(part, _InputImage):
        return image_content(part.image_url)
    assert isinstance(part, _InputFile)
    if part.file_data:
        return Content.from_uri(part.file_data, name=part.filename)
    if part.file_url:
        return Content.from_uri(part.file_url, name=part.filename)
    raise ValueError("an input_file needs file_data (a data: URI) or file_url")
