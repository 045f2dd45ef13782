"""`python -m benchmarks.client_context`: see the package's docstring, and `cli` for the options."""

from benchmarks.client_context.cli import main

raise SystemExit(main())
