"""`python -m agentry.a2a MODULE:OBJECT`: serve an agent over A2A."""

from agentry.a2a._serve import main

raise SystemExit(main())
