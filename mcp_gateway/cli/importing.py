"""`mcp-gateway import`: bring a client's servers into the gateway, point the client at it, undo it.

Order matters for safety: the client file is read, the gateway config is merged (and written) first, and
only then, with `--write-client-config`, is the client file backed up and rewritten. A failure at any
step leaves the client as it was. Exit codes: 0 done (or nothing left to do), 1 nothing could be
imported or a file could not be read or written, 2 a usage problem (an unknown client, a scope the
client does not have, several clients detected and none chosen, an ambiguous `--restore`).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

import anyio

from mcp_gateway.cli.context import workspace_of
from mcp_gateway.errors import CliError, ConfigError
from mcp_gateway.importers import (
    CLIENTS,
    Backup,
    ClientFormat,
    ClientReading,
    Launch,
    Where,
    backups_of,
    create_backup,
    detect,
    find_client,
    gateway_launch,
    parse_backup,
    plan_merge,
    read_client,
    restore,
    write_plan,
)
from mcp_gateway.importers.files import write_atomically
from mcp_gateway.importers.report import client_entry_block, needed_variables, server_blocks, variables_line
from mcp_gateway.importers.sign_in import needs_probe, screen_sign_ins

FAILED = 1
USAGE = 2


def run_import(args: argparse.Namespace) -> int:
    where = Where(
        home=Path.home(),
        project=Path(args.project or os.getcwd()).absolute(),
        environ=dict(os.environ),
        platform=sys.platform,
    )
    try:
        if args.restore is not None:
            return _restore(args, where)
        return _import(args, where)
    except ConfigError as error:
        raise CliError(error.message, FAILED) from error


def _import(args: argparse.Namespace, where: Where) -> int:
    client = _chosen_client(args, where)
    scope = args.scope or client.scopes[0]
    if scope not in client.scopes:
        raise CliError(f"{client.title} has no {scope} scope; use one of: {', '.join(client.scopes)}", USAGE)
    reading = read_client(client, where, scope, Path(args.source) if args.source else None)
    reading = _screen_sign_ins(reading, client.title)
    workspace = workspace_of(args)
    plan = plan_merge(workspace.config_path, reading.servers)
    outcomes = {outcome.name: outcome for outcome in plan.outcomes}
    needed = needed_variables(reading)
    # The client's gateway runs every server of the workspace, so it passes on what all of them use; a
    # re-run then writes the same entry even when this client has nothing left to import.
    launch = gateway_launch(
        workspace.config_dir, gui=client.gui, client=client.title, needed=[*needed, *plan.variables()]
    )
    print(f"{client.title} ({scope} scope): {reading.path}")
    print("\n".join(server_blocks(reading, outcomes, client.title)) or "  (no servers)")
    print()
    for note in reading.notes:
        print(f"Note: {note}")
    if not reading.imported:
        if reading.has_gateway:
            print(f"{client.title} already starts the gateway; nothing left to import.")
            if args.write_client_config and not args.dry_run:
                _write_back(client, reading, launch.launch)
            return 0
        print(f"Nothing could be imported from {reading.path}.")
        return FAILED
    counts = {
        status: sum(1 for o in plan.outcomes if o.status == status) for status in ("added", "updated", "unchanged")
    }
    print(
        f"Gateway config {plan.path}: {counts['added']} new, {counts['updated']} updated, "
        f"{counts['unchanged']} already there"
    )
    if needed:
        print(variables_line(needed, where.environ))
    print("\n".join(client_entry_block(client, reading, launch)))
    print()
    if args.dry_run:
        print("Dry run: nothing was written.")
        source = f" --from {args.source}" if args.source else ""
        print(f"Next: mcp-gateway import --client {client.name} --scope {scope}{source} --write-client-config")
        return 0
    write_plan(plan)
    print(f"Wrote {plan.path}." if plan.changed else f"{plan.path} already had every server; left unchanged.")
    if args.write_client_config:
        _write_back(client, reading, launch.launch)
    else:
        print(f"{client.title} still starts its servers itself; add --write-client-config to point it at the gateway.")
    home = f" --home {args.home}" if args.home else ""
    print(f"Check the servers: mcp-gateway{home} refresh (starts each once and caches its tools), then status.")
    return 0


def _screen_sign_ins(reading: ClientReading, client: str) -> ClientReading:
    remote = sum(1 for server in reading.servers if needs_probe(server))
    if remote:
        plural = "s" if remote > 1 else ""
        print(
            f"Asking {remote} remote server{plural} without credentials whether they need a sign-in…", file=sys.stderr
        )
    return anyio.run(functools.partial(screen_sign_ins, reading, client))


def _chosen_client(args: argparse.Namespace, where: Where) -> ClientFormat:
    if args.client:
        client = find_client(args.client)
        if client is None:
            names = ", ".join(c.name for c in CLIENTS)
            raise CliError(f"unknown client '{args.client}'; use one of: {names}", USAGE)
        return client
    if args.source:
        raise CliError("--from needs --client to say which client's format the file is in", USAGE)
    found = detect(where)
    with_servers = [d for d in found if d.servers]
    print("Detected client configs:")
    for detected in found:
        what = detected.problem or f"{detected.servers} server{'s' if detected.servers != 1 else ''}"
        if detected.has_gateway:
            what += ", already starts the gateway"
        print(f"  {detected.client.name:15} {detected.path or ''}  ({what})")
    if not found:
        print("  none (looked for every client's user config under this HOME)")
    if len(with_servers) == 1:
        print(f"Importing from {with_servers[0].client.title}.\n")
        return with_servers[0].client
    if not with_servers:
        raise CliError("found no client config with servers to import; name one with --client NAME", FAILED)
    names = ", ".join(d.client.name for d in with_servers)
    raise CliError(f"several clients have servers ({names}); choose one with --client NAME", USAGE)


def _write_back(client: ClientFormat, reading: ClientReading, launch: Launch) -> None:
    text = client.rewrite(reading, launch)
    if text == reading.text:
        print(f"{reading.path} already holds exactly this gateway entry; left unchanged.")
        return
    try:
        backup = create_backup(reading.path)
        write_atomically(reading.path, text.encode("utf-8"))
    except OSError as error:
        raise CliError(
            f"{reading.path}: cannot write it ({error.strerror or error}); it is unchanged", FAILED
        ) from error
    kept = len(reading.skipped)
    print(f"Backup: {backup}")
    print(
        f"Rewrote {reading.path}: its servers are now 'mcp-gateway'"
        + (f" plus the {kept} that could not be imported." if kept else ".")
    )
    print(f"Restart {client.title} so it starts the gateway.")
    print(f"Undo: mcp-gateway import --restore {backup}")


def _restore(args: argparse.Namespace, where: Where) -> int:
    if args.restore:
        backup = parse_backup(Path(args.restore).absolute())
        if backup is None:
            raise CliError(f"{args.restore} is not a backup made by mcp-gateway import", USAGE)
        if not backup.path.is_file():
            raise CliError(f"{backup.path}: no such backup", FAILED)
    else:
        backup = _newest_backup(args, where)
    try:
        restored = restore(backup)
    except OSError as error:
        raise CliError(f"cannot restore {backup.original}: {error.strerror or error}", FAILED) from error
    print(f"Restored {restored.original} from {backup.path} (byte for byte).")
    if restored.kept_current:
        print(f"The version it replaced is kept as {restored.kept_current}.")
    print("Restart the client so it reads the restored config.")
    return 0


def _newest_backup(args: argparse.Namespace, where: Where) -> Backup:
    """The newest backup of the chosen client's files; several files with backups must be chosen from."""
    if args.client and find_client(args.client) is None:
        raise CliError(f"unknown client '{args.client}'", USAGE)
    clients = [find_client(args.client)] if args.client else list(CLIENTS)
    files: dict[Path, None] = {}
    if args.source:
        files[Path(args.source).absolute()] = None
    for client in clients:
        assert client is not None
        for scope in [args.scope] if args.scope else client.scopes:
            if scope in client.scopes and not args.source:
                files.update(dict.fromkeys(client.candidates(where, scope)))
    found = {path: backups for path in files if (backups := backups_of(path))}
    if not found:
        raise CliError("found no backups to restore (they are made by import --write-client-config)", FAILED)
    if len(found) > 1:
        print("Backups exist for several files:")
        for path, backups in found.items():
            print(f"  {path}: newest {backups[-1].path} ({len(backups)} in all)")
        raise CliError("choose one: mcp-gateway import --restore BACKUP (or narrow it with --client)", USAGE)
    return next(iter(found.values()))[-1]
