"""Key normalization: from what users and other clients write to what the models validate.

Every object is brought to camelCase keys (snake_case is accepted everywhere; when both spellings of one
field are present the camelCase one wins), the legacy `metadataBootstrap` setting is migrated, and unknown
fields are removed with a warning that says so: an ignored field is never silent. Nothing here validates
values; that is pydantic's job, after `${VAR}` expansion.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel

from mcp_gateway.config.diagnostics import DiagnosticReport, closest, join_path
from mcp_gateway.config.models import Settings

LEGACY_METADATA_BOOTSTRAP = "metadataBootstrap"
_LEGACY_METADATA_VALUES = {"background": True, "off": False}


@dataclass(frozen=True)
class NearMiss:
    """An unknown key that probably means a known field the entry lacks (`arg` for `args`)."""

    path: str
    written: str
    meant: str
    fix: str
    """What to do, said beside the warning when the entry is rejected anyway: "did you mean 'args'?"."""
    rename: str
    """What to do, said beside the error that keeps the entry out: "rename 'arg' to 'args'"."""


@dataclass
class Entry:
    """One JSON object with camelCase keys; `spelled` maps each key back to how the file wrote it."""

    fields: dict[str, object]
    json_path: str
    spelled: dict[str, str] = field(default_factory=dict[str, str])
    near_misses: dict[str, str] = field(default_factory=dict[str, str])
    """Known field → the unknown key, as written, that was probably meant to be it (`comand` for `command`)."""
    held: list[NearMiss] = field(default_factory=list[NearMiss])
    """Near misses not yet reported (`drop_unknown_fields(hold_near_misses=True)`): the caller says them as errors
    when the entry would otherwise load without what they meant, as warnings when it is rejected anyway."""
    misspelt: list[str] = field(default_factory=list[str])
    """Every unknown key dropped that probably means a known field, as written, with the field: `'arg' (did you
    mean 'args'?)`; a start that times out names them, as one may be why."""

    def path_of(self, key: str) -> str:
        return join_path(self.json_path, self.spelled.get(key, key))


def camel_case(key: str) -> str:
    """`inherit_env` → `inheritEnv`; a key without `_` is returned as written."""
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def field_names(model: type[BaseModel]) -> frozenset[str]:
    """The camelCase names a model accepts on disk."""
    return frozenset(camel_case(name) for name in model.model_fields)


SETTINGS_FIELDS = field_names(Settings)

FIELD_SYNONYMS: dict[str, str] = {
    "environment": "env",
    "environ": "env",
    "envVars": "env",
    "environmentVariables": "env",
    "arguments": "args",
    "argv": "args",
    "cmd": "command",
    "exec": "command",
    "executable": "command",
    "program": "command",
    "uri": "url",
    "endpoint": "url",
    "serverUrl": "url",
    "httpUrl": "url",
    "workingDirectory": "cwd",
    "workingDir": "cwd",
    "mcp": "mcpServers",
    "contextServers": "mcpServers",
}
"""What other clients or habits call a field (Gemini's `httpUrl`, Zed's `context_servers`, OpenCode's `mcp`,
the word `environment`): too far from the field's own name for a spelling match, but clearly meant as it.
Misspellings of these are caught too (`enviroment`)."""
ENABLED_KEY = "enabled"
"""Not a field: a server is on unless `"disabled": true`. Message as such, since `enabled` is not a typo of it."""


def suggest_field(key: str, candidates: frozenset[str]) -> str | None:
    """The one of `candidates` that `key` most likely means (a misspelling or another client's name), or None."""
    pool = {name: name for name in candidates} | {
        other: name for other, name in FIELD_SYNONYMS.items() if name in candidates
    }
    match = closest(key, pool)
    return pool[match] if match is not None else None


def normalize_keys(raw: Mapping[str, object], known: frozenset[str], json_path: str, report: DiagnosticReport) -> Entry:
    """camelCase keys; when both spellings of a field are present the camelCase one wins, with a warning."""
    entry = Entry({}, json_path)
    for key, value in raw.items():
        canonical = camel_case(key)
        if canonical not in known:
            canonical = key
        if canonical in entry.fields:
            earlier = entry.spelled[canonical]
            kept, dropped = (key, earlier) if key == canonical else (earlier, key)
            report.warning(
                join_path(json_path, dropped), f"'{dropped}' repeats '{kept}' and is ignored", f"keep only '{kept}'"
            )
            if key != canonical:
                continue
        entry.fields[canonical] = value
        entry.spelled[canonical] = key
    return entry


def drop_unknown_fields(
    entry: Entry,
    allowed: frozenset[str],
    report: DiagnosticReport,
    *,
    elsewhere: Mapping[str, str] | None = None,
    hold_near_misses: bool = False,
) -> None:
    """Remove and report fields the model does not have; `elsewhere` maps a known-but-misplaced field to a hint.
    `hold_near_misses`: a key that probably means a field the entry lacks is kept in `entry.held`, unreported."""
    for key in [key for key in entry.fields if key not in allowed]:
        value = entry.fields.pop(key)
        written = entry.spelled.pop(key, key)
        hint = (elsewhere or {}).get(key)
        if hint is not None:
            report.warning(entry.path_of(written), f"field '{written}' does not apply here and is ignored", hint)
            continue
        meant = suggest_field(key, allowed)
        fix = _fix_for(key, value, meant)
        if meant is not None:
            entry.misspelt.append(f"'{written}' ({fix})")
        if meant is not None and meant not in entry.fields:
            entry.near_misses.setdefault(meant, written)
            harmless = key.casefold() == ENABLED_KEY and value is not False  # a server is on unless disabled anyway
            if hold_near_misses and not harmless:
                rename = fix if key.casefold() == ENABLED_KEY else f"rename '{written}' to '{meant}'"
                entry.held.append(NearMiss(entry.path_of(written), written, meant, fix, rename))
                continue
        report.warning(entry.path_of(written), f"unknown field '{written}' is ignored", fix)


def _fix_for(key: str, value: object, meant: str | None) -> str:
    if key.casefold() == ENABLED_KEY and meant == "disabled":
        if value is False:
            return 'write "disabled": true to turn the server off'
        return 'remove it: a server is on unless "disabled": true'
    return f"did you mean '{meant}'?" if meant is not None else "remove it"


def normalize_settings(raw: Mapping[str, object], json_path: str, report: DiagnosticReport) -> Entry:
    entry = normalize_keys(raw, SETTINGS_FIELDS | {LEGACY_METADATA_BOOTSTRAP}, json_path, report)
    _migrate_metadata_bootstrap(entry, report)
    drop_unknown_fields(entry, SETTINGS_FIELDS, report)
    return entry


def _migrate_metadata_bootstrap(entry: Entry, report: DiagnosticReport) -> None:
    """`metadataBootstrap: "background" | "off"` became `startupMetadataCheck: true | false`."""
    if LEGACY_METADATA_BOOTSTRAP not in entry.fields:
        return
    path = entry.path_of(LEGACY_METADATA_BOOTSTRAP)
    written = entry.spelled.pop(LEGACY_METADATA_BOOTSTRAP)
    legacy = entry.fields.pop(LEGACY_METADATA_BOOTSTRAP)
    if "startupMetadataCheck" in entry.fields:
        report.warning(
            path,
            f"legacy field '{written}' is ignored because 'startupMetadataCheck' is also set",
            f"remove '{written}'",
        )
        return
    migrated = _LEGACY_METADATA_VALUES.get(legacy) if isinstance(legacy, str) else None
    if migrated is None:
        report.error(
            path,
            f'legacy field \'{written}\' must be "background" or "off"; it is ignored',
            'write "startupMetadataCheck": true or false instead',
        )
        return
    entry.fields["startupMetadataCheck"] = migrated
    report.warning(
        path,
        f"legacy field '{written}' was migrated to 'startupMetadataCheck': {json.dumps(migrated)}",
        f'write "startupMetadataCheck": {json.dumps(migrated)} instead',
    )
