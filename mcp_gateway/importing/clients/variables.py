"""Each client's variable syntax, translated into the gateway's `${VAR}` / `${VAR:-default}`.

Copying a value verbatim would change its meaning: `${env:TOKEN}` is VS Code's reference to TOKEN but
literal text to the gateway. So every string of an imported entry goes through the client's `Syntax`.
What has no gateway equivalent (`${input:id}`, a secret VS Code keeps in its own storage; `{file:path}`;
`${workspaceFolder}` in a user-scope file, where it means whatever folder is open) raises `Skip`: such a
server is left in the client, where it still works, rather than imported broken.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from mcp_gateway.config import as_list, as_object
from mcp_gateway.importing.clients.model import ClientReading, JsonObject, Skip

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_EDITOR_REFERENCE = re.compile(r"\$\{(?P<body>[^}]*)\}")
_OPENCODE_REFERENCE = re.compile(r"(?<!\$)\{(?P<kind>env|file):(?P<value>[^}]*)\}")
_SHELL_REFERENCE = re.compile(rf"\$(?:(?P<bare>{_NAME})|\{{(?P<braced>{_NAME})(?P<default>:-[^}}]*)?\}})")
_WINDOWS_REFERENCE = re.compile(rf"%(?P<name>{_NAME})%")
_GATEWAY_REFERENCE = re.compile(rf"\$\{{(?P<name>{_NAME})(?::-[^}}]*)?\}}")
TRANSLATED_FIELDS = ("command", "cwd", "url")
TRANSLATED_LISTS = ("args",)
TRANSLATED_MAPS = ("env", "headers")
TRANSLATED_OAUTH = ("clientId", "clientSecret")
"""The strings of an `oauth` block the gateway expands (`config.expand`)."""


class Syntax(Enum):
    """How a client writes references to environment variables (reference §0.4)."""

    GATEWAY = "gateway"
    """`${VAR}`, `${VAR:-default}`: Claude Code's convention, which the gateway shares; kept as is."""
    NONE = "none"
    """No interpolation known (Claude Desktop, Cline, Zed): values are literal."""
    EDITOR = "editor"
    """VS Code family: `${env:VAR}`, `${userHome}`, `${workspaceFolder}`, `${pathSeparator}`, `${input:id}`."""
    OPENCODE = "opencode"
    """`{env:VAR}`, `{file:path}`."""
    SHELL = "shell"
    """Gemini CLI: `$VAR`, `${VAR}`, `${VAR:-default}`, and `%VAR%` on Windows."""


@dataclass(frozen=True)
class Context:
    """What editor variables mean here: the project folder exists only for project-scope files."""

    home: str
    project: str | None
    windows: bool


def translate(text: str, syntax: Syntax, context: Context) -> str:
    """`text` with every reference in the client's syntax rewritten as `${VAR}`.

    Raises:
        Skip: a reference with no gateway equivalent.
    """
    if syntax is Syntax.EDITOR:
        return _EDITOR_REFERENCE.sub(lambda m: _editor_variable(m.group("body"), context), text)
    if syntax is Syntax.OPENCODE:
        return _OPENCODE_REFERENCE.sub(_opencode_variable, text)
    if syntax is Syntax.SHELL:
        text = _SHELL_REFERENCE.sub(_shell_variable, text)
        return _WINDOWS_REFERENCE.sub(lambda m: "${" + m.group("name") + "}", text) if context.windows else text
    return text


def translate_entry(entry: JsonObject, syntax: Syntax, context: Context) -> JsonObject:
    return map_strings(entry, lambda text: translate(text, syntax, context))


def map_strings(entry: JsonObject, change: Callable[[str], str]) -> JsonObject:
    """A copy of `entry` with `change` applied to the strings of the fields the gateway expands."""
    result = dict(entry)
    for key in TRANSLATED_FIELDS:
        value = entry.get(key)
        if isinstance(value, str):
            result[key] = change(value)
    for key in TRANSLATED_LISTS:
        items = as_list(entry.get(key))
        if items is not None:
            result[key] = [change(item) if isinstance(item, str) else item for item in items]
    for key in TRANSLATED_MAPS:
        pairs = as_object(entry.get(key))
        if pairs is not None:
            result[key] = {k: change(v) if isinstance(v, str) else v for k, v in pairs.items()}
    oauth = as_object(entry.get("oauth"))
    if oauth is not None:
        result["oauth"] = {
            k: change(v) if isinstance(v, str) and k in TRANSLATED_OAUTH else v for k, v in oauth.items()
        }
    return result


def referenced_variables(*entries: JsonObject) -> list[str]:
    """The `${VAR}` names the entries use, in order of first use: what the gateway needs in its environment."""
    names: dict[str, None] = {}

    def collect(text: str) -> str:
        names.update((match.group("name"), None) for match in _GATEWAY_REFERENCE.finditer(text))
        return text

    for entry in entries:
        map_strings(entry, collect)
    return list(names)


def needed_variables(reading: ClientReading) -> list[str]:
    return referenced_variables(*(server.entry for server in reading.imported if server.entry is not None))


def _editor_variable(body: str, context: Context) -> str:
    if body.startswith("env:"):
        return "${" + body[len("env:") :] + "}"
    if body == "userHome":
        return context.home
    if body == "pathSeparator":
        return "\\" if context.windows else "/"
    if body in ("workspaceFolder", "workspaceRoot") and context.project is not None:
        return context.project
    if body == "workspaceFolderBasename" and context.project is not None:
        return re.split(r"[\\/]", context.project.rstrip("\\/"))[-1]
    if body.startswith("input:"):
        raise Skip(
            f"it uses ${{{body}}}, a value the client prompts for and keeps in its own secret storage; "
            "add the server to the gateway by hand with the value in an environment variable (${VAR})"
        )
    if body.startswith(("workspaceFolder", "workspaceRoot")):
        raise Skip(f"it uses ${{{body}}}, which means whatever folder is open; import it from a project file instead")
    if re.fullmatch(rf"{_NAME}(:-.*)?", body, re.DOTALL):
        return "${" + body + "}"  # already the gateway's syntax
    raise Skip(f"it uses ${{{body}}}, which the gateway cannot resolve")


def _opencode_variable(match: re.Match[str]) -> str:
    if match.group("kind") == "env":
        return "${" + match.group("value") + "}"
    raise Skip(f"it reads {{file:{match.group('value')}}}, which the gateway cannot read; put the value in ${{VAR}}")


def _shell_variable(match: re.Match[str]) -> str:
    name = match.group("bare") or match.group("braced")
    return "${" + name + (match.group("default") or "") + "}"
