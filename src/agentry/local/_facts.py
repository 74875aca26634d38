"""The numbers and words of a text, to tell whether a value or an answer comes from it."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["TextFacts", "content_words"]

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Words this long name a specific thing (a city, a person, a status); shorter ones are often
# codes a model derives from the user's words ("USD" from "dollars").
_WORD = re.compile(r"[^\W\d_]{4,}")
_ADDRESS = re.compile(r"\S@\S|://")


class TextFacts:
    """The numbers and the longer words of some texts."""

    def __init__(self, texts: Iterable[str]) -> None:
        text = "\n".join(texts)
        self.text = text.lower()
        self.numbers = {float(number) for number in _NUMBER.findall(text)}
        self.words = {word.lower() for word in _WORD.findall(text)}

    def __bool__(self) -> bool:
        return bool(self.numbers or self.words)

    def without(self, other: TextFacts) -> TextFacts:
        """These facts less those `other` holds."""
        rest = TextFacts(())
        rest.text = self.text
        rest.numbers = self.numbers - other.numbers
        rest.words = self.words - other.words
        return rest

    def shares_any(self, other: TextFacts) -> bool:
        """Whether a number or word is in both."""
        return bool(self.numbers & other.numbers or self.words & other.words)

    def holds(self, value: object) -> bool:
        """Whether `value` could have come from these texts."""
        if isinstance(value, bool):
            return True
        if isinstance(value, int | float):
            return float(value) in self.numbers
        if not isinstance(value, str):
            return True  # lists and objects are built by the model, not quoted
        if not value.strip():
            return False
        if _ADDRESS.search(value):
            # An email address or a link cannot be worked out from words: it must be quoted.
            return value.strip().lower() in self.text
        if any(float(number) not in self.numbers for number in _NUMBER.findall(value)):
            return False
        words = {word.lower() for word in _WORD.findall(value)}
        return not words or bool(words & self.words)


# Words that carry no subject of their own: a request and a tool sharing only these are unrelated.
_FUNCTION_WORDS_TEXT = """
    a about after again all also am an and any are as at be been before being but by can could
    did do does doing done for from get gets give given had has have he her here him his
    how i if in into is it its just know let like make me more much my need no not now of
    on one or our out over please right same say she should so some tell than that the
    their them then there these they this those to too up us very want was way we well
    were what when where which who whom why will with would you your"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
_CONTENT_WORD = re.compile(r"[^\W_]{3,}|[^\W_]*\d[^\W_]*")


def content_words(text: str) -> set[str]:
    """The words of `text` that name something (lower-cased): no function words, no
    one- or two-letter words unless they hold a digit; "send_email" gives "send" and "email"."""
    text = text.replace("'s", "").replace("\u2019s", "")
    words = {word.lower() for word in _CONTENT_WORD.findall(text)} - _FUNCTION_WORDS
    return {_singular(word) for word in words}


def _singular(word: str) -> str:
    """`word` without a plural "s", so "flights" meets "flight" ("address" is kept)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
