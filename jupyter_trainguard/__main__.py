"""`python -m jupyter_trainguard` runs the CLI."""

from .cli import main

raise SystemExit(main())
