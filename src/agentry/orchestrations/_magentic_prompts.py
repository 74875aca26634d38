"""The prompts a magentic manager is given."""

from __future__ import annotations

__all__ = ["FINAL_ANSWER_PROMPT", "PLAN_PROMPT", "PROGRESS_PROMPT", "REPLAN_PROMPT"]

PLAN_PROMPT = """You lead a team to complete this task:
{task}

The team members are:
{team}

First write the facts ledger: facts given in the task, facts to look up, facts to derive,
and educated guesses. Then write a short plan: a list of steps, each naming the team member
who should do it.{feedback}
Answer only with JSON: {{"facts": ["..."], "plan": ["..."]}}"""

REPLAN_PROMPT = """The team is stuck on this task:
{task}

The facts so far:
{facts}

The plan so far:
{plan}

The team members are:
{team}

Update the facts with what the conversation taught you, and write a new plan that avoids
what went wrong.{feedback}
Answer only with JSON: {{"facts": ["..."], "plan": ["..."]}}"""

PROGRESS_PROMPT = """You lead a team on this task:
{task}

The facts:
{facts}

The plan:
{plan}

The team members are:
{team}

Judge the progress of the conversation so far and decide what happens next. Answer only
with JSON:
{{"is_request_satisfied": true or false, "is_progress_being_made": true or false,
"is_in_loop": true or false, "next_speaker": "<one of: {names}>",
"instruction": "<what the next speaker should do>", "reason": "<why>"}}"""

FINAL_ANSWER_PROMPT = """The work on this task is over:
{task}

Give the final answer to the task, based on the conversation. Address the person who asked."""
