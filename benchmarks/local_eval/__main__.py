"""`python -m benchmarks.local_eval`: run the evaluation set on a local model."""

from benchmarks.local_eval.cli import main

main()
