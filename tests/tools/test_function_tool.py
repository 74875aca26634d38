from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from agentry import FunctionInvocationContext, FunctionTool, tool
from agentry.errors import ToolArgumentsError, ToolExecutionError
from agentry.tools import ToolSchemaWarning


def test_schema_comes_from_the_signature_and_docstring() -> None:
    @tool
    def get_weather(
        city: Annotated[str, "The city to look up"],
        unit: str = "celsius",
        days: int = Field(default=1, ge=1, le=7, description="Days ahead"),
    ) -> str:
        """Get the weather for a city.

        Args:
            city: ignored, the Annotated description wins.
            unit: Celsius or fahrenheit.
        """
        return f"{city} {unit} {days}"

    schema = get_weather.parameters()
    assert get_weather.name == "get_weather"
    assert get_weather.description == "Get the weather for a city."
    assert schema["required"] == ["city"]
    assert schema["properties"]["city"]["description"] == "The city to look up"
    assert schema["properties"]["unit"]["description"] == "Celsius or fahrenheit."
    assert schema["properties"]["days"]["maximum"] == 7


async def test_arguments_are_validated_and_converted() -> None:
    @tool
    def repeat(word: str, times: int) -> str:
        """Repeat a word."""
        return word * times

    assert await repeat.invoke(arguments={"word": "ab", "times": "3"}) == "ababab"
    with pytest.raises(ToolArgumentsError, match=r"invalid arguments for tool 'repeat': times"):
        await repeat.invoke(arguments={"word": "ab", "times": "many"})
    with pytest.raises(ToolArgumentsError, match="word: Field required"):
        await repeat.invoke(arguments={"times": 1})


async def test_async_functions_and_pydantic_arguments() -> None:
    class Point(BaseModel):
        x: int
        y: int

    @tool(name="norm", description="Squared length.")
    async def squared_length(point: Point) -> int:
        return point.x**2 + point.y**2

    assert squared_length.name == "norm"
    assert await squared_length.invoke(arguments={"point": {"x": 3, "y": 4}}) == 25


async def test_the_invocation_context_is_injected_and_hidden_from_the_schema() -> None:
    seen: list[Any] = []

    @tool
    def whoami(context: FunctionInvocationContext, greeting: str) -> str:
        """Say hello."""
        seen.append(context)
        return greeting

    assert list(whoami.parameters()["properties"]) == ["greeting"]
    context = FunctionInvocationContext(function=whoami, arguments={"greeting": "hi"})
    assert await whoami.invoke(arguments={"greeting": "hi"}, context=context) == "hi"
    assert seen == [context]


async def test_runtime_kwargs_reach_functions_that_accept_them() -> None:
    @tool
    def lookup(key: str, **kwargs: Any) -> str:
        """Look a key up."""
        return f"{key}:{kwargs.get('user_id')}"

    assert "user_id" not in lookup.parameters()["properties"]
    context = FunctionInvocationContext(
        function=lookup, arguments={"key": "k"}, kwargs={"user_id": "u1"}
    )
    assert await lookup.invoke(arguments={"key": "k"}, context=context) == "k:u1"


async def test_json_schema_input_model_checks_required_arguments() -> None:
    async def echo(**kwargs: Any) -> Any:
        return kwargs

    remote = FunctionTool(
        func=echo,
        name="remote",
        description="A remote tool.",
        input_model={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    )
    assert remote.parameters()["required"] == ["q"]
    assert await remote.invoke(arguments={"q": "x"}) == {"q": "x"}
    with pytest.raises(ToolArgumentsError, match="missing required 'q'"):
        await remote.invoke(arguments={})


async def test_max_invocations_and_declaration_only_tools() -> None:
    @tool(max_invocations=1)
    def once() -> str:
        """Only once."""
        return "ok"

    assert await once.invoke() == "ok"
    with pytest.raises(ToolExecutionError, match="reached its limit of 1 invocations"):
        await once.invoke()
    declared = FunctionTool(name="elsewhere", description="Runs elsewhere.")
    assert declared.declaration_only
    with pytest.raises(ToolExecutionError, match="declaration-only"):
        await declared.invoke()


def test_bad_approval_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="approval_mode must be"):
        FunctionTool(func=print, approval_mode="sometimes")  # type: ignore[arg-type]


async def test_function_tool_works_as_a_bare_decorator() -> None:
    @FunctionTool
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    assert isinstance(shout, FunctionTool)
    assert (shout.name, shout.description) == ("shout", "Shout.")
    assert await shout.invoke(arguments={"text": "hi"}) == "HI"


def test_a_parameter_without_a_type_hint_warns_where_the_function_is_defined() -> None:
    with pytest.warns(
        ToolSchemaWarning, match=r"tool 'add': parameter 'a' of .*add\(\) has no type hint"
    ) as caught:

        @tool
        def add(a, b: int) -> int:  # type: ignore[no-untyped-def]  # pyright: ignore[reportMissingParameterType, reportUnknownParameterType]
            """Add two numbers."""
            return a + b  # pyright: ignore[reportUnknownVariableType]

    (warning,) = caught
    assert warning.filename == __file__
    assert warning.lineno == add.func.__code__.co_firstlineno  # type: ignore[union-attr]
    assert add.parameters()["properties"]["a"] == {"title": "A"}  # the schema says nothing


def test_typed_parameters_and_the_invocation_context_do_not_warn() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolSchemaWarning)

        @tool
        def lookup(context: FunctionInvocationContext, key: str, **kwargs: Any) -> str:
            """Look a key up."""
            return key

    assert list(lookup.parameters()["properties"]) == ["key"]


def test_takes_context_says_whether_the_function_is_given_the_invocation_context() -> None:
    @tool
    def plain(city: str) -> str:
        """Plain."""
        return city

    @tool
    def with_context(city: str, context: FunctionInvocationContext) -> str:
        """With the context."""
        return city

    @tool
    def with_kwargs(city: str, **kwargs: Any) -> str:
        """With the run's kwargs."""
        return city

    assert not plain.takes_context
    assert with_context.takes_context
    assert with_kwargs.takes_context


async def test_an_input_model_gives_its_fields_only_and_calls_get_arguments_of_their_own() -> None:
    from pydantic import ConfigDict

    class Query(BaseModel):
        model_config = ConfigDict(extra="allow")
        q: str
        limit: int = 3

    seen: list[dict[str, Any]] = []

    def search(**arguments: Any) -> str:
        seen.append(dict(arguments))
        arguments["q"] = "changed by the tool"
        return "found"

    searcher = FunctionTool(func=search, name="search", input_model=Query)
    assert searcher.validate_arguments({"q": "x", "limit": "5", "other": 1}) == {
        "q": "x",
        "limit": 5,
    }
    await searcher(q="first")
    await searcher(q="second")
    assert seen == [{"q": "first", "limit": 3}, {"q": "second", "limit": 3}]


async def test_a_sync_function_that_returns_an_awaitable_has_it_awaited() -> None:
    async def later() -> str:
        return "later"

    @tool(run_inline=True)
    def inline() -> Any:
        """Returns a coroutine."""
        return later()

    @tool
    def threaded() -> Any:
        """Returns a coroutine."""
        return later()

    assert await inline() == "later"
    assert await threaded() == "later"
