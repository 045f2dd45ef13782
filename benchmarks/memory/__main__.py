"""`python -m benchmarks.memory`: see the package's docstring, and `cli` for the options."""

from benchmarks.memory.cli import main

raise SystemExit(main())
