"""`enable SERVER` and `disable SERVER`: one server's `"disabled"` edited in config.json, every other byte kept.

The file is edited as text, as `import` edits it (`importing/clients/jsonc_edit.py`): its formatting, key order and
every other entry stay as they are. Disabling writes `"disabled": true` into the server's entry (in place of
any `"disabled"` already there); enabling removes the member, since `false` is the default. The result is
checked to differ from the original by that one value before anything is written, and it is written as
`import` writes config.json: the whole file replaced at once, mode 0600, through the link when config.json is
one (dotfiles repositories link it). `import` keeps no backup of config.json, and neither does this: the
edit is one value, undone by the opposite command. Running gateways apply it within a second (`live_config`).

A server is named by its key in the file or by one of its aliases; an unknown name is an error that says which
server was probably meant.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.config import MAX_CONFIG_BYTES, as_list, as_object, camel_case, did_you_mean
from mcp_gateway.errors import ConfigError, UnusableFileError, UsageError
from mcp_gateway.importing import (
    Edit,
    JsonNode,
    apply_edits,
    parse_config_text,
    replace_value,
    splice_members,
    write_atomically,
)
from mcp_gateway.paths import FILE_MODE
from mcp_gateway.workspace_files import read_regular

DISABLED = "disabled"
SERVERS_KEYS = ("mcpServers", "servers")
"""Where the loader looks for servers, in its order of preference (`config/loader.py`)."""


@dataclass(frozen=True)
class Switched:
    server: str
    path: Path
    disabled: bool
    """What the server is now."""
    changed: bool
    """False when it already was so: nothing was written."""


def set_disabled(path: Path, name: str, disabled: bool) -> Switched:
    """Make the server `name` (a key or an alias) disabled or enabled in the config file at `path`.

    Raises:
        UsageError: no server of that name or alias.
        ConfigError: the file cannot be read, is not JSON, or cannot be written.
    """
    text = _read(path)
    root = parse_config_text(path, text, retry="first")
    servers = _servers(path, root)
    server = _named(path, servers, name)
    member = servers.member(server)
    assert member is not None  # `_named` returns the key of an object member
    entry = member.value
    current = as_object(entry.value) or {}
    if (current.get(DISABLED) is True) == disabled:
        return Switched(server, path, disabled, changed=False)
    written = entry.member(DISABLED)
    edit: Edit
    if disabled and written is not None:
        edit = replace_value(written.value, True)
    elif disabled:
        edit = splice_members(text, entry, {}, [(DISABLED, True)], root=root)
    else:
        edit = splice_members(text, entry, {DISABLED: None}, root=root)
    new_text = apply_edits(text, [edit])
    if json.loads(new_text) != _expected(json.loads(text), _key_of(root), server, disabled):
        raise ConfigError(f"{path}: editing '{server}' would change more than its \"disabled\"; nothing was written")
    try:
        write_atomically(path, new_text.encode("utf-8"), mode=FILE_MODE)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the config ({exc.strerror or type(exc).__name__})") from exc
    return Switched(server, path, disabled, changed=True)


def _expected(document: object, key: str, server: str, disabled: bool) -> object:
    """`document` (parsed) with the server's entry disabled or enabled, and nothing else changed."""
    expected = copy.deepcopy(as_object(document) or {})
    entries = as_object(expected.get(key)) or {}
    entry = dict(as_object(entries.get(server)) or {})
    entry.pop(DISABLED, None)
    if disabled:
        entry[DISABLED] = True
    entries[server] = entry
    return expected


def _read(path: Path) -> str:
    try:
        return read_regular(path, MAX_CONFIG_BYTES, follow_symlinks=True).decode("utf-8-sig")
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: there is no config file yet; add servers with `mcp-gateway import`") from exc
    except UnusableFileError as exc:
        raise ConfigError(f"{path}: the config file {exc.problem}; replace it with a JSON file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc}); check that it is a readable file") from exc


def _key_of(root: JsonNode) -> str:
    """The key the file keeps its servers under, spelled as in the file (as the loader picks it)."""
    keys = [member.key for member in root.members or ()]
    for wanted in SERVERS_KEYS:
        spelled = [key for key in keys if camel_case(key) == wanted]
        if spelled:
            return spelled[-1]
    return SERVERS_KEYS[0]


def _servers(path: Path, root: JsonNode) -> JsonNode:
    servers = root.find((_key_of(root),))
    if servers is None or servers.members is None:
        raise UsageError(f"{path} has no servers; add some with `mcp-gateway import` or under 'mcpServers'")
    return servers


def _named(path: Path, servers: JsonNode, name: str) -> str:
    """The key of the server `name` means: itself, or the one server whose entry lists it as an alias."""
    entries = {member.key: member.value for member in servers.members or () if member.value.members is not None}
    if name in entries:
        return name
    by_alias = [
        key
        for key, entry in entries.items()
        if name in (as_list((as_object(entry.value) or {}).get("aliases")) or [])
        or (as_object(entry.value) or {}).get("aliases") == name
    ]
    if len(by_alias) == 1:
        return by_alias[0]
    hint = did_you_mean(name, entries)
    known = ", ".join(entries) or "none"
    raise UsageError(f"no server named '{name}' in {path}" + (f" ({hint})" if hint else "") + f"; its servers: {known}")
