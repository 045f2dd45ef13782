"""Where the repository's runnable parts are, for benchmarks that start them: its root (the working
directory of processes that import the package from source) and the fake fixture server every benchmark
workspace configures."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAKE_SERVER = ROOT / "fixtures" / "fake_mcp_server.py"
