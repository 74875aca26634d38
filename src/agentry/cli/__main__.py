"""`python -m agentry.cli`: the `agentry` command."""

from agentry.cli import main

raise SystemExit(main())
