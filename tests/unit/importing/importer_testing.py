"""Constants, types and fakes the importer tests share (fixtures are in conftest.py).

Imported as `importer_testing`: a module name of its own, since every test folder has a `conftest`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from mcp_gateway.importing.clients import Launch
from mcp_gateway.importing.launch import Installation

SAMPLES = Path(__file__).parent / "samples"
GATEWAY_HOME = "/home/me/.mcp-gateway"
UVX_PATH = "/opt/uv/bin/uvx"
NOW = datetime(2026, 11, 15, 9, 30, 12, tzinfo=UTC)
STAMP = "20261115T093012Z"
"""How `NOW` appears in the name of a backup."""
OFFLINE = "no network in unit tests"

InstallSample = Callable[[str, Path], Path]
"""Copy `samples/<name>` to a path (creating its folders) and return that path."""


def fixed_clock() -> datetime:
    return NOW


class Answers:
    """A sign-in probe answering from a table, recording what it was asked.

    A URL outside the table gets `default`; without one, asking about it fails the test.
    """

    def __init__(self, answers: Mapping[str, int | str] | None = None, *, default: int | str | None = None) -> None:
        self.answers = dict(answers or {})
        self.default = default
        self.asked: list[tuple[str, str]] = []

    async def __call__(self, transport: str, url: str) -> int | str:
        self.asked.append((transport, url))
        answer = self.answers.get(url, self.default)
        if answer is None:
            raise AssertionError(f"the probe was not expected to ask {url}")
        return answer


INDEX_INSTALL = Installation(
    from_index=True,
    directory=None,
    script=Path("/opt/tools/mcp-gateway/bin/mcp-gateway"),
    python=Path("/opt/tools/mcp-gateway/bin/python"),
)
"""A gateway installed from the package index (by pipx, say): `--launcher auto` picks uvx when it is there."""
CHECKOUT_INSTALL = Installation(
    from_index=False,
    directory=Path("/src/mcp-gateway"),
    script=Path("/src/mcp-gateway/.venv/bin/mcp-gateway"),
    python=Path("/src/mcp-gateway/.venv/bin/python"),
)
"""A gateway installed from a checkout into its venv: `--launcher auto` picks that venv's script."""


class LaunchChecks:
    """A launch check that starts nothing: it records each command and answers with `problem`."""

    def __init__(self, problem: str | None = None) -> None:
        self.problem = problem
        self.checked: list[tuple[Launch, Mapping[str, str]]] = []

    def __call__(self, launch: Launch, environ: Mapping[str, str]) -> str | None:
        self.checked.append((launch, environ))
        return self.problem
