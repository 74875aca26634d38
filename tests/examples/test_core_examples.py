"""Every example runs; the main ones are also checked for what they print."""

from .running import run_example


def _run(name: str, *args: str) -> str:
    return run_example(name, *args).stdout


def test_demo_answers_with_a_tool_on_the_scripted_model() -> None:
    out = _run("demo.py", "--client", "scripted")
    assert "[calling get_temperature" in out
    assert "18 degrees Celsius in Paris" in out


def test_demo_runs_on_the_local_model() -> None:
    env_free = _run("demo.py", "--client", "local")
    question, answer = env_free.strip().splitlines()[-2:]
    assert question == "user: How warm is it in Paris today?"
    assert answer.startswith("weather: ")
    assert len(answer.removeprefix("weather: ").strip()) > 0


def test_approval_example() -> None:
    out = _run("approval.py")
    assert "approve send_email" in out
    assert out.strip().endswith("The email is on its way.")


def test_middleware_and_sessions_example() -> None:
    out = _run("middleware_and_sessions.py")
    assert "tool remember{'fact': 'Ada likes tea'} -> noted: Ada likes tea" in out
    assert "< You like tea." in out
