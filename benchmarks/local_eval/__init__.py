"""How well an agent on the local model uses tools: a scored evaluation set.

64 turns over five categories (one tool, no tool, two tools in sequence, a missing argument,
multi-turn follow-ups), run on a plain `Agent` with `LocalChatClient`, each turn scored on
the tools called, their arguments, extra calls, the answer and its cleanliness.

Run: `python -m benchmarks.local_eval [--model NAME] [--category NAME] [--limit N]`
(`make bench-local`).
"""
