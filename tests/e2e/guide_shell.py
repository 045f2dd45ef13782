"""Following a Markdown guide literally: its shell commands, read from its fenced code blocks, run by bash.

`guide_commands` parses the guide as it is, so a test built on it follows the guide as it changes: a new
command is met (and must be known to the test), a changed one is run as changed. An indented code block
is refused rather than skipped: its commands would be silently left out.

`GuideShell` runs each command as `bash -c` in one working directory, carrying the environment from one
command to the next (an `export` in one step holds in the next, as in the assistant's terminal). Every
command is bounded by the caller's timeout.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import anyio

FENCE = re.compile(r"^```(?P<language>[\w-]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console"})
SECTION = re.compile(r"^## (?P<title>.+)$", re.MULTILINE)
INDENTED_CODE = re.compile(r"\n\n(?:    |\t)\S")


@dataclass(frozen=True)
class GuideCommand:
    section: str
    """The `## ` heading it is under, e.g. `3. Choose a workspace`."""
    command: str
    """One line of a shell block, as the guide writes it (comments included: bash ignores them)."""


def guide_commands(text: str) -> list[GuideCommand]:
    """Every shell command of the guide's fenced blocks, in order.

    Raises:
        AssertionError: the guide has an indented code block, whose commands this would miss.
    """
    outside = FENCE.sub("", text)
    stray = INDENTED_CODE.search(outside)
    assert stray is None, f"an indented code block: make it a fenced ```bash block: {outside[stray.start() :][:80]!r}"
    headings = [(match.start(), match["title"].strip()) for match in SECTION.finditer(text)]
    found: list[GuideCommand] = []
    for block in FENCE.finditer(text):
        if block["language"] not in SHELL_LANGUAGES:
            continue
        section = next((title for start, title in reversed(headings) if start < block.start()), "")
        found += [GuideCommand(section, line) for line in _lines(block["body"])]
    return found


def _lines(body: str) -> list[str]:
    """The block's commands: one a line, a trailing backslash joining the next."""
    commands: list[str] = []
    pending = ""
    for line in body.splitlines():
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command = (pending + line).strip()
        pending = ""
        if command:
            commands.append(command)
    return commands


class GuideShell:
    """bash in `cwd`, keeping each command's exported environment for the next."""

    def __init__(self, cwd: Path, environ: dict[str, str], state: Path) -> None:
        self.cwd = cwd
        self.environ = dict(environ)
        self._state = state

    async def run(self, command: str, seconds: float) -> subprocess.CompletedProcess[str]:
        script = f'{command}\n__status=$?\nenv -0 > "$__GUIDE_STATE"\nexit $__status\n'
        env = self.environ | {"__GUIDE_STATE": str(self._state)}
        self._state.unlink(missing_ok=True)
        with anyio.fail_after(seconds):
            done = await anyio.run_process(["bash", "-c", script], cwd=self.cwd, env=env, check=False)
        if self._state.exists():
            pairs = (entry.split("=", 1) for entry in self._state.read_text().split("\0") if "=" in entry)
            self.environ = {key: value for key, value in pairs if key not in {"__GUIDE_STATE", "_"}}
        return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def files_under(root: Path) -> dict[str, bytes]:
    """Every regular file under `root`, by path relative to it, with its content."""
    found: dict[str, bytes] = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = Path(directory, name)
            if path.is_file() and not path.is_symlink():
                found[str(path.relative_to(root))] = path.read_bytes()
    return found
