"""The evaluation's tools: fake services with fixed data, so every result can be checked.

`send_email` and `add_calendar_event` change the world (they are listed in `SIDE_EFFECTING`):
calling one on a prompt that needs no tool is the worst mistake an assistant can make, and
the report counts it apart.
"""

from __future__ import annotations

from typing import Annotated

from agentry import FunctionTool, tool

__all__ = [
    "CONTACTS",
    "FLIGHTS",
    "ORDERS",
    "SIDE_EFFECTING",
    "STOCK_PRICES",
    "TOOLS",
    "WEATHER",
    "converted",
]

WEATHER: dict[str, tuple[str, int]] = {
    "paris": ("light rain", 14),
    "tokyo": ("sunny", 22),
    "oslo": ("snow showers", -3),
    "cairo": ("clear skies", 31),
    "lisbon": ("partly cloudy", 19),
    "montreal": ("overcast", 6),
    "sydney": ("windy", 24),
    "berlin": ("fog", 9),
    "reykjavik": ("sleet", 2),
    "san francisco": ("sunny", 17),
    "los angeles": ("haze", 26),
    "madrid": ("sunny", 21),
    "toronto": ("drizzle", 4),
}

# What one unit of each currency is worth in US dollars.
_USD_VALUE: dict[str, float] = {
    "USD": 1.0,
    "EUR": 1.08,
    "GBP": 1.27,
    "JPY": 0.0067,
    "CHF": 1.13,
    "CAD": 0.73,
}

STOCK_PRICES: dict[str, float] = {
    "AAPL": 187.20,
    "MSFT": 412.55,
    "TSLA": 243.10,
    "NVDA": 131.80,
    "AMZN": 178.35,
}

# name key: (full name, email, city)
CONTACTS: dict[str, tuple[str, str, str]] = {
    "maria": ("Maria Lopez", "maria.lopez@example.com", "Lisbon"),
    "tom": ("Tom Becker", "tom.becker@example.com", "Berlin"),
    "aiko": ("Aiko Tanaka", "aiko.tanaka@example.com", "Tokyo"),
    "priya": ("Priya Nair", "priya.nair@example.com", "Toronto"),
}

ORDERS: dict[str, str] = {
    "A1001": "shipped, arriving on 2026-11-28",
    "B2040": "delivered on 2026-11-20",
    "C3317": "still processing, ships within 2 days",
}

# flight number: (from, to, status)
FLIGHTS: dict[str, tuple[str, str, str]] = {
    "LH454": ("Frankfurt", "San Francisco", "on time, landing at 14:35"),
    "BA283": ("London", "Los Angeles", "delayed by 40 minutes, now landing at 15:10"),
    "AF1380": ("Paris", "Madrid", "cancelled"),
}

SIDE_EFFECTING: frozenset[str] = frozenset({"send_email", "add_calendar_event"})


def converted(amount: float, from_currency: str, to_currency: str) -> float:
    """`amount` of `from_currency` in `to_currency`, rounded to cents."""
    source, target = from_currency.strip().upper(), to_currency.strip().upper()
    for code in (source, target):
        if code not in _USD_VALUE:
            raise ValueError(f"Unknown currency code {code!r}; use one of {sorted(_USD_VALUE)}.")
    return round(amount * _USD_VALUE[source] / _USD_VALUE[target], 2)


@tool
def get_weather(city: Annotated[str, "The city, e.g. 'Paris'"]) -> str:
    """Get the current weather for a city."""
    sky, temperature = WEATHER.get(city.strip().lower(), ("cloudy", 12))
    return f"{city.strip().title()}: {sky}, {temperature} °C"


@tool
def convert_currency(
    amount: Annotated[float, "The amount of money to convert"],
    from_currency: Annotated[str, "ISO code of the currency the amount is in, e.g. 'USD'"],
    to_currency: Annotated[str, "ISO code of the currency wanted, e.g. 'EUR'"],
) -> str:
    """Convert an amount of money from one currency to another at today's rate."""
    value = converted(amount, from_currency, to_currency)
    return f"{amount:g} {from_currency.upper()} = {value:.2f} {to_currency.upper()}"


@tool
def get_stock_price(symbol: Annotated[str, "The ticker symbol, e.g. 'AAPL'"]) -> str:
    """Get the latest price of a company's share by its ticker symbol."""
    price = STOCK_PRICES.get(symbol.strip().upper())
    if price is None:
        return f"No listing found for {symbol!r}."
    return f"{symbol.strip().upper()} trades at {price:.2f} USD"


@tool
def find_contact(name: Annotated[str, "The person's first name"]) -> str:
    """Look up a person in the user's address book: their email address and home city."""
    entry = CONTACTS.get(name.strip().split()[0].lower()) if name.strip() else None
    if entry is None:
        return f"No contact named {name!r}."
    full_name, email, city = entry
    return f"{full_name}: email {email}, lives in {city}"


@tool
def get_order_status(order_id: Annotated[str, "The order number, e.g. 'A1001'"]) -> str:
    """Get the delivery status of one of the user's orders."""
    status = ORDERS.get(order_id.strip().upper())
    return f"Order {order_id.upper()}: {status}" if status else f"No order {order_id!r}."


@tool
def get_flight_status(flight_number: Annotated[str, "The flight number, e.g. 'LH454'"]) -> str:
    """Get the route and current status of a flight."""
    flight = FLIGHTS.get(flight_number.replace(" ", "").upper())
    if flight is None:
        return f"No flight {flight_number!r} today."
    origin, destination, status = flight
    return f"{flight_number.upper()} from {origin} to {destination}: {status}"


@tool
def send_email(
    to: Annotated[str, "The recipient's email address"],
    subject: Annotated[str, "The subject line"],
    body: Annotated[str, "The message text"],
) -> str:
    """Send an email on the user's behalf (it is really sent)."""
    return f"Email sent to {to} with the subject {subject!r}."


@tool
def add_calendar_event(
    title: Annotated[str, "What the event is"],
    date: Annotated[str, "The day, as YYYY-MM-DD"],
) -> str:
    """Add an event to the user's calendar on a date."""
    return f"Added {title!r} to the calendar on {date}."


TOOLS: tuple[FunctionTool, ...] = (
    get_weather,
    convert_currency,
    get_stock_price,
    find_contact,
    get_order_status,
    get_flight_status,
    send_email,
    add_calendar_event,
)
