"""`mcp-gateway import`, its `--restore` and `--backups`: a request built from the options for the `ImportService`,
and its reports as text.

This module decides nothing about importing: it hands the service its collaborators (the real sign-in probe
and the system clock; tests hand it fakes), renders the report for a person and maps outcomes to exit codes:
0 done (or nothing left to do), 1 nothing could be imported or a file could not be read or written, 2 a usage
problem. Progress (the sign-in check) goes to stderr, everything else to stdout.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import sys
from pathlib import Path

import anyio

from mcp_gateway.cli.people import PersonWords
from mcp_gateway.errors import ConfigError, ImportFailedError, ImportUsageError
from mcp_gateway.importing import (
    AskingForSignIns,
    BackupChoice,
    ClientEntry,
    Clock,
    ImportReport,
    ImportRequest,
    ImportService,
    KeptVersion,
    Launching,
    Probe,
    RestoreRequest,
    WalkEnded,
    Where,
    check_launch,
    http_status,
    needs_login,
    system_clock,
    this_installation,
)
from mcp_gateway.wording import counted

FAILED = 1
INDENT = "  "
ORIGINAL = "original"
"""`--restore original`: the oldest backup. A backup's own name always has the `.mcp-gateway-` mark in it."""
MADE_BY = {
    "write-back": "before import --write-client-config rewrote it",
    "entry-update": "before another client's import updated its gateway entry",
    "restore": "before import --restore replaced it",
}


def run_import(
    args: argparse.Namespace,
    *,
    probe: Probe = http_status,
    clock: Clock = system_clock,
    launching: Launching | None = None,
) -> int:
    where = Where(
        home=Path.home(),
        project=Path(args.project or os.getcwd()).absolute(),
        environ=dict(os.environ),
        platform=sys.platform,
    )
    launching = launching or Launching(this_installation(), check_launch)
    service = ImportService.for_home(args.home, where=where, probe=probe, clock=clock, launching=launching)
    try:
        if args.restore is not None:
            return run_restore(args, service)
        if args.backups:
            return run_list(args, service)
        if args.prune:
            raise ImportUsageError("--prune goes with --backups: mcp-gateway import --backups --prune")
        return _import(args, service)
    except ConfigError as error:  # the gateway's own config cannot be read: the import failed (exit 1)
        raise ImportFailedError(error.message) from error


def _import(args: argparse.Namespace, service: ImportService) -> int:
    name = args.client or _detected_client(args, service)
    request = ImportRequest(
        client=name,
        scope=args.scope,
        source=Path(args.source) if args.source else None,
        dry_run=args.dry_run,
        write_client_config=args.write_client_config,
        launcher=args.launcher,
        replace=args.replace,
        probe=not args.no_probe,
    )
    report = anyio.run(functools.partial(service.import_client, request, progress=_show_progress))
    title = report.client.title
    print(f"{title} ({report.scope} scope): {report.path}")
    print("\n".join(_server_lines(report)) or f"{INDENT}(no servers)")
    print()
    _show_network(report)
    for note in report.notes:
        print(f"Note: {note}")
    if not report.imported:
        if not report.has_gateway:
            print(f"Nothing could be imported from {report.path}.")
            return FAILED
        print(f"{title} already starts the gateway; nothing left to import.")
        _fail_on_write_failure(report)
        _show_client_write(report)
        return 0
    print(
        f"Gateway config {report.gateway_config}: {report.count('added')} new, {report.count('updated')} updated, "
        f"{report.count('unchanged')} already there"
    )
    if report.variables:
        described = ", ".join(f"{v.name} ({'' if v.set_here else 'not '}set in this shell)" for v in report.variables)
        print(f"The gateway now needs these environment variables (the client used to supply them): {described}")
    print("\n".join(_client_entry_lines(report.client_entry)))
    print()
    if report.dry_run:
        _show_refreshed(report)
        _show_sign_ins(report, PersonWords.of(args).program)
        print("Dry run: nothing was written.")
        entry = report.client_entry
        if entry.start_problem is None:
            print(f"Next: {_import_again(args, report, args.launcher)} --write-client-config")
        else:  # writing would be refused: the next step is another launcher, checked first
            other = "path" if entry.launcher == "uvx" else "uvx"
            print(f"Next: {_import_again(args, report, other)} --dry-run (the {entry.launcher} entry does not start)")
        return 0
    if report.config_write == "written":
        print(f"Wrote {report.gateway_config}.")
    elif report.config_write == "unchanged":
        print(f"{report.gateway_config} already had every server; left unchanged.")
    _show_refreshed(report)
    _fail_on_write_failure(report)
    if args.write_client_config:
        _show_client_write(report)
    else:
        print(f"{title} still starts its servers itself; add --write-client-config to point it at the gateway.")
    program = PersonWords.of(args).program
    _show_sign_ins(report, program)
    print(f"Check the servers: {program} refresh (starts each once and caches its tools), then status.")
    return 0


def _import_again(args: argparse.Namespace, report: ImportReport, launcher: str) -> str:
    """The import command that repeats this one's choices, with `launcher`."""
    words = ["mcp-gateway", "import", "--client", report.client.name, "--scope", report.scope]
    words += ["--from", args.source] if args.source else []
    words += ["--project", args.project] if args.project else []
    words += ["--launcher", launcher] if launcher != "auto" else []
    words += ["--replace"] if args.replace else []
    return shlex.join(words)


def _show_sign_ins(report: ImportReport, program: str) -> None:
    """The imported servers that need `login` before the gateway can reach them, each with its command."""
    waiting = [server.name for server in report.servers if server.imported and needs_login(server.entry)]
    if waiting:
        print(
            f"Sign in to {'it' if len(waiting) == 1 else 'each'} once, in a terminal (the gateway cannot reuse "
            f"{report.client.title}'s sign-in):"
        )
        print("\n".join(f"{INDENT}{program} login {shlex.quote(name)}" for name in waiting))


def _detected_client(args: argparse.Namespace, service: ImportService) -> str:
    """The one client with servers, after listing what was found; several or none must be chosen from."""
    if args.source:
        raise ImportUsageError("--from needs --client to say which client's format the file is in")
    detection = anyio.run(service.detect)
    print("Detected client configs:")
    for detected in detection.found:
        what = detected.problem or counted(detected.servers, "server")
        if detected.has_gateway:
            what += ", already starts the gateway"
        print(f"  {detected.client.name:15} {detected.path or ''}  ({what})")
    if not detection.found:
        print("  none (looked for every client's user config under this HOME)")
    if detection.chosen is not None:
        print(f"Importing from {detection.chosen.title}.\n")
        return detection.chosen.name
    if not detection.with_servers:
        raise ImportFailedError("found no client config with servers to import; name one with --client NAME")
    names = ", ".join(d.client.name for d in detection.with_servers)
    raise ImportUsageError(f"several clients have servers ({names}); choose one with --client NAME")


def _show_progress(event: AskingForSignIns) -> None:
    which = "1 remote server" if event.servers == 1 else f"{event.servers} remote servers"
    print(f"Asking {which} without credentials whether each needs a sign-in…", file=sys.stderr)


def _show_network(report: ImportReport) -> None:
    """Which urls the import requested (a dry run too), and why: the one way it reaches the network."""
    if report.contacted:
        print(
            f"Contacted, to see whether each needs a sign-in (one request without credentials; --no-probe skips "
            f"it): {', '.join(report.contacted)}"
        )
    if report.not_contacted:
        print(
            f"Not contacted (--no-probe): {', '.join(report.not_contacted)}; whether each needs a sign-in is "
            "unknown, see its note"
        )


def _server_lines(report: ImportReport) -> list[str]:
    lines: list[str] = []
    for server in report.servers:
        said = {
            "gateway": f"skipped: {server.reason}",
            "skipped": f"skipped: {server.reason}; it stays in {report.client.title} as it is",
            "conflict": f"not imported: {server.reason}",
            "added": "imported (new in the gateway)",
            "updated": f"imported (updates {', '.join(server.changed)} of the gateway's entry)",
            "unchanged": "imported (the gateway already has it; unchanged)",
        }[server.status]
        lines.append(f"{INDENT}{server.name}: {said}")
        if server.imported:
            entry = json.dumps(server.entry, ensure_ascii=False, separators=(", ", ": "))
            lines.append(f"{INDENT * 2}gateway entry: {entry}")
            lines += [f"{INDENT * 2}note: {note}" for note in server.notes]
    return lines


def _client_entry_lines(entry: ClientEntry) -> list[str]:
    """The exact entry `--write-client-config` puts into the client file, and what it replaces."""
    summary = f"replacing {counted(entry.replaced, 'imported server')}" if entry.replaced else "added"
    if entry.kept:
        summary += f"; {counted(entry.kept, 'skipped server')} stay{'s' if entry.kept == 1 else ''}"
    lines = [f"Client entry for {entry.path} ('{'.'.join(entry.block)}', {summary}):"]
    lines += [INDENT + line for line in entry.text.splitlines()]
    lines.append(f"Launcher: {entry.launcher} ({entry.why}).")
    if entry.start_problem is None:
        lines.append("Checked: the entry's command starts the gateway.")
    else:
        instead = "--launcher path (this installation)" if entry.launcher == "uvx" else "--launcher uvx"
        lines.append(
            f"problem: the entry's command does not start the gateway, so the client could not either: "
            f"{entry.start_problem}. Try {instead}"
        )
    lines += [f"warning: {warning}" for warning in entry.warnings]
    return lines


def _show_client_write(report: ImportReport) -> None:
    written = report.client_write
    if written is None:
        return
    if written.backup is None:
        print(f"{written.path} already holds exactly this gateway entry; left unchanged.")
        return
    print(f"Backup: {written.backup}")
    print(
        f"Rewrote {written.path}: its servers are now 'mcp-gateway'"
        + (f" plus the {written.kept} that could not be imported." if written.kept else ".")
    )
    print(f"Restart {report.client.title} so it starts the gateway.")
    print(f"Undo: mcp-gateway import --restore {written.backup}")
    print(
        f"{counted(written.versions, 'version')} of it {'is' if written.versions == 1 else 'are'} kept "
        f"beside it, readable by you only: mcp-gateway import --backups --client {report.client.name} lists them, "
        "and with --prune removes all but the original and the newest two."
    )


def _show_refreshed(report: ImportReport) -> None:
    """Other clients' gateway entries that now pass on the variables the workspace's servers use."""
    for refresh in report.refreshed:
        missing = ", ".join(refresh.missing)
        if report.dry_run:
            print(f"Would also update {refresh.client}'s gateway entry in {refresh.path} to pass on {missing}.")
        elif refresh.failure is not None:
            print(
                f"warning: {refresh.client}'s gateway entry in {refresh.path} does not pass on {missing}, and "
                f"updating it failed ({refresh.failure}): add them to it by hand"
            )
        else:
            print(
                f"Updated {refresh.client}'s gateway entry in {refresh.path} to pass on {missing} "
                f"(backup: {refresh.backup}; undo: mcp-gateway import --restore {refresh.backup})."
            )


def _fail_on_write_failure(report: ImportReport) -> None:
    """Everything written before the failure has been shown; the failure ends the command."""
    if report.write_failure is not None:
        raise ImportFailedError(report.write_failure)


def restore_request(args: argparse.Namespace) -> RestoreRequest:
    named = args.restore or None
    return RestoreRequest(
        backup=None if named == ORIGINAL else named,
        original=named == ORIGINAL,
        client=args.client,
        scope=args.scope,
        source=Path(args.source) if args.source else None,
    )


def run_restore(args: argparse.Namespace, service: ImportService) -> int:
    result = anyio.run(service.restore, restore_request(args))
    narrowing = _narrowing(args)
    if isinstance(result, BackupChoice):
        if not result.files:
            raise ImportFailedError("found no backups to restore (they are made by import --write-client-config)")
        print("Backups exist for several files:")
        for file in result.files:
            print(f"{INDENT}{file.path}: newest {file.newest} ({file.count} in all)")
        raise ImportUsageError("choose one with --client NAME (or --from PATH), or name a backup: --restore BACKUP")
    if isinstance(result, WalkEnded):
        print(f"Nothing older to restore: every backup of {result.path} has been put back.")
        if result.original is not None:
            print(f"Its original is {result.original}: mcp-gateway import --restore original{narrowing}")
        print(f"See them all: mcp-gateway import --backups{narrowing}")
        return 0
    what = "the original" if result.is_original else "the version kept " + MADE_BY[result.made_by]
    if result.changed:
        print(f"Restored {result.original} to {what}, byte for byte, from {result.backup}.")
    else:
        print(f"{result.original} already held {what} ({result.backup}); left unchanged.")
    if result.kept_current:
        print(f"The version it replaced is kept as {result.kept_current}.")
        print(f"Undo this restore: mcp-gateway import --restore {result.kept_current}")
    if result.made_by != "restore":
        if result.is_original:
            print("This is the file as it was before the gateway first changed it.")
        else:
            print(f"One more step back: mcp-gateway import --restore{narrowing}")
    print("Restart the client so it reads the restored config.")
    return 0


def run_list(args: argparse.Namespace, service: ImportService) -> int:
    request = restore_request(args)
    if args.prune:
        for pruned in anyio.run(service.prune_backups, request):
            for path in pruned.removed:
                print(f"Removed {INDENT}{path}")
            left = counted(pruned.kept, "version")
            print(f"{pruned.path}: {len(pruned.removed)} removed; {left} kept (the original and the newest two)")
            if pruned.problem:
                print(f"warning: {pruned.problem}")
        print()
    listing = anyio.run(service.backups, request)
    if not listing:
        raise ImportFailedError("found no backups (they are made by import --write-client-config)")
    for history in listing:
        now = "gone" if history.size is None else counted(history.size, "byte")
        print(f"{history.path} (now {now}); {counted(len(history.versions), 'kept version')}, newest first:")
        for version in history.versions:
            print(f"{INDENT}{version.path}\n{INDENT * 2}{_summary(version)}")
        print()
    narrowing = _narrowing(args)
    print(f"One step back: mcp-gateway import --restore{narrowing}")
    print(f"The original: mcp-gateway import --restore original{narrowing}")
    print("One of them: mcp-gateway import --restore PATH")
    return 0


def _summary(version: KeptVersion) -> str:
    taken = version.taken.strftime("%Y-%m-%d %H:%M:%S UTC")
    marks = [
        mark
        for flag, mark in (
            (version.is_original, "the original"),
            (version.restored, "already put back"),
            (version.next_step, "next --restore"),
            (version.same_as_file, "same as the file now"),
            (not version.private, "readable by others: --prune removes it unless it is kept, or chmod 600 it"),
        )
        if flag
    ]
    tail = f" [{', '.join(marks)}]" if marks else ""
    return f"{taken}, {counted(version.size, 'byte')}, {MADE_BY[version.made_by]}{tail}"


def _narrowing(args: argparse.Namespace) -> str:
    parts = [f" --client {args.client}" if args.client else "", f" --scope {args.scope}" if args.scope else ""]
    parts.append(f" --from {args.source}" if args.source else "")
    return "".join(parts)
