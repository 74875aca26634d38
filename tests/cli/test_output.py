import asyncio
import io

from agentry import AgentResponseUpdate, Content
from agentry.cli._output import Printer


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


async def test_spinner_shows_while_waiting_and_clears_before_text() -> None:
    out, err = io.StringIO(), _Terminal()
    printer = Printer(out, err, json_mode=False)
    assert printer.progress
    with printer.working("thinking"):
        while "thinking" not in err.getvalue():
            await asyncio.sleep(0.05)
        printer.update(AgentResponseUpdate(contents=[Content.from_text("Hi")], role="assistant"))
    assert err.getvalue().endswith("\r\x1b[K")
    assert out.getvalue() == "Hi"


def test_no_spinner_for_pipes_or_json() -> None:
    assert not Printer(io.StringIO(), io.StringIO(), json_mode=False).progress
    assert not Printer(io.StringIO(), _Terminal(), json_mode=True).progress
