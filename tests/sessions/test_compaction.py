from collections.abc import Sequence
from pathlib import Path

import pytest
from benchmarks.core import bench_compaction

from agentry import Agent, Content, FileHistoryProvider, Message, SQLiteHistoryProvider, tool
from agentry.clients.scripted import ScriptedChatClient
from agentry.errors import ChatClientError
from agentry.sessions import (
    AgentSession,
    HistoryProvider,
    InMemoryHistoryProvider,
    SlidingWindowCompaction,
    SQLHistoryProvider,
    SummaryCompaction,
    TokenBudgetCompaction,
    estimate_tokens,
)


@tool
def lookup(n: int) -> str:
    """Look up record n."""
    return f"record {n}: " + "data " * 40


def _tool_turns(turns: int) -> ScriptedChatClient:
    client = ScriptedChatClient()
    for n in range(turns):
        client.add(
            ScriptedChatClient.function_call("lookup", {"n": n}, call_id=f"call-{n}"),
            f"Record {n} says data. " * 5,
        )
    return client


def _assert_whole_tool_exchanges(messages: Sequence[Message]) -> None:
    calls: set[str | None] = set()
    results: set[str | None] = set()
    for message in messages:
        for content in message.contents:
            if content.type == "function_call":
                calls.add(content.call_id)
            elif content.type == "function_result":
                assert content.call_id in calls, f"result {content.call_id} sent without its call"
                results.add(content.call_id)
    assert calls == results, f"calls sent without their results: {calls - results}"


async def _run_turns(
    agent: Agent, session: AgentSession, turns: int, *, stream: bool, start: int = 0
) -> None:
    for n in range(start, start + turns):
        if stream:
            async for _ in agent.run(
                f"Question {n}: what is in record {n}?", session=session, stream=True
            ):
                pass
        else:
            await agent.run(f"Question {n}: what is in record {n}?", session=session)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_200_turn_conversation_with_tools_stays_within_the_token_budget(
    stream: bool,
) -> None:
    client = _tool_turns(200)
    history = InMemoryHistoryProvider(compaction=TokenBudgetCompaction(1500))
    agent = Agent(
        client=client,
        instructions="Answer from the records.",
        tools=[lookup],
        context_providers=[history],
    )
    session = agent.create_session()

    await _run_turns(agent, session, 200, stream=stream)

    assert len(client.calls) == 400
    for number, call in enumerate(client.calls):
        assert sum(estimate_tokens(m) for m in call.messages) <= 1500
        _assert_whole_tool_exchanges(call.messages)
        assert call.messages[0].text == "Answer from the records."
        assert f"Question {number // 2}:" in call.messages[-1 - number % 2 * 2].text
    assert len(client.calls[-1].messages) < 80  # older turns were left out...
    stored = await history.get_messages(session.session_id, state=session.state["in_memory"])
    assert len(stored) == 200 * 4  # ...of what was sent, never of what is stored
    assert stored[0].text == "Question 0: what is in record 0?"


async def test_a_budget_smaller_than_the_latest_turn_still_sends_that_turn_whole(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = _tool_turns(3)
    agent = Agent(
        client=client,
        tools=[lookup],
        context_providers=[InMemoryHistoryProvider(compaction=TokenBudgetCompaction(20))],
    )
    session = agent.create_session()

    await _run_turns(agent, session, 3, stream=False)

    last = client.calls[-1].messages
    assert [m.role for m in last] == ["user", "assistant", "tool"]
    _assert_whole_tool_exchanges(last)
    assert "over the compaction budget of 20" in caplog.text


async def test_the_sliding_window_sends_the_latest_turns_and_the_file_keeps_them_all(
    tmp_path: Path,
) -> None:
    client = _tool_turns(10)
    history = FileHistoryProvider(tmp_path, compaction=SlidingWindowCompaction(max_turns=3))
    agent = Agent(
        client=client, instructions="Be brief.", tools=[lookup], context_providers=[history]
    )
    session = agent.create_session(session_id="window")

    await _run_turns(agent, session, 10, stream=False)

    sent = client.calls[-1].messages  # the last turn's answer call
    assert sent[0].text == "Be brief."
    questions = [m.text for m in sent if m.role == "user"]
    assert questions == [f"Question {n}: what is in record {n}?" for n in (7, 8, 9)]
    _assert_whole_tool_exchanges(sent)
    assert len(await history.get_messages("window")) == 40


async def test_a_message_window_never_starts_with_a_tool_result() -> None:
    client = _tool_turns(4)
    window = SlidingWindowCompaction(max_messages=3)
    agent = Agent(
        client=client,
        tools=[lookup],
        context_providers=[InMemoryHistoryProvider(compaction=window)],
    )
    session = agent.create_session()

    await _run_turns(agent, session, 4, stream=True)

    for call in client.calls:
        assert len(call.messages) <= 3
        _assert_whole_tool_exchanges(call.messages)
    # a naive window of three would start the question's call with the previous result
    assert [m.role for m in client.calls[-2].messages] == ["assistant", "user"]
    assert [m.role for m in client.calls[-1].messages] == ["user", "assistant", "tool"]


def _ten_tokens(message: Message) -> int:
    return 10


async def test_the_summary_is_made_once_kept_in_the_session_and_refreshed_at_the_budget(
    tmp_path: Path,
) -> None:
    client = ScriptedChatClient([f"Answer {n}." for n in range(12)])
    summarizer = ScriptedChatClient(["Ada asked six questions.", "Ada asked twelve questions."])
    compaction = SummaryCompaction(summarizer, max_tokens=100, counter=_ten_tokens)
    history = SQLiteHistoryProvider(tmp_path / "history.db", compaction=compaction)
    agent = Agent(client=client, context_providers=[history])
    session = agent.create_session(session_id="long")

    for n in range(6):
        await agent.run(f"Question {n}", session=session)
    assert len(summarizer.calls) == 1
    summarized = summarizer.calls[0].messages[-1].text
    assert "user: Question 0" in summarized
    assert "assistant: Answer 2." in summarized
    assert "Question 3" not in summarized  # the latest turns stay verbatim
    sent = client.calls[5].messages
    assert sent[0].role == "system"
    assert sent[0].text.endswith("Ada asked six questions.")
    assert [m.text for m in sent[1:]][-1] == "Question 5"

    restored = AgentSession.from_dict(session.to_dict())
    for n in range(6, 8):
        async for _ in agent.run(f"Question {n}", session=restored, stream=True):
            pass
    assert len(summarizer.calls) == 1  # reused, not recomputed
    assert client.calls[7].messages[0].text.endswith("Ada asked six questions.")

    async for _ in agent.run("Question 8", session=restored, stream=True):
        pass
    assert len(summarizer.calls) == 2
    assert "Summary so far:\nAda asked six questions." in summarizer.calls[1].messages[-1].text
    assert client.calls[8].messages[0].text.endswith("Ada asked twelve questions.")
    for call in client.calls:
        assert len(call.messages) * 10 <= 100
    stored = await history.get_messages("long")
    assert [m.text for m in stored][:2] == ["Question 0", "Answer 0."]
    assert len(stored) == 18
    await history.close()


async def test_a_summary_of_another_conversation_start_is_not_used() -> None:
    client = ScriptedChatClient([f"Answer {n}." for n in range(7)])
    summarizer = ScriptedChatClient(["First summary.", "Second summary."])
    compaction = SummaryCompaction(summarizer, max_tokens=100, counter=_ten_tokens)
    history = InMemoryHistoryProvider(compaction=compaction)
    agent = Agent(client=client, context_providers=[history])
    session = agent.create_session()
    for n in range(6):
        await agent.run(f"Question {n}", session=session)
    messages = session.state["in_memory"]["messages"]
    messages[0] = Message("user", ["A different start"])  # the history was edited

    await agent.run("Question 6", session=session)

    assert len(summarizer.calls) == 2
    assert "A different start" in summarizer.calls[1].messages[-1].text
    assert client.calls[-1].messages[0].text.endswith("Second summary.")


async def test_a_failed_summary_leaves_the_oldest_out_and_is_tried_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = ScriptedChatClient([f"Answer {n}." for n in range(7)])
    summarizer = ScriptedChatClient([ChatClientError("the summarizer is down"), "Summary."])
    compaction = SummaryCompaction(summarizer, max_tokens=100, counter=_ten_tokens)
    agent = Agent(client=client, context_providers=[InMemoryHistoryProvider(compaction=compaction)])
    session = agent.create_session()

    for n in range(6):
        await agent.run(f"Question {n}", session=session)
    assert "could not summarize the older turns (the summarizer is down)" in caplog.text
    assert [m.text for m in client.calls[5].messages[:2]] == ["Answer 0.", "Question 1"]
    assert "summary" not in session.state["in_memory"]["compaction"]

    await agent.run("Question 6", session=session)
    assert len(summarizer.calls) == 2
    assert client.calls[6].messages[0].text.endswith("Summary.")


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda: SlidingWindowCompaction(), "exactly one of max_messages= or max_turns="),
        (lambda: SlidingWindowCompaction(max_turns=0), "max_turns=...) must be a positive"),
        (lambda: TokenBudgetCompaction(0), "max_tokens=...) must be a positive"),
        (
            lambda: SummaryCompaction(ScriptedChatClient(), max_tokens=100, keep_tokens=100),
            "between 1 and max_tokens - 1",
        ),
    ],
)
def test_bad_compaction_settings_are_clear_errors(make: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        make()  # type: ignore[operator]


async def test_a_history_provider_without_compaction_sends_everything() -> None:
    provider: HistoryProvider = InMemoryHistoryProvider()
    messages = [Message("user", [f"m{n}"]) for n in range(5)]
    assert await provider.compact(messages, state={}) == messages


async def test_a_result_whose_call_is_missing_stands_alone_and_can_be_left_out() -> None:
    orphan = Message("tool", [Content.from_function_result(call_id="gone", result="old")])
    turns = [Message("user" if n % 2 == 0 else "assistant", [f"turn {n} " * 10]) for n in range(8)]
    compaction = TokenBudgetCompaction(50)

    sent = await compaction.compact([orphan, *turns], state={})

    assert sent == turns[-2:]


def test_the_benchmark_times_a_run_with_and_without_compaction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench_compaction(20, repeats=1, iterations=2)

    line = capsys.readouterr().out
    assert line.startswith("token budget, 20-turn history")
    assert "compaction costs" in line


async def test_compaction_with_history_in_postgresql(postgres_url: str) -> None:
    url = postgres_url.replace("postgresql://", "postgresql+asyncpg://", 1)
    history = SQLHistoryProvider(url, compaction=TokenBudgetCompaction(400))
    client = _tool_turns(20)
    agent = Agent(client=client, tools=[lookup], context_providers=[history])
    session = agent.create_session(session_id="pg")

    await _run_turns(agent, session, 20, stream=True)

    for call in client.calls:
        assert sum(estimate_tokens(m) for m in call.messages) <= 400
        _assert_whole_tool_exchanges(call.messages)
    assert len(client.calls[-1].messages) < 20
    stored = await history.get_messages("pg")
    assert len(stored) == 80
    assert stored[0].text == "Question 0: what is in record 0?"
    await history.close()
