"""Checking a run's final answer against its response format, and asking again."""

from __future__ import annotations

from agentry.errors import OutputValidationError
from agentry.types import ChatResponse, Message, parse_structured_output

__all__ = ["OutputCheck"]


class OutputCheck:
    """The response format of one run and the output retries it has left.

    Args:
        response_format: A pydantic model class or a JSON schema dict.
        retries: How many times the model is asked again after an answer that does not
            validate.
    """

    __slots__ = ("attempts", "response_format", "retries", "value")

    def __init__(self, response_format: object, retries: int) -> None:
        self.response_format = response_format
        self.retries = retries
        self.attempts = 0
        self.value: object = None

    def feedback(self, response: ChatResponse) -> Message | None:
        """Validate the final answer in `response`: `None` when it holds (its value is kept
        in `value`), else the message that asks the model to answer again.

        Raises:
            OutputValidationError: The answer does not validate and no retry is left.
        """
        self.attempts += 1
        try:
            self.value = parse_structured_output(response.answer_text, self.response_format)
        except OutputValidationError as error:
            if self.attempts > self.retries:
                raise self._exhausted(error) from None
            return Message("user", [_feedback_text(error)])
        return None

    def _exhausted(self, error: OutputValidationError) -> OutputValidationError:
        answers = f"{self.attempts} answer{'s' if self.attempts > 1 else ''}"
        return OutputValidationError(
            f"{error} (after {answers}, with output_retries={self.retries}); the raw text is "
            "in the error's `text`. Make the instructions or the format simpler, use a model "
            "that follows it, or raise output_retries",
            text=error.text,
            errors=error.errors,
            attempts=self.attempts,
        )


def _feedback_text(error: OutputValidationError) -> str:
    problems = "\n".join(f"- {problem}" for problem in error.errors)
    return (
        "Your answer does not match the required response format:\n"
        f"{problems}\n"
        "Answer again with only the JSON value the format describes, and nothing else."
    )
