"""`python -m benchmarks.soak`: see the package's docstring, and `cli` for the options."""

from benchmarks.soak.cli import main

raise SystemExit(main())
