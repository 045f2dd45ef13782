"""A person's words for what the gateway tells: each next step is the command to type, not a meta-tool to call;
a time is an age ("3m ago").

The service says what to do next as data (`wording.Step`); the model reads "call search_tools", and a person at
the shell reads `run mcp-gateway search "<what you want to do>"`, with the `--home` they ran, so the command
reaches the same workspace. Names are quoted for a POSIX shell where they need it, so a command can be pasted.
"""

from __future__ import annotations

import argparse
import shlex
import time

from mcp_gateway.errors import CommandFailedError, ToolCallError
from mcp_gateway.wording import Step, Words, said

PROGRAM = "mcp-gateway"
QUERY_PLACEHOLDER = '"<what you want to do>"'
SERVER_PLACEHOLDER = "<server>"
TOOL_PLACEHOLDER = "<server.tool>"
ARGUMENTS_PLACEHOLDER = "'<JSON object>'"


class PersonWords:
    def __init__(self, home: str | None = None) -> None:
        self.program = f"{PROGRAM} --home {shlex.quote(home)}" if home else PROGRAM
        """`mcp-gateway` as the person ran it: with their `--home`, so a command reaches the same workspace."""

    @classmethod
    def of(cls, args: argparse.Namespace) -> PersonWords:
        return cls(getattr(args, "home", None))

    def told(self, message: Words) -> str:
        return said(message).worded(self.step)

    def failure(self, error: ToolCallError) -> CommandFailedError:
        """What ends a command that `error` stopped: its message, told to a person."""
        return CommandFailedError(self.told(error.said))

    def step(self, step: Step) -> str:
        """The step as a person reads it: "run mcp-gateway list github", or the bare command."""
        words = f"run {self.command(step)}" if step.imperative else self.command(step)
        return f"{words} again" if step.again else words

    def command(self, step: Step) -> str:
        if step.action == "repeat":
            return "the command"
        server = shlex.quote(step.server) if step.server else SERVER_PLACEHOLDER
        tool = shlex.quote(step.tool) if step.tool else TOOL_PLACEHOLDER
        focus = f" --server {server}" if step.server else ""
        words = {
            "search": f"search {QUERY_PLACEHOLDER}{focus}",
            "servers": "list",
            "list": f"list {server}",
            "describe": f"describe {tool}",
            "execute": f"call {tool} --args {ARGUMENTS_PLACEHOLDER}",
            "login": f"login {server}",
            "enable": f"config enable {server}",
            "review": "review",
        }
        return f"{self.program} {words[step.action]}"


def ago(epoch: float) -> str:
    return f"{span(time.time() - epoch)} ago"


def span(seconds: float) -> str:
    """ "3m", "2h", "40s": in its largest whole unit."""
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"
