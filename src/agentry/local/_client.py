"""`LocalChatClient`: an embedded model that runs in-process on the CPU through llama.cpp."""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from agentry.clients import BaseChatClient
from agentry.local._answer_grounding import unstated_result
from agentry.local._answer_stream import AnswerTextExtractor
from agentry.local._decision import Answer, Question, ToolCall, parse_decision
from agentry.local._errors import ModelFileError
from agentry.local._generation import GenerationEnd, GenerationRequest, generate
from agentry.local._llama import LoadedModel
from agentry.local._model_files import resolve_model_file, verify_file
from agentry.local._move_review import next_step
from agentry.local._move_writing import MOVE_START, move_continuation
from agentry.local._prompt import PromptMode, build_chat_turns
from agentry.local._registry import DEFAULT_LOCAL_MODEL, get_local_model
from agentry.local._request import output_schema, prompt_mode
from agentry.local._shared_model import ModelSettings, SharedModel, shared_model
from agentry.middleware import MiddlewareTypes
from agentry.types import ChatOptions, ChatResponseUpdate, Content, Message, UsageDetails

__all__ = ["LocalChatClient", "LocalModelInfo"]


@dataclass(frozen=True)
class LocalModelInfo:
    """A loaded local model.

    Attributes:
        name: The registry name, or the file name for a model given by path.
        path: The verified GGUF file.
        n_ctx: The context window in tokens.
        load_seconds: How long llama.cpp took to load the file into memory.
    """

    name: str
    path: Path
    n_ctx: int
    load_seconds: float


_resolved: dict[tuple[str, str], Path] = {}
_resolve_lock = threading.Lock()


class LocalChatClient(BaseChatClient):
    """A chat client for a GGUF model run in this process on the CPU, with no network.

    The model file is verified against its pinned sha256, loaded once per process on first
    use, and shared by every client with the same settings; concurrent requests are queued.
    Tool calls and structured output use constrained decoding, so the model can only emit a
    call of an offered tool with well-formed arguments, or an answer of the requested shape.

    Args:
        model: A registered model name (see `LOCAL_MODELS`); the default model when neither
            this nor `model_path` is given.
        model_path: The path of any GGUF file, instead of a registered model.
        model_sha256: With `model_path`, the sha256 the file must have before it is loaded.
        n_ctx: The context window in tokens.
        n_threads: CPU threads for llama.cpp; every core when `None`.
        chat_template: A Jinja chat template to use instead of the model's own.
        cache_dir: Where models that come in pieces are assembled (see `default_cache_dir`).
        max_tokens: The default token limit of a reply; the rest of the context when `None`.
        temperature: The default sampling temperature.
        max_tool_rounds: Rounds of tool calls the model may make for one user message
            before it must answer or ask (with `tool_choice` "auto"); `None` for no limit.
            Three rounds serve requests that chain two tools.
        middleware: Chat middleware of the client.

    Example:
        >>> import asyncio
        >>> from agentry import Agent
        >>> from agentry.local import LocalChatClient
        >>> agent = Agent(client=LocalChatClient(), instructions="Answer in one sentence.")
        >>> print(asyncio.run(agent.run("What is the capital of France?")).text)  # doctest: +SKIP
        The capital of France is Paris.
    """

    OTEL_PROVIDER_NAME = "llama.cpp"

    def __init__(
        self,
        model: str | None = None,
        *,
        model_path: str | os.PathLike[str] | None = None,
        model_sha256: str | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        chat_template: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        max_tool_rounds: int | None = 3,
        middleware: Sequence[MiddlewareTypes] | None = None,
    ) -> None:
        super().__init__(middleware=middleware)
        if model is not None and model_path is not None:
            raise ValueError("give either model= (a registered name) or model_path=, not both")
        if model_sha256 is not None and model_path is None:
            raise ValueError("model_sha256= checks a file given by model_path=")
        self._spec = (
            None if model_path is not None else get_local_model(model or DEFAULT_LOCAL_MODEL)
        )
        self._path = Path(model_path) if model_path is not None else None
        self._sha256 = model_sha256
        self.model = self._spec.name if self._spec else Path(str(model_path)).name
        """The model's name, as reported on responses."""
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.chat_template = chat_template or (self._spec.chat_template if self._spec else None)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.max_tool_rounds = max_tool_rounds
        self._shared: SharedModel | None = None

    async def load(self) -> LocalModelInfo:
        """Verify and load the model now rather than on the first request.

        Raises:
            ModelFileError: The model file or one of its packages is missing.
            ModelChecksumError: The file's sha256 is not the pinned one.
        """
        shared = await self.shared_model()
        loaded = await shared.run(lambda model: model)
        return LocalModelInfo(self.model, loaded.path, self.n_ctx, loaded.load_seconds)

    async def shared_model(self) -> SharedModel:
        """The process-wide model this client runs on; clients with equal settings share one."""
        if self._shared is None:
            path = await asyncio.to_thread(self._verified_path)
            settings = ModelSettings(path, self.n_ctx, self.n_threads, self.chat_template)
            self._shared = shared_model(settings)
        return self._shared

    def _verified_path(self) -> Path:
        """The model file, verified once per process (hashing a large file takes a while)."""
        key = (
            (f"registry:{self._spec.name}", str(self.cache_dir))
            if self._spec
            else (str(self._path), self._sha256 or "")
        )
        with _resolve_lock:
            path = _resolved.get(key)
            if path is None:
                if self._spec is not None:
                    path = resolve_model_file(self._spec, self.cache_dir)
                else:
                    assert self._path is not None
                    path = self._path.expanduser().resolve()
                    if self._sha256 is not None:
                        verify_file(path, self._sha256, progress=f"Checking {path.name}")
                    elif not path.is_file():
                        raise ModelFileError(f"the model file {path} does not exist")
                _resolved[key] = path
        return path

    async def _inner_get_streaming_response(
        self, *, messages: list[Message], options: ChatOptions, **kwargs: object
    ) -> AsyncIterator[ChatResponseUpdate]:
        mode = prompt_mode(options, messages, max_tool_rounds=self.max_tool_rounds)
        turns = build_chat_turns(messages, mode, options.get("instructions"))
        stop = options.get("stop") or ()
        request = GenerationRequest(
            prompt="",
            max_tokens=options.get("max_tokens", self.max_tokens),
            temperature=options.get("temperature", self.temperature),
            top_p=options.get("top_p", 0.95),
            seed=options.get("seed"),
            stop=[] if mode.decides else ([stop] if isinstance(stop, str) else list(stop)),
            frequency_penalty=options.get("frequency_penalty", 0.0),
            presence_penalty=options.get("presence_penalty", 0.0),
        )
        shared = await self.shared_model()
        said = next((m.text for m in reversed(messages) if m.role == "user"), "")
        reply: _Reply | None = None
        step: tuple[PromptMode, list[dict[str, str]]] | None = (mode, turns)
        while step is not None:
            step_mode, step_turns = step
            reply = _Reply(self.model, step_mode, request=said, earlier=reply)
            async for update in self._generate(shared, step_turns, request, step_mode, reply):
                yield update
            step = next_step(reply.decision(), step_mode, step_turns, messages)
        assert reply is not None
        decision = reply.decision()
        restated = (
            unstated_result(decision.text, messages)
            if isinstance(decision, Answer) and reply.mode.answer_schema is None
            else None
        )
        for update in reply.finish(restated=restated):
            yield update

    async def _generate(
        self,
        shared: SharedModel,
        turns: list[dict[str, str]],
        request: GenerationRequest,
        mode: PromptMode,
        reply: _Reply,
    ) -> AsyncIterator[ChatResponseUpdate]:
        """Run one generation, streaming the text a user may see into `reply`."""
        constrained = replace(request, json_schema=output_schema(mode))
        if mode.decides:
            constrained = replace(
                constrained, prefill=MOVE_START, continuation=move_continuation(mode)
            )

        def job(model: LoadedModel, cancelled: threading.Event) -> Iterator[str | GenerationEnd]:
            prompt = model.format_prompt(turns)
            return generate(model, replace(constrained, prompt=prompt), cancelled)

        async for item in shared.stream(job):
            if isinstance(item, GenerationEnd):
                reply.end = item
            else:
                update = reply.feed(item)
                if update is not None:
                    yield update


class _Reply:
    """Turns generated text into chat updates: text as it comes, then a call or the rest."""

    def __init__(
        self, model: str, mode: PromptMode, *, request: str, earlier: _Reply | None = None
    ) -> None:
        self.model = model
        self.mode = mode
        self.response_id = earlier.response_id if earlier else f"local-{uuid.uuid4().hex}"
        self.message_id = earlier.message_id if earlier else f"msg-{uuid.uuid4().hex}"
        self.output = ""
        self.end = GenerationEnd("stop", 0, 0)
        self._earlier_tokens = (
            (earlier.prompt_tokens, earlier.completion_tokens, earlier.cached_tokens)
            if earlier
            else (0, 0, 0)
        )
        stream_answer = mode.decides and mode.answer_schema is None
        self.extractor = AnswerTextExtractor(request) if stream_answer else None

    def _update(
        self, contents: list[Content], finish_reason: str | None = None
    ) -> ChatResponseUpdate:
        return ChatResponseUpdate(
            contents=contents,
            role="assistant",
            message_id=self.message_id,
            response_id=self.response_id,
            model=self.model,
            finish_reason=finish_reason,
        )

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of this generation and of the refused ones before it."""
        return self._earlier_tokens[0] + self.end.prompt_tokens

    @property
    def completion_tokens(self) -> int:
        """Generated tokens of this generation and of the refused ones before it."""
        return self._earlier_tokens[1] + self.end.completion_tokens

    @property
    def cached_tokens(self) -> int:
        """Prompt tokens of these generations taken from the cache, not evaluated."""
        return self._earlier_tokens[2] + self.end.cached_tokens

    def feed(self, piece: str) -> ChatResponseUpdate | None:
        self.output += piece
        if self.mode.decides:
            text = self.extractor.feed(piece) if self.extractor else ""
        else:
            text = piece
        return self._update([Content.from_text(text)]) if text else None

    def decision(self) -> ToolCall | Answer | Question | None:
        """The decided move, or `None` for plain text or a streamed answer cut off by length."""
        if not self.mode.decides:
            return None
        streamed = self.extractor.streamed if self.extractor else ""
        if self.end.finish_reason == "length" and streamed:
            return None
        return parse_decision(self.output, structured_answer=self.mode.answer_schema is not None)

    def finish(self, *, restated: str | None = None) -> list[ChatResponseUpdate]:
        """The closing updates: a call, or the answer's rest (with `restated` after it), and
        the usage."""
        updates: list[ChatResponseUpdate] = []
        finish_reason = self.end.finish_reason
        decision = self.decision()
        if isinstance(decision, ToolCall):
            call = Content.from_function_call(
                call_id=f"call_{uuid.uuid4().hex[:24]}",
                name=decision.name,
                arguments=decision.arguments,
            )
            updates.append(self._update([call]))
            finish_reason = "tool_calls"
        elif decision is not None:
            streamed = self.extractor.streamed if self.extractor else ""
            rest = decision.text[len(streamed) :]
            if restated:
                rest += f"\n\n{restated}" if decision.text.strip() else restated
            if rest:
                updates.append(self._update([Content.from_text(rest)]))
        prompt_tokens, completion_tokens = self.prompt_tokens, self.completion_tokens
        usage = UsageDetails(
            input_token_count=prompt_tokens,
            output_token_count=completion_tokens,
            total_token_count=prompt_tokens + completion_tokens,
        )
        cast("dict[str, int]", usage)["cached_input_token_count"] = self.cached_tokens
        updates.append(self._update([Content.from_usage(usage)], finish_reason))
        return updates
