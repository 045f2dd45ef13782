"""`python -m benchmarks.latency`: see the package's docstring, and `cli` for the options."""

from benchmarks.latency.cli import main

raise SystemExit(main())
