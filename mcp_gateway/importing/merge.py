"""Merging imported servers into the gateway's `config.json`, never overwriting what a person made.

A new server is added with the fields the client had plus seeded aliases. A server the gateway already
has under that name with the same connection (`type`, `command`, `args`, `env`, `url`, `headers`, and
`cwd` when given) is unchanged. One with a different connection is a conflict: it may be another
client's variant of the server (stdio here, http with an API key there), and replacing it would break
every client already pointed at the gateway, so it is left out (it stays in its client) unless the
import is asked to replace. Replacing brings only the connection fields in line, in the spelling the
file already uses (`transport`, snake_case); aliases, lifecycle, filters, timeouts, `disabled` and every
other hand-made field stay.
The file is edited as text like a client file, so its formatting survives; nothing is written when
nothing changed, so re-running an import leaves the file byte-identical.

A new server's aliases are seeded from its key: a model names servers loosely ("github" for
`github-mcp-server`), and the gateway resolves qualified tool names by key or alias, so the meaningful words of
the key become aliases (`google-calendar` → `google`, `calendar`). Filler (`mcp`, `server`) and generic verbs
(`search`, `get`) are not aliases: they would pull unrelated queries towards the server. An alias another
server already has, or that two new servers would share, is left out: each name means one server.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcp_gateway.config import (
    ALL_SERVER_FIELDS,
    MAX_CONFIG_BYTES,
    SERVER_FIELDS,
    as_list,
    as_object,
    camel_case,
    default_config_text,
    transport_named,
)
from mcp_gateway.errors import ConfigError, UnusableFileError
from mcp_gateway.importing.backups import write_atomically
from mcp_gateway.importing.clients import (
    ImportedServer,
    JsoncError,
    JsonNode,
    JsonObject,
    apply_edits,
    parse_jsonc,
    referenced_variables,
    splice_members,
)
from mcp_gateway.paths import FILE_MODE, ensure_private_dir
from mcp_gateway.workspace_files import read_regular

SERVERS_KEY = "mcpServers"
SERVERS_ALIAS_KEY = "servers"
REPLACED_FIELDS = ("type", "command", "args", "env", "url", "headers")
"""Connection fields the client is the truth for: absent in the client means absent here."""
UPDATED_FIELDS = ("cwd",)
"""Connection fields few clients can express: brought in when given, kept when not."""

MIN_ALIAS_LENGTH = 3
FILLER_WORDS = frozenset(
    "mcp server servers stdio http https sse remote local the and for with official tool tools api app client "
    "service get list search find read write create update delete run fetch query my old new legacy test dev "
    "beta".split()
)
_PARTS = re.compile(r"[-_.\s/@:]+|(?<=[a-z0-9])(?=[A-Z])")

Status = Literal["added", "updated", "unchanged", "conflict"]


@dataclass(frozen=True)
class Outcome:
    name: str
    status: Status
    entry: JsonObject
    """The server's entry as the gateway config will hold it (for a conflict: as it holds it now)."""
    changed: tuple[str, ...] = ()
    """For `updated` and `conflict`: the connection fields that differ."""


@dataclass(frozen=True)
class MergePlan:
    path: Path
    original: str | None
    """The file's text, or None when it does not exist yet."""
    text: str
    """The text to write (equal to `original` when nothing changes)."""
    outcomes: tuple[Outcome, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return any(outcome.status in ("added", "updated") for outcome in self.outcomes)

    @property
    def conflicts(self) -> tuple[Outcome, ...]:
        return tuple(outcome for outcome in self.outcomes if outcome.status == "conflict")

    def variables(self) -> list[str]:
        """Every `${VAR}` the servers of the merged config use: what the gateway needs from its client."""
        document = as_object(json.loads(self.text)) or {}
        servers = as_object(document.get(_servers_key(document))) or {}
        return referenced_variables(*(as_object(entry) or {} for entry in servers.values()))


def plan_merge(path: Path, servers: Sequence[ImportedServer], *, replace: bool = False) -> MergePlan:
    """What `config.json` becomes with `servers` merged in (nothing is written).

    `replace`: a server the gateway has with another connection takes the client's instead of conflicting.

    Raises:
        ConfigError: the file cannot be read, is not JSON, or its servers are not an object.
    """
    original = _read(path)
    text = original if original is not None else default_config_text()
    root = parse_config_text(path, text, retry="and import again")
    document = as_object(root.value) or {}
    key = _servers_key(document)
    existing = as_object(document.get(key, {}))
    if existing is None:
        raise ConfigError(f"{path}: '{key}' is not an object; fix it (mcp-gateway config check) and import again")
    imported = [server for server in servers if server.entry is not None]
    aliases = seed_aliases([s.name for s in imported if s.name not in existing], _taken(existing))
    outcomes: list[Outcome] = []
    for server in imported:
        assert server.entry is not None
        old = as_object(existing.get(server.name))
        if old is None:
            entry = dict(server.entry)
            if aliases.get(server.name):
                entry["aliases"] = aliases[server.name]
            outcomes.append(Outcome(server.name, "added", entry))
        else:
            entry, changed = _updated(old, server.entry)
            if not changed:
                outcomes.append(Outcome(server.name, "unchanged", entry))
            elif replace:
                outcomes.append(Outcome(server.name, "updated", entry, changed))
            else:
                outcomes.append(Outcome(server.name, "conflict", dict(old), changed))
    new_text = _rewrite(text, root, key, outcomes)
    expected = copy.deepcopy(document)
    expected[key] = {**existing, **{o.name: o.entry for o in outcomes if o.status != "conflict"}}
    if json.loads(new_text) != expected:
        raise ConfigError(f"{path}: merging would change more than the imported servers; nothing was written")
    return MergePlan(path, original, new_text, tuple(outcomes))


def write_plan(plan: MergePlan) -> None:
    """Write the merged config (0600, atomically) when it changed.

    Raises:
        ConfigError: it cannot be written.
    """
    if not plan.changed:
        return
    try:
        ensure_private_dir(plan.path.parent)
        write_atomically(plan.path, plan.text.encode("utf-8"), mode=FILE_MODE)
    except OSError as exc:
        raise ConfigError(f"{plan.path}: cannot write the config ({exc.strerror or type(exc).__name__})") from exc


def _read(path: Path) -> str | None:
    try:
        return read_regular(path, MAX_CONFIG_BYTES, follow_symlinks=True).decode("utf-8")
    except FileNotFoundError:
        return None
    except UnusableFileError as exc:
        raise ConfigError(f"{path}: the gateway config {exc.problem}; replace it with a JSON file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the gateway config ({exc})") from exc


def parse_config_text(path: Path, text: str, *, retry: str) -> JsonNode:
    """config.json's text parsed for an edit in place, refused as serving would refuse it (strict JSON, an
    object at the top); `retry` ends the error's advice ("and import again")."""
    try:
        json.loads(text)  # the gateway reads strict JSON: an edit must not accept what serving would reject
        root = parse_jsonc(text)
    except (json.JSONDecodeError, JsoncError) as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc}); fix it (mcp-gateway config check) {retry}") from exc
    if root.members is None:
        raise ConfigError(f"{path}: the top level is not a JSON object; fix it (mcp-gateway config check) {retry}")
    return root


def _servers_key(document: Mapping[str, object]) -> str:
    """The key the file keeps its servers under: `mcpServers` in any spelling the loader accepts, else `servers`."""
    spelled = [key for key in document if camel_case(key) == SERVERS_KEY]
    if spelled:
        return spelled[-1]
    return SERVERS_ALIAS_KEY if SERVERS_ALIAS_KEY in document else SERVERS_KEY


def _taken(existing: Mapping[str, object]) -> list[str]:
    names = list(existing)
    for entry in existing.values():
        aliases = as_list((as_object(entry) or {}).get("aliases"))
        names += [alias for alias in aliases or [] if isinstance(alias, str)]
    return names


def _updated(old: Mapping[str, object], new: JsonObject) -> tuple[JsonObject, tuple[str, ...]]:
    """`old` with the connection fields of `new`, in `old`'s spelling and order."""
    spelled = {_canonical(key): key for key in old}
    entry = dict(old)
    changed: list[str] = []
    kind = new.get("type", "stdio")
    if kind not in SERVER_FIELDS:
        raise ValueError(f"imported entries are checked before merging; got type {kind!r}")
    old_type = entry.get(spelled.get("type", "type"), "stdio")
    if not isinstance(old_type, str) or transport_named(old_type) != kind:
        entry[spelled.get("type", "type")] = kind
        changed.append("type")
        for key in list(entry):  # fields of the old transport would now be rejected by the loader
            if _canonical(key) in ALL_SERVER_FIELDS - SERVER_FIELDS[kind]:
                del entry[key]
    for name in (*REPLACED_FIELDS[1:], *UPDATED_FIELDS):
        key = spelled.get(name, name)
        if name not in new:
            if name in REPLACED_FIELDS and key in entry:
                del entry[key]
                changed.append(name)
            continue
        if entry.get(key) != new[name]:
            entry[key] = new[name]
            changed.append(name)
    return entry, tuple(dict.fromkeys(changed))


def _canonical(key: str) -> str:
    return "type" if key == "transport" else camel_case(key)


def _rewrite(text: str, root: JsonNode, key: str, outcomes: Sequence[Outcome]) -> str:
    added = [(o.name, o.entry) for o in outcomes if o.status == "added"]
    updated: dict[str, tuple[str, object] | None] = {
        o.name: (o.name, o.entry) for o in outcomes if o.status == "updated"
    }
    if not added and not updated:
        return text
    servers = root.find((key,))
    if servers is None:
        edit = splice_members(text, root, {}, [(key, dict(added))], root=root)
    else:
        edit = splice_members(text, servers, updated, added, root=root)
    return apply_edits(text, [edit])


def candidate_aliases(name: str) -> list[str]:
    """The meaningful words of a server key, and those words joined when filler was removed."""
    parts = [part.lower() for part in _PARTS.split(name) if part]
    if len(parts) < 2:
        return []
    words = [
        part for part in parts if part not in FILLER_WORDS and len(part) >= MIN_ALIAS_LENGTH and not part.isdigit()
    ]
    candidates: list[str] = []
    joined = "-".join(words)
    if words and joined != "-".join(parts):
        candidates.append(joined)
    if len(words) > 1:
        candidates.extend(words)
    return list(dict.fromkeys(candidates))


def seed_aliases(new: Collection[str], taken: Collection[str]) -> Mapping[str, list[str]]:
    """Aliases per new server key; `taken` holds every existing key and alias (any case)."""
    used = {name.casefold() for name in taken} | {name.casefold() for name in new}
    proposals = {name: [a for a in candidate_aliases(name) if a.casefold() not in used] for name in new}
    counts = Counter(alias.casefold() for aliases in proposals.values() for alias in aliases)
    return {name: [a for a in aliases if counts[a.casefold()] == 1] for name, aliases in proposals.items()}
