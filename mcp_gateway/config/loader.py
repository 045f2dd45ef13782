"""`load_config`: `config.json` → `GatewayConfig`, with diagnostics instead of failures wherever possible.

Only a file that cannot be read as a JSON object raises (`ConfigError`). Everything else degrades locally:
a bad setting falls back to its default, a bad server entry is rejected while the others load, an unknown
field is ignored, and each of those leaves a diagnostic naming the JSON path and the fix. Per server the
pipeline is: normalize keys and choose the transport, capture the identity input, expand `${VAR}`, and
validate. A missing file is created from the template, so a first start serves (with no servers).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from pydantic import ValidationError

from mcp_gateway.config.diagnostics import DiagnosticReport, join_path
from mcp_gateway.config.expand import UnsetVariable, expand_server_fields
from mcp_gateway.config.explain import explain
from mcp_gateway.config.gateway_config import GatewayConfig, ServerConfig
from mcp_gateway.config.identity import connection_identity
from mcp_gateway.config.jsonfile import as_object, read_json_object
from mcp_gateway.config.models import Settings
from mcp_gateway.config.names import check_alias_conflicts, check_server_key
from mcp_gateway.config.normalize import (
    SETTINGS_FIELDS,
    Entry,
    camel_case,
    drop_unknown_fields,
    normalize_keys,
    normalize_settings,
)
from mcp_gateway.config.policy_rules import checked_policy
from mcp_gateway.config.template import CONFIG_VERSION, write_default_config
from mcp_gateway.config.transport import SERVER_MODELS, normalize_server

SERVERS_KEY = "mcpServers"
SERVERS_ALIAS_KEY = "servers"
"""VS Code and some other clients key their servers by `servers`."""
TOP_LEVEL_KEYS = frozenset({"version", "settings", SERVERS_KEY, SERVERS_ALIAS_KEY, "$schema"})
REJECTED_SUFFIX = "; the server is not loaded"


def load_config(path: Path, *, environ: Mapping[str, str] | None = None, create_missing: bool = True) -> GatewayConfig:
    """Load and validate `path`; `environ` (default `os.environ`) supplies `${VAR}` values.

    Raises:
        ConfigError: the file cannot be read or created, is not JSON, or its top level is not an object.
    """
    report = DiagnosticReport(path)
    if not _exists(path):
        if not create_missing:
            report.warning("", "the config file does not exist; no servers are configured", _HOW_TO_ADD_SERVERS)
            return _result(path, Settings(), {}, {}, report)
        write_default_config(path)
    root, repeated = read_json_object(path)
    for repeat in repeated:
        report.warning(repeat.json_path, f"key '{repeat.key}' appears more than once; only the last one is used")
    top = normalize_keys(root, TOP_LEVEL_KEYS, "", report)
    drop_unknown_fields(top, TOP_LEVEL_KEYS, report, elsewhere=_misplaced_top_level_hints(top.fields))
    _check_version(top, report)
    settings = _load_settings(top, report)
    servers, rejected = _load_servers(top, os.environ if environ is None else environ, report)
    return _result(path, settings, servers, rejected, report)


_HOW_TO_ADD_SERVERS = "run `mcp-gateway import --client NAME`, or add servers under 'mcpServers'"


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return True  # reading it will report why it is unusable


def _result(
    path: Path,
    settings: Settings,
    servers: dict[str, ServerConfig],
    rejected: dict[str, str],
    report: DiagnosticReport,
) -> GatewayConfig:
    return GatewayConfig(
        path=path,
        settings=settings,
        servers=MappingProxyType(servers),
        rejected=MappingProxyType(rejected),
        diagnostics=tuple(report.items),
    )


def _misplaced_top_level_hints(fields: Mapping[str, object]) -> dict[str, str]:
    hints: dict[str, str] = {}
    for key, value in fields.items():
        if camel_case(key) in SETTINGS_FIELDS:
            hints[key] = "it is a setting: move it into 'settings'"
        elif isinstance(value, dict) and ("command" in value or "url" in value):
            hints[key] = f"it looks like a server: move it into '{SERVERS_KEY}'"
    return hints


def _check_version(top: Entry, report: DiagnosticReport) -> None:
    version = top.fields.get("version", CONFIG_VERSION)
    if isinstance(version, int) and not isinstance(version, bool) and version == CONFIG_VERSION:
        return
    if isinstance(version, int) and not isinstance(version, bool) and version > CONFIG_VERSION:
        message = f"config version {version} is newer than this gateway understands; it is read as version 1"
        report.error(top.path_of("version"), message, "upgrade mcp-gateway")
        return
    report.error(top.path_of("version"), f"'version' must be {CONFIG_VERSION}; it is read as version 1", '"version": 1')


def _load_settings(top: Entry, report: DiagnosticReport) -> Settings:
    raw = top.fields.get("settings")
    if raw is None:
        return Settings()
    path = top.path_of("settings")
    raw_settings = as_object(raw)
    if raw_settings is None:
        report.error(path, "'settings' must be an object; the defaults are used", 'e.g. {"idleTimeout": 10}')
        return Settings()
    entry = normalize_settings(raw_settings, path, report)
    fields = entry.fields
    if "policy" in fields:  # rule by rule: one bad rule must not drop the others
        fields["policy"] = checked_policy(fields["policy"], entry.path_of("policy"), report)
    snake = {camel_case(name): name for name in Settings.model_fields}
    while True:
        try:
            return Settings.model_validate(fields)
        except ValidationError as exc:
            problems = [p for p in explain(exc, path, entry.spelled) if p.field in fields]
            if not problems:
                raise  # an error not tied to one setting would be a bug in the model
            for problem in problems:
                default = _as_json(Settings.model_fields[snake[problem.field]].default)
                report.error(problem.json_path, f"{problem.message}; the default {default} is used", problem.suggestion)
            fields = {key: value for key, value in fields.items() if key not in {p.field for p in problems}}


def _as_json(value: object) -> str:
    """A default as a user would write it: `10`, not `10.0`."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value)


def _load_servers(
    top: Entry, environ: Mapping[str, str], report: DiagnosticReport
) -> tuple[dict[str, ServerConfig], dict[str, str]]:
    key = SERVERS_KEY if SERVERS_KEY in top.fields else SERVERS_ALIAS_KEY
    if SERVERS_KEY in top.fields and SERVERS_ALIAS_KEY in top.fields:
        report.warning(
            top.path_of(SERVERS_ALIAS_KEY),
            f"both '{top.spelled[SERVERS_KEY]}' and '{top.spelled[SERVERS_ALIAS_KEY]}' are present; "
            f"'{top.spelled[SERVERS_ALIAS_KEY]}' is ignored",
            f"move its entries into '{top.spelled[SERVERS_KEY]}'",
        )
    raw = top.fields.get(key)
    servers: dict[str, ServerConfig] = {}
    rejected: dict[str, str] = {}
    if raw is None:
        return servers, rejected
    servers_path = top.path_of(key)
    entries = as_object(raw)
    if entries is None:
        report.error(
            servers_path,
            f"'{top.spelled[key]}' must be an object keyed by server name; no servers are loaded",
            '{"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}',
        )
        return servers, rejected
    for name, entry in entries.items():
        path = join_path(servers_path, name)
        check_server_key(name, path, report)
        first = len(report.items)
        server = _load_server(name, entry, path, environ, report)
        if server is None:
            rejected[name] = _mark_rejected(report, first)
        else:
            servers[name] = server
    check_alias_conflicts({name: server.spec.aliases for name, server in servers.items()}, servers_path, report)
    return servers, rejected


def _load_server(
    name: str, raw: object, path: str, environ: Mapping[str, str], report: DiagnosticReport
) -> ServerConfig | None:
    fields = as_object(raw)
    if fields is None:
        report.error(path, "a server entry must be an object", 'e.g. {"command": "npx", "args": ["-y", "some-server"]}')
        return None
    normalized = normalize_server(fields, path, report)
    if normalized is None:
        return None
    transport, entry = normalized
    expanded, unset = expand_server_fields(entry.fields, environ, path)
    if entry.fields.get("disabled") is not True:  # a disabled server is never started: its env cannot matter yet
        _report_unset(name, unset, report)
    try:
        spec = SERVER_MODELS[transport].model_validate(expanded)
    except ValidationError as exc:
        for problem in explain(exc, path, entry.spelled, entry.near_misses):
            report.error(problem.json_path, problem.message, problem.suggestion)
        for near in entry.held:  # rejected anyway: said as the other unknown keys are
            report.warning(near.path, f"unknown field '{near.written}' is ignored", near.fix)
        return None
    if entry.held:
        # `arg` for `args` would start a bare `python` that waits for ever: the entry stays out until it is fixed.
        for near in entry.held:
            message = (
                f"unknown field '{near.written}' is probably '{near.meant}', without which it would not run as meant"
            )
            report.error(near.path, message, near.rename)
        return None
    return ServerConfig(
        name=name, spec=spec, identity=connection_identity(spec, entry.fields), misspelt=tuple(entry.misspelt)
    )


def _report_unset(server: str, unset: list[UnsetVariable], report: DiagnosticReport) -> None:
    reported: set[str] = set()
    for variable in unset:
        if variable.name in reported:
            continue
        reported.add(variable.name)
        report.warning(
            variable.json_path,
            f"environment variable '{variable.name}' is not set, so server '{server}' gets an empty value here",
            f"set {variable.name} in the environment the gateway starts in, or write ${{{variable.name}:-default}}",
        )


def _mark_rejected(report: DiagnosticReport, first: int) -> str:
    """Say on each of a rejected server's errors that it is not loaded; return its one-line reason."""
    errors = [i for i in range(first, len(report.items)) if report.items[i].severity == "error"]
    for i in errors:
        report.items[i] = dataclasses.replace(report.items[i], message=report.items[i].message + REJECTED_SUFFIX)
    if not errors:
        return "invalid entry"
    head = report.items[errors[0]]
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return f"{head.message.removesuffix(REJECTED_SUFFIX)}{more}"
