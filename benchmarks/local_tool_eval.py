"""How often the local model makes the right move with tools on offer.

A fixed set of prompts, some of which need one of four tools and some of which need none.
A prompt is a hit when the model calls the expected tool (or, where no tool fits, answers
without one). For the tool prompts, the tool's result is then given back and the reply is
checked to be a text answer (the client's `max_tool_rounds` makes it one by default).

Run: `python -m benchmarks.local_tool_eval [--model NAME]`.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass

from agentry import ChatOptions, Content, FunctionTool, Message, tool
from agentry.local import DEFAULT_LOCAL_MODEL, LocalChatClient

__all__ = ["CASES", "EvalCase", "main", "run_eval"]


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"Light rain, 14 C in {city}"


@tool
def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money from one currency to another at today's rate."""
    return f"{amount} {from_currency} is {amount * 1.08:.2f} {to_currency}"


@tool
def add_calendar_event(title: str, date: str) -> str:
    """Add an event to the user's calendar on a date (YYYY-MM-DD)."""
    return f"Added '{title}' on {date}"


@tool
def get_stock_price(symbol: str) -> str:
    """Get the latest stock price for a ticker symbol such as AAPL."""
    return f"{symbol.upper()} trades at 187.20 USD"


TOOLS: list[FunctionTool] = [get_weather, convert_currency, add_calendar_event, get_stock_price]


@dataclass(frozen=True)
class EvalCase:
    """A prompt and the tool it should call (`None`: it should be answered directly)."""

    prompt: str
    expected_tool: str | None


CASES: tuple[EvalCase, ...] = (
    EvalCase("What's the weather like in Paris right now?", "get_weather"),
    EvalCase("Is it raining in Tokyo today?", "get_weather"),
    EvalCase("Do I need a coat in Oslo this afternoon?", "get_weather"),
    EvalCase("How hot is it in Cairo at the moment?", "get_weather"),
    EvalCase("Convert 250 US dollars to euros.", "convert_currency"),
    EvalCase("How many Japanese yen is 40 British pounds?", "convert_currency"),
    EvalCase("I have 1000 CHF. What is that in USD?", "convert_currency"),
    EvalCase("Put 'dentist appointment' in my calendar for 2025-03-14.", "add_calendar_event"),
    EvalCase("Schedule a team lunch on 2025-06-02.", "add_calendar_event"),
    EvalCase("Add Anna's birthday party on 2025-09-21 to my calendar.", "add_calendar_event"),
    EvalCase("What is Apple's stock price?", "get_stock_price"),
    EvalCase("How much does one MSFT share cost now?", "get_stock_price"),
    EvalCase("Check the current price of TSLA for me.", "get_stock_price"),
    EvalCase("Hello! How are you today?", None),
    EvalCase("What is the capital of Australia?", None),
    EvalCase("Write a two-line poem about autumn leaves.", None),
    EvalCase("Explain in one sentence what a prime number is.", None),
    EvalCase("What is 12 times 9?", None),
    EvalCase("Translate 'good morning' into Spanish.", None),
    EvalCase("Give me a synonym for 'happy'.", None),
    EvalCase("Who wrote Romeo and Juliet?", None),
    EvalCase("Tell me a short joke about programmers.", None),
    EvalCase("Thanks, that is all for now.", None),
    EvalCase("How many days are there in a leap year?", None),
)


@dataclass
class EvalResult:
    """The outcome of one case."""

    case: EvalCase
    called: str | None
    answered_after_result: bool | None


async def _first_move(client: LocalChatClient, messages: list[Message]) -> Message:
    options: ChatOptions = {"tools": TOOLS, "max_tokens": 96}
    response = await client.get_response(messages, options=options)
    return response.messages[-1]


async def _run_case(client: LocalChatClient, case: EvalCase) -> EvalResult:
    question = Message("user", [case.prompt])
    move = await _first_move(client, [question])
    calls = [c for c in move.contents if c.type == "function_call"]
    if not calls:
        return EvalResult(case, None, None)
    call = calls[0]
    chosen = next((t for t in TOOLS if t.name == call.name), None)
    answered: bool | None = None
    if chosen is not None and case.expected_tool is not None:
        result = await chosen.invoke(arguments=call.parse_arguments())
        tool_message = Message(
            "tool", [Content.from_function_result(call_id=call.call_id or "", result=result)]
        )
        second = await _first_move(client, [question, move, tool_message])
        answered = not any(c.type == "function_call" for c in second.contents)
    return EvalResult(case, call.name, answered)


async def run_eval(model: str = DEFAULT_LOCAL_MODEL, *, verbose: bool = True) -> float:
    """Run every case against `model`; return the hit rate and print a report."""
    client = LocalChatClient(model)
    await client.load()
    started = time.perf_counter()
    results: list[EvalResult] = []
    for case in CASES:
        result = await _run_case(client, case)
        results.append(result)
        if verbose:
            hit = "hit " if result.called == case.expected_tool else "MISS"
            print(
                f"  {hit} expected {case.expected_tool!s:<20} got {result.called!s:<20} "
                f"{case.prompt}"
            )
    hits = sum(r.called == r.case.expected_tool for r in results)
    followed = [r.answered_after_result for r in results if r.answered_after_result is not None]
    seconds = time.perf_counter() - started
    rate = hits / len(results)
    print(
        f"local tool calling ({model}): {hits}/{len(results)} right moves ({rate:.0%}); "
        f"text answer after the tool result in {sum(followed)}/{len(followed)}; "
        f"{seconds:.1f} s"
    )
    return rate


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL)
    parser.add_argument("--quiet", action="store_true", help="print the summary line only")
    args = parser.parse_args()
    asyncio.run(run_eval(args.model, verbose=not args.quiet))


if __name__ == "__main__":
    main()
