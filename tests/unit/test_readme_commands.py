"""The commands of the README, llm-install.md and the docs pages are ones the gateway takes, and the README is
what a newcomer reads: short, with moving in as two commands (install, then import) and a dry run beside them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from mcp_gateway.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GUIDE = ROOT / "llm-install.md"
DOCUMENTS = [README, GUIDE, *sorted((ROOT / "docs").glob("*.md"))]
SHELL_BLOCK = re.compile(r"```(?:bash|sh)\n(?P<body>.*?)```", re.DOTALL)
INDENTED_COMMAND = re.compile(r"^    (?P<command>mcp-gateway .*)$", re.MULTILINE)
PLACEHOLDERS = {"NAME": "claude", "SERVER.TOOL": "notes.echo", "SERVER": "notes"}
MAX_README_LINES = 250
LINK = re.compile(r"\]\((?P<target>[^)#]+)(?:#[^)]*)?\)")


def commands(text: str) -> list[str]:
    found: list[str] = []
    for block in SHELL_BLOCK.finditer(text):
        found += [line for line in block["body"].splitlines() if line.startswith("mcp-gateway ")]
    found += [match["command"] for match in INDENTED_COMMAND.finditer(text)]
    return [re.split(r"\s+#", line, maxsplit=1)[0].strip() for line in found]


def section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_mcp_gateway_command_in_the_guides_parses(document: Path) -> None:
    found = commands(document.read_text())
    if document in (README, GUIDE):
        assert len(found) >= 2
    parser = build_parser()
    for command in found:
        arguments = [PLACEHOLDERS.get(word, word) for word in shlex.split(command)[1:]]
        try:
            parser.parse_args(arguments)
        except SystemExit as exit_:
            if exit_.code != 0:  # --version and --help exit 0 once printed
                pytest.fail(f"{document.name}: `{command}` does not parse (exit {exit_.code})")


def test_the_readme_is_what_a_newcomer_reads_and_links_to_pages_that_exist() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= MAX_README_LINES
    for target in LINK.findall(text):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).is_file(), target
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in text, f"the README does not point to docs/{page.name}"


def test_moving_in_is_two_commands_install_then_import_with_a_dry_run_beside_them() -> None:
    moving_in = section(README.read_text(), "## Move in")
    first = SHELL_BLOCK.search(moving_in)
    assert first is not None
    install, import_ = [re.split(r"\s+#", line, maxsplit=1)[0].strip() for line in first["body"].splitlines() if line]
    assert install == "uv tool install ."
    assert import_ == "mcp-gateway import --client claude --write-client-config"
    assert any(command.endswith("--dry-run") for command in commands(moving_in))


def test_no_document_tells_a_user_to_run_the_gateway_from_the_package_index_where_it_is_not() -> None:
    for document in DOCUMENTS:
        assert "uvx --from mcp-meta-gateway mcp-gateway --version" not in document.read_text(), document.name
