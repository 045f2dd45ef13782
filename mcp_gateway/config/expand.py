"""`${VAR}` expansion in the fields that reach a downstream process or request.

Only `command`, `args`, `env` values, `cwd`, `url`, `headers` values and `oauth`'s strings are expanded: those are what
clients' own configs expand, and expanding names or metadata would make the catalog key depend on the
environment. `${VAR:-default}` uses the default when VAR is unset or empty, as a shell does. Any other
`$` text (`$$`, `$VAR`, `${not a name}`) stays literal, as in Claude Code's config. A `cwd` starting with
`~` is expanded to the home directory afterwards.

An unset variable without a default becomes "" and is reported by name (never by value) to the caller.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.config.diagnostics import join_path
from mcp_gateway.config.jsonfile import as_list, as_object

EXPANDED_STRING_FIELDS = ("command", "cwd", "url")
EXPANDED_LIST_FIELDS = ("args",)
EXPANDED_MAPPING_FIELDS = ("env", "headers")

_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}")


@dataclass(frozen=True)
class UnsetVariable:
    """A `${NAME}` with no default whose variable is not set; `json_path` is where it was written."""

    name: str
    json_path: str


def expand_text(text: str, environ: Mapping[str, str]) -> tuple[str, list[str]]:
    """`text` with every `${VAR}` reference replaced, and the names of the unset ones (in order)."""
    unset: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        name = match.group("name")
        default = match.group("default")
        value = environ.get(name)
        if default is not None:
            return value if value else default
        if value is None:
            unset.append(name)
            return ""
        return value

    return _REFERENCE.sub(substitute, text), unset


def expand_server_fields(
    fields: Mapping[str, object], environ: Mapping[str, str], json_path: str
) -> tuple[dict[str, object], list[UnsetVariable]]:
    """A copy of a server entry (camelCase keys) with its expandable fields expanded.

    Values of the wrong shape are passed through untouched for validation to report.
    """
    expanded = dict(fields)
    unset: list[UnsetVariable] = []

    def expand(value: str, *where: str | int) -> str:
        result, names = expand_text(value, environ)
        unset.extend(UnsetVariable(name, join_path(json_path, *where)) for name in names)
        return result

    for key in EXPANDED_STRING_FIELDS:
        value = fields.get(key)
        if isinstance(value, str):
            expanded[key] = expand(value, key)
    for key in EXPANDED_LIST_FIELDS:
        items = as_list(fields.get(key))
        if items is not None:
            expanded[key] = [expand(item, key, i) if isinstance(item, str) else item for i, item in enumerate(items)]
    for key in EXPANDED_MAPPING_FIELDS:
        entries = as_object(fields.get(key))
        if entries is not None:
            expanded[key] = {k: expand(v, key, k) if isinstance(v, str) else v for k, v in entries.items()}
    oauth = as_object(fields.get("oauth"))
    if oauth is not None:  # the client id and secret, which a config names as `${VAR}`
        expanded["oauth"] = {k: expand(v, "oauth", k) if isinstance(v, str) else v for k, v in oauth.items()}
    cwd = expanded.get("cwd")
    if isinstance(cwd, str):
        expanded["cwd"] = expand_home(cwd, environ)
    return expanded, unset


def expand_home(path: str, environ: Mapping[str, str]) -> str:
    """`~` and `~/…` from `environ`'s HOME (so a caller's environment is honoured); `~user` via the OS."""
    if path == "~" or path.startswith("~/"):
        home = environ.get("HOME") or str(Path.home())
        return home + path[1:]
    if path.startswith("~"):
        return os.path.expanduser(path)
    return path
