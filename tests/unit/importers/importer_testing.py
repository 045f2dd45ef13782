"""Constants and types the importer tests share (fixtures are in conftest.py).

Imported as `importer_testing`: a module name of its own, since every test folder has a `conftest`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

SAMPLES = Path(__file__).parent / "samples"
GATEWAY_HOME = "/home/me/.mcp-gateway"
UVX_PATH = "/opt/uv/bin/uvx"

InstallSample = Callable[[str, Path], Path]
"""Copy `samples/<name>` to a path (creating its folders) and return that path."""
