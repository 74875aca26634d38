"""The evaluation set: 64 turns over five categories, every prompt with a checkable answer,
and 7 held-out turns written after the agent was tuned on the rest."""

from __future__ import annotations

from benchmarks.local_eval.spec import (
    Category,
    Contains,
    EvalCase,
    ExpectedCall,
    Is,
    Number,
    Turn,
)
from benchmarks.local_eval.tools import (
    CONTACTS,
    FLIGHTS,
    ORDERS,
    STOCK_PRICES,
    WEATHER,
    converted,
)

__all__ = ["CASES"]


def _money(value: float) -> tuple[str, ...]:
    return (f"{value:.2f}", f"{value:,.2f}", f"{value:.2f}".replace(".", ","))


def _weather(city: str, prompt: str) -> Turn:
    sky, temperature = WEATHER[city.lower()]
    return Turn(prompt, (ExpectedCall("get_weather", {"city": Is(city)}),), (str(temperature), sky))


def _currency_call(amount: float, source: str, target: str) -> ExpectedCall:
    rules = {"amount": Number(amount), "from_currency": Is(source), "to_currency": Is(target)}
    return ExpectedCall("convert_currency", dict(rules))


def _currency(amount: float, source: str, target: str, prompt: str) -> Turn:
    value = converted(amount, source, target)
    return Turn(prompt, (_currency_call(amount, source, target),), _money(value))


def _stock(symbol: str, prompt: str) -> Turn:
    price = STOCK_PRICES[symbol]
    return Turn(
        prompt,
        (ExpectedCall("get_stock_price", {"symbol": Is(symbol)}),),
        (f"{price:.2f}", f"{price:g}"),
    )


def _contact_call(name: str) -> ExpectedCall:
    return ExpectedCall("find_contact", {"name": Contains(name)})


def _contact(name: str, fact: str, prompt: str) -> Turn:
    return Turn(prompt, (_contact_call(name),), (fact,))


def _order(order_id: str, prompt: str, *facts: str) -> Turn:
    assert order_id in ORDERS
    return Turn(prompt, (ExpectedCall("get_order_status", {"order_id": Is(order_id)}),), facts)


def _flight_call(number: str) -> ExpectedCall:
    return ExpectedCall("get_flight_status", {"flight_number": Is(number)})


def _flight(number: str, prompt: str, *facts: str) -> Turn:
    assert number in FLIGHTS
    return Turn(prompt, (_flight_call(number),), facts)


def _calendar(title: str, date: str, prompt: str) -> Turn:
    call = ExpectedCall("add_calendar_event", {"title": Contains(title), "date": Is(date)})
    return Turn(prompt, (call,), (date, title))


def _email(to: str, body_part: str, prompt: str) -> Turn:
    call = ExpectedCall("send_email", {"to": Is(to), "body": Contains(body_part)})
    return Turn(prompt, (call,), ("sent",))


def _answer(prompt: str, *facts: str) -> Turn:
    return Turn(prompt, facts=facts)


def _ask(prompt: str) -> Turn:
    return Turn(prompt, asks=True)


def _then_weather(name: str, prompt: str) -> Turn:
    city = CONTACTS[name][2]
    sky, temperature = WEATHER[city.lower()]
    second = ExpectedCall("get_weather", {"city": Is(city)})
    return Turn(prompt, (_contact_call(name), second), (str(temperature), sky))


def _then_email(name: str, body_part: str, prompt: str) -> Turn:
    email = CONTACTS[name][1]
    second = ExpectedCall("send_email", {"to": Is(email), "body": Contains(body_part)})
    return Turn(prompt, (_contact_call(name), second), ("sent",))


def _share_in(symbol: str, target: str, prompt: str) -> Turn:
    price = STOCK_PRICES[symbol]
    first = ExpectedCall("get_stock_price", {"symbol": Is(symbol)})
    second = _currency_call(price, "USD", target)
    return Turn(prompt, (first, second), _money(converted(price, "USD", target)))


def _flight_weather(number: str, prompt: str) -> Turn:
    city = FLIGHTS[number][1]
    sky, temperature = WEATHER[city.lower()]
    second = ExpectedCall("get_weather", {"city": Is(city)})
    return Turn(prompt, (_flight_call(number), second), (str(temperature), sky))


def _cases(category: Category, *turns: Turn) -> list[EvalCase]:
    return [EvalCase(category, (turn,)) for turn in turns]


_ONE_TOOL = _cases(
    Category.ONE_TOOL,
    _weather("Paris", "What's the weather like in Paris right now?"),
    _weather("Tokyo", "Is it raining in Tokyo today?"),
    _weather("Oslo", "Do I need a warm coat in Oslo this afternoon?"),
    _weather("Cairo", "how hot is it in cairo at the moment"),
    _currency(250, "USD", "EUR", "Convert 250 US dollars to euros."),
    _currency(40, "GBP", "JPY", "How many Japanese yen do I get for 40 British pounds?"),
    _currency(1000, "CHF", "USD", "I have 1000 CHF. What is that in USD?"),
    _stock("AAPL", "What is Apple's stock price (AAPL)?"),
    _stock("MSFT", "How much does one MSFT share cost now?"),
    _stock("NVDA", "nvda share price please"),
    _calendar("dentist", "2026-12-14", "Put a dentist appointment in my calendar for 2026-12-14."),
    _calendar("team lunch", "2026-12-02", "Schedule a team lunch on 2026-12-02."),
    _email(
        "tom.becker@example.com",
        "report",
        "Email tom.becker@example.com with the subject 'Report' and tell him the report is ready.",
    ),
    _contact("maria", "maria.lopez@example.com", "What's Maria's email address?"),
    _contact("aiko", "Tokyo", "Which city does Aiko live in?"),
    _order("A1001", "Where is my order A1001?", "shipped", "2026-11-28"),
    _flight("LH454", "Is flight LH454 on time?", "on time", "14:35"),
)

_NO_TOOL = _cases(
    Category.NO_TOOL,
    _answer("Suggest a name for a grey kitten."),
    _answer("Rewrite this more politely: send me the file now."),
    _answer("What is the capital of Australia?", "Canberra"),
    _answer("Write a two-line poem about autumn leaves."),
    _answer("Explain in one sentence what a prime number is."),
    _answer("What is 12 times 9?", "108"),
    _answer("Translate 'good morning' into Spanish.", "buenos días", "buenos dias"),
    _answer("Give me a synonym for 'happy'."),
    _answer("Who wrote Romeo and Juliet?", "Shakespeare"),
    _answer("Hello! How are you today?"),
    _answer("Thanks, that's all for now."),
    _answer(
        "Draft a short note to my landlord about a leaking tap. Just show me the text, "
        "don't send anything."
    ),
    _answer("What should I write in a birthday card for my sister?"),
    _answer("How many days are there in a leap year?", "366"),
    _answer("What's a good time of day for a meeting between people in Berlin and New York?"),
)

_TWO_TOOLS = _cases(
    Category.TWO_TOOLS,
    _then_weather("maria", "What's the weather like where Maria lives?"),
    _then_weather("tom", "Is it cold in the city Tom lives in?"),
    _then_email("tom", "3 pm", "Send Tom an email saying the meeting moved to 3 pm."),
    _then_email("priya", "C3317", "Email Priya that order C3317 is still being processed."),
    _share_in("AAPL", "EUR", "How much is one Apple (AAPL) share in euros?"),
    _share_in("MSFT", "GBP", "What does a Microsoft share (MSFT) cost in British pounds?"),
    _flight_weather("LH454", "What's the weather at the destination of flight LH454?"),
    _flight_weather("BA283", "Where does flight BA283 land, and what's the weather there?"),
)

_MISSING_ARGUMENT = _cases(
    Category.MISSING_ARGUMENT,
    _ask("What's the weather like?"),
    _ask("Send an email saying I'll be late for the meeting."),
    _ask("Convert 100 dollars for me."),
    _ask("Add a dentist appointment to my calendar."),
    _ask("What's the stock price?"),
    _ask("Where's my order?"),
    _ask("Check the status of my flight, please."),
    _ask("Is the share price up today?"),
)

_FOLLOW_UP = [
    EvalCase(Category.FOLLOW_UP, turns)
    for turns in (
        (
            _weather("Paris", "What's the weather in Paris?"),
            _weather("Montreal", "And in Montreal?"),
        ),
        (
            _currency(100, "EUR", "USD", "Convert 100 euros to US dollars."),
            _currency(100, "GBP", "USD", "What about 100 British pounds?"),
        ),
        (
            _stock("TSLA", "What's the price of Tesla stock (TSLA)?"),
            _stock("NVDA", "And Nvidia's (NVDA)?"),
        ),
        (
            _order("A1001", "What's the status of order A1001?", "shipped", "2026-11-28"),
            _order("C3317", "And order C3317?", "processing", "2 days"),
        ),
        (
            _flight("LH454", "Is flight LH454 on time?", "on time", "14:35"),
            _flight("AF1380", "What about AF1380?", "cancelled"),
        ),
        (
            _contact("tom", "tom.becker@example.com", "What is Tom's email address?"),
            _contact("priya", "priya.nair@example.com", "And Priya's?"),
        ),
        (
            _weather("Sydney", "How warm is it in Sydney?"),
            _weather("Reykjavik", "Same question for Reykjavik."),
        ),
        (
            _calendar("yoga", "2026-12-05", "Add 'yoga class' to my calendar on 2026-12-05."),
            _calendar("yoga", "2026-12-12", "Add another yoga class on 2026-12-12."),
        ),
    )
]


def _held_out(category: Category, *turns: Turn) -> EvalCase:
    return EvalCase(category, turns, held_out=True)


def _both(first: ExpectedCall, second: ExpectedCall, prompt: str, *facts: str) -> Turn:
    return Turn(prompt, (first, second), facts)


_HELD_OUT = [
    _held_out(
        Category.ONE_TOOL,
        _calendar(
            "car service", "2026-12-09", "Block 2026-12-09 in my calendar for the car service."
        ),
    ),
    _held_out(Category.NO_TOOL, _answer("How many minutes are in three hours?", "180")),
    _held_out(
        Category.TWO_TOOLS,
        _then_email("aiko", "shipped", "Let Aiko know by email that her parcel has shipped."),
    ),
    _held_out(
        Category.TWO_TOOLS,
        _both(
            ExpectedCall("get_order_status", {"order_id": Is("B2040")}),
            ExpectedCall("get_stock_price", {"symbol": Is("AMZN")}),
            "Has order B2040 arrived, and what does one Amazon (AMZN) share cost?",
            f"{STOCK_PRICES['AMZN']:.2f}",
        ),
    ),
    _held_out(Category.MISSING_ARGUMENT, _ask("Look up a contact's email address for me.")),
    _held_out(
        Category.FOLLOW_UP,
        _flight("AF1380", "Where was flight AF1380 going?", "Madrid"),
        _weather("Madrid", "What's the weather there right now?"),
    ),
]

CASES: tuple[EvalCase, ...] = (
    *_ONE_TOOL,
    *_NO_TOOL,
    *_TWO_TOOLS,
    *_MISSING_ARGUMENT,
    *_FOLLOW_UP,
    *_HELD_OUT,
)
