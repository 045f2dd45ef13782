"""The README's commands are ones the gateway takes, and moving in starts with `import`'s dry run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from mcp_gateway.cli.main import build_parser

DOCUMENTS = [Path(__file__).resolve().parents[2] / name for name in ("README.md", "llm-install.md")]
BASH_BLOCK = re.compile(r"```bash\n(?P<body>.*?)```", re.DOTALL)
INDENTED_COMMAND = re.compile(r"^    (?P<command>mcp-gateway .*)$", re.MULTILINE)
PLACEHOLDERS = {"NAME": "claude", "SERVER.TOOL": "notes.echo"}


def commands(text: str) -> list[str]:
    found: list[str] = []
    for block in BASH_BLOCK.finditer(text):
        found += [line for line in block["body"].splitlines() if line.startswith("mcp-gateway ")]
    found += [match["command"] for match in INDENTED_COMMAND.finditer(text)]
    return [line.split("  #", 1)[0].strip() for line in found]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_mcp_gateway_command_in_the_guides_parses(document: Path) -> None:
    found = commands(document.read_text())
    assert len(found) >= 2
    parser = build_parser()
    for command in found:
        arguments = [PLACEHOLDERS.get(word, word) for word in shlex.split(command)[1:]]
        try:
            parser.parse_args(arguments)
        except SystemExit as exit_:
            pytest.fail(f"{document.name}: `{command}` does not parse (exit {exit_.code})")


def test_moving_in_starts_with_an_import_dry_run() -> None:
    readme = DOCUMENTS[0].read_text()
    section = readme[readme.index("## Use it with your AI client") :]
    first = commands(section[: section.index("\n## ", 1)])[0]
    assert first.startswith("mcp-gateway import --client ")
    assert first.endswith("--dry-run")
