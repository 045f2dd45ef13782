"""Text from outside never reaches a person's terminal with its control characters.

`mcp-gateway doctor` run in a real pseudo-terminal, as a person runs it, over a server that fails at start after
writing to its stderr what a hostile or careless server could: an OSC 52 sequence (writes the terminal's
clipboard), a screen clear, a window retitle, a bell, a carriage return that would overwrite the line, and a
bidirectional override. The terminal gets visible stand-ins; the same command piped gets the bytes as they are.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest
from e2e_gateway import CLI_SECONDS, client_environment, gateway_command, run_cli
from workspaces import fake_server, write_workspace

pytestmark = pytest.mark.e2e

HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b]0;pwned\x07fake\rstarting\u202egnp.exe"


def in_a_terminal(command: list[str]) -> bytes:
    """What `command` writes to its terminal (stdout and stderr are the pty), until it exits."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(command, stdin=terminal, stdout=terminal, stderr=terminal, env=client_environment())
    os.close(terminal)
    written = b""
    deadline = time.monotonic() + CLI_SECONDS
    try:
        while time.monotonic() < deadline:
            readable, _, _ = select.select([controller], [], [], 0.1)
            if readable:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the terminal's other side closed: the command is done
                    break
                if not chunk:
                    break
                written += chunk
            elif process.poll() is not None:
                break
    finally:
        os.close(controller)
        process.wait(CLI_SECONDS)
    return written


def test_a_servers_stderr_reaches_a_terminal_without_its_control_characters(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"hostile": fake_server(stderr_at_start=HOSTILE, exit_at_start="3")})

    shown = in_a_terminal([*gateway_command(tmp_path), "doctor", "hostile"]).decode("utf-8", errors="replace")

    assert "exited with code 3" in shown
    assert "pwned" in shown, "the text is shown"
    assert not {"\x1b", "\x07", "\u202e"} & set(shown), "its controls are not"
    assert "\u241b]52;c;" in shown, "ESC is shown as its control picture"
    piped = run_cli("doctor", "hostile", home=tmp_path)
    assert "\x1b]0;pwned\x07" in piped.stdout + piped.stderr, "piped on, the bytes are as the server wrote them"
