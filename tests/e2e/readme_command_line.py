"""The command line page (`docs/command-line.md`, once the README's "Command line" section), run: each
`$ mcp-gateway …` line and what it printed.

The page shows every subcommand once with its real output, on a fresh workspace holding the demo's two
servers and a HOME whose Claude Code config has one server to import. `run_session` runs the same commands
in the same setting; `normalized` replaces what differs from machine to machine (the scratch paths, this
checkout) by the placeholders the page shows, and `comparable` sets durations and ages aside, so the test
can compare them line for line. After a change that alters what a command prints, rewrite the section's
blocks in place with

    .venv/bin/python tests/e2e/readme_command_line.py --write

(without `--write` it prints them), and read the difference before committing it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.cli.demo import write_demo_config

CHECKOUT = Path(__file__).resolve().parents[2]
PAGE = CHECKOUT / "docs" / "command-line.md"
"""The page the commands are on."""
SECTION = "# Command line"
PROMPT = "$ "
PROGRESS_PREFIX = "mcp-gateway: "
"""A line the command wrote on stderr (progress, notices): compared apart, since servers listed side by side
report in either order."""
COMMAND_SECONDS = 120.0
"""One command, starting its servers on a loaded machine: the demo servers take about a second each."""

WORKSPACE_SHOWN = "~/.config/mcp-gateway"
HOME_SHOWN = "~"
CHECKOUT_SHOWN = "/path/to/mcp-gateway"
DURATION = re.compile(r"\b\d+\.\d+ s\b")
AGE = re.compile(r"\b\d+[smhd] ago\b")
AUDIT_TABLE = re.compile(r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z|time +client +call)")
"""A row (or the head) of `mcp-gateway audit`'s table: when and how long a call took differ from run to run,
and the columns' widths with them."""
DECIMAL = re.compile(r"\b\d+\.\d+\b")

CLAUDE_CONFIG = {
    "mcpServers": {
        "github": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyz"},
        }
    }
}


@dataclass(frozen=True)
class Shown:
    """One command of the section and the lines shown under it."""

    command: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Setting:
    home: Path
    workspace: Path

    @classmethod
    def prepare(cls, root: Path) -> Setting:
        home, workspace = root / "home", root / "workspace"
        home.mkdir()
        workspace.mkdir()
        write_demo_config(workspace)
        (home / ".claude.json").write_text(json.dumps(CLAUDE_CONFIG, indent=2) + "\n")
        return cls(home, workspace)

    def environment(self) -> dict[str, str]:
        bin_dir = str(Path(sys.executable).parent)
        kept = {key: value for key, value in os.environ.items() if not key.startswith(("XDG_", "MCP_GATEWAY_"))}
        return {
            **kept,
            "HOME": str(self.home),
            "MCP_GATEWAY_HOME": str(self.workspace),
            "PATH": bin_dir + os.pathsep + kept.get("PATH", ""),
            "COLUMNS": "100",
        }


def section_commands(readme: str) -> list[Shown]:
    """The commands of the "Command line" page, each with the lines shown under it."""
    start = readme.index(SECTION)
    end = readme.find("\n## ", start + len(SECTION))
    section = readme[start : end if end != -1 else len(readme)]
    shown: list[Shown] = []
    for block in re.findall(r"```console\n(.*?)```", section, flags=re.S):
        command: str | None = None
        lines: list[str] = []
        for line in block.splitlines():
            if line.startswith(PROMPT):
                if command is not None:
                    shown.append(Shown(command, tuple(lines)))
                command, lines = line[len(PROMPT) :], []
            elif command is not None:
                lines.append(line)
        if command is not None:
            shown.append(Shown(command, tuple(lines)))
    return shown


def run_session(setting: Setting, commands: list[str]) -> list[Shown]:
    """Each command run in `setting` with bash, in order, and its stderr lines then its stdout lines."""
    results: list[Shown] = []
    for command in commands:
        done = subprocess.run(
            ["bash", "-c", command],
            env=setting.environment(),
            cwd=setting.home,
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
            check=False,
        )
        lines = [*done.stderr.splitlines(), *done.stdout.splitlines()]
        results.append(Shown(command, tuple(normalized(line, setting) for line in lines)))
    return results


def normalized(line: str, setting: Setting) -> str:
    """`line` with the paths that differ between machines replaced by what the page shows (durations and
    ages stay: `comparable` sets them aside)."""
    for path, shown in (
        (str(Path(sys.executable).parent), f"{CHECKOUT_SHOWN}/.venv/bin"),
        (str(setting.workspace), WORKSPACE_SHOWN),
        (str(setting.home), HOME_SHOWN),
        (str(CHECKOUT), CHECKOUT_SHOWN),
    ):
        line = line.replace(path, shown)
    return line.rstrip()


def comparable(lines: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(stderr lines sorted, stdout lines in order): progress from servers listed side by side comes in
    either order, the report never does."""
    clean = [_audit_row(AGE.sub("N ago", DURATION.sub("N s", line))).rstrip() for line in lines]
    while clean and not clean[-1]:  # the blank line between two commands of a block
        clean.pop()
    return sorted(line for line in clean if line.startswith(PROGRESS_PREFIX)), [
        line for line in clean if not line.startswith(PROGRESS_PREFIX)
    ]


def _audit_row(line: str) -> str:
    if AUDIT_TABLE.match(line) is None:
        return line
    return " ".join(DECIMAL.sub("N", line[24:] if line[0].isdigit() else line).split())


def with_outputs(readme: str, results: list[Shown]) -> str:
    """`readme` with each console block of the section holding `results`' commands and lines."""
    start = readme.index(SECTION)
    end = readme.find("\n## ", start + len(SECTION))
    end = end if end != -1 else len(readme)
    remaining = iter(results)

    def block(match: re.Match[str]) -> str:
        count = sum(1 for line in match.group(1).splitlines() if line.startswith(PROMPT))
        runs = [next(remaining) for _ in range(count)]
        body = "\n\n".join("\n".join([f"{PROMPT}{run.command}", *run.lines]) for run in runs)
        return f"```console\n{body}\n```"

    section = re.sub(r"```console\n(.*?)```", block, readme[start:end], flags=re.S)
    return readme[:start] + section + readme[end:]


def _regenerate(root: Path, *, write: bool) -> None:
    readme = PAGE.read_text()
    commands = [each.command for each in section_commands(readme)]
    results = run_session(Setting.prepare(root), commands)
    if write:
        PAGE.write_text(with_outputs(readme, results))
        return
    for result in results:
        print("\n".join([f"{PROMPT}{result.command}", *result.lines, ""]))


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        _regenerate(Path(scratch), write="--write" in sys.argv[1:])
