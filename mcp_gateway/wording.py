"""What the gateway tells, worded for whoever reads it: a model calls a meta-tool, a person types a command.

The same fact reaches two audiences: the model through the MCP server, a person through the command line.
"No tool named 'x'" is one fact for both, but what to do next is not: the model calls `search_tools`, a
person types `mcp-gateway search "…"`. So a message that says what to do next is `Message`: its text, with each
next step kept as data (`Step`: which action, about which server or tool), and each door words the steps its
own way when it speaks. The model's words are here, because they are also what an error's `message` holds
(what logs, errors.json and `--json` carry); a person's words are the command line's (`cli/people.py`).

Layer-free, standard library only: errors, search, the service and both doors use it, and the early
handshake's path imports it (through `service/surface.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

SEARCH_TOOLS = "search_tools"
LIST_TOOLS = "list_tools"
DESCRIBE_TOOL = "describe_tool"
EXECUTE_TOOL = "execute_tool"
META_TOOL_NAMES = (SEARCH_TOOLS, LIST_TOOLS, DESCRIBE_TOOL, EXECUTE_TOOL)

Action = Literal["search", "servers", "list", "describe", "execute", "repeat", "login", "enable", "review"]
"""What a next step does: find a tool, see which servers there are, see a server's tools, read a tool's
definition, run a tool, make the request just made again (with what the message says to change), sign in to a
server, turn a disabled one on or review changed tools (a person's steps, all three: the model can only pass
them on)."""
PROGRAM = "mcp-gateway"

META_TOOL_OF: dict[str, str] = {
    "search": SEARCH_TOOLS,
    "list": LIST_TOOLS,
    "describe": DESCRIBE_TOOL,
    "execute": EXECUTE_TOOL,
}


@dataclass(frozen=True)
class Step:
    """One next step, as data; each audience words it (`for_model` here, the command line for a person)."""

    action: Action
    server: str | None = None
    """The server it concerns, when one is known."""
    tool: str | None = None
    """The qualified tool it concerns, when one is known."""
    imperative: bool = True
    """Worded as an order ("call search_tools"), else as a name ("… with describe_tool")."""
    again: bool = False
    """The request just made, made again: the model is not told its arguments again, a person is."""


Part = str | Step


@dataclass(frozen=True)
class Message:
    """A message whose next steps are data: text and steps, in the order they are read."""

    parts: tuple[Part, ...]

    @classmethod
    def of(cls, *parts: Part) -> Message:
        return cls(tuple(parts))

    def worded(self, word: Callable[[Step], str]) -> str:
        """The message with each step worded by `word`."""
        return "".join(part if isinstance(part, str) else word(part) for part in self.parts)

    def for_model(self) -> str:
        return self.worded(step_for_model)

    def masked(self, mask: Callable[[str], str]) -> Message:
        """The message with `mask` applied to every text and every name a step carries."""
        return Message(tuple(mask(part) if isinstance(part, str) else _masked_step(part, mask) for part in self.parts))


Words = str | Message
"""A sentence with no step to word, or one with steps."""


def said(message: Words) -> Message:
    """`message` as `Message` (a plain sentence has no step to word)."""
    return message if isinstance(message, Message) else Message((message,))


def step_for_model(step: Step) -> str:
    """The step as the model reads it: the meta-tool to call ("call list_tools with server 'github'")."""
    if step.action == "repeat":  # the model knows what it just sent
        return "call again"
    if step.action == "login":  # no meta-tool signs in: the model tells its user what to type
        return f"run `{PROGRAM} login {step.server or '<server>'}` in a terminal"
    if step.action == "enable":  # nor turns a server on
        return f"run `{PROGRAM} config enable {step.server or '<server>'}` in a terminal"
    if step.action == "review":  # nor approves what changed: only a person may
        return f"ask the user to run `{PROGRAM} review` in a terminal"
    # The model has no listing of servers: a search that fits nothing names them.
    words = META_TOOL_OF["search" if step.action == "servers" else step.action]
    if step.action == "list" and step.server is not None and not step.again:
        words += f" with server '{step.server}'"
    if step.imperative:
        words = f"call {words}"
    return f"{words} again" if step.again else words


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` with its noun, singular or plural: "1 tool", "0 tools", "2 enabled servers"."""
    return f"{count:,} {noun if count == 1 else (plural or noun + 's')}"


def _masked_step(step: Step, mask: Callable[[str], str]) -> Step:
    return replace(
        step,
        server=None if step.server is None else mask(step.server),
        tool=None if step.tool is None else mask(step.tool),
    )
