"""`mcp-gateway import --restore` and `--backups`: the undo of import's writes to client files, as text.

The shape a person follows: `--backups` lists every kept version of a client's file (when, which write
made it, its size, which one is the original and which the next `--restore` puts back); `--restore` steps
back once (again: one further, until the original); `--restore original` goes to the file as it was
before the gateway first changed it; `--restore PATH` puts back one kept version by name, which is also
how a restore is undone (each restore keeps the version it replaced and says where). Exit codes as for
`import`: 0 done or nothing left to do, 1 no backups or a copy that cannot be put back, 2 a usage problem
(an unknown client, a file that is not a copy, several files with backups and none chosen).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import anyio

from mcp_gateway.errors import ImportFailedError, ImportUsageError
from mcp_gateway.importing import (
    BackupChoice,
    FileHistory,
    ImportService,
    KeptVersion,
    PrunedFile,
    RestoreReport,
    RestoreRequest,
    WalkEnded,
)

ORIGINAL = "original"
"""`--restore original`: the oldest backup. A backup's own name always has the `.mcp-gateway-` mark in it."""
INDENT = "  "
MADE_BY = {
    "write-back": "before import --write-client-config rewrote it",
    "entry-update": "before another client's import updated its gateway entry",
    "restore": "before import --restore replaced it",
}


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
    _show_restored(result, narrowing)
    return 0


def _show_restored(result: RestoreReport, narrowing: str) -> None:
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


def run_list(args: argparse.Namespace, service: ImportService) -> int:
    if args.prune:
        for pruned in anyio.run(service.prune_backups, restore_request(args)):
            print("\n".join(_pruned_lines(pruned)))
        print()
    listing = anyio.run(service.backups, restore_request(args))
    if not listing.files:
        raise ImportFailedError("found no backups (they are made by import --write-client-config)")
    for history in listing.files:
        print("\n".join(_history_lines(history)))
        print()
    narrowing = _narrowing(args)
    print(f"One step back: mcp-gateway import --restore{narrowing}")
    print(f"The original: mcp-gateway import --restore original{narrowing}")
    print("One of them: mcp-gateway import --restore PATH")
    return 0


def _pruned_lines(pruned: PrunedFile) -> list[str]:
    lines = [f"Removed {INDENT}{path}" for path in pruned.removed]
    left = f"{pruned.kept} version{'' if pruned.kept == 1 else 's'}"
    lines.append(f"{pruned.path}: {len(pruned.removed)} removed; {left} kept (the original and the newest two)")
    if pruned.problem:
        lines.append(f"warning: {pruned.problem}")
    return lines


def _history_lines(history: FileHistory) -> list[str]:
    now = "gone" if history.size is None else _bytes(history.size)
    count = len(history.versions)
    lines = [f"{history.path} (now {now}); {count} kept version{'' if count == 1 else 's'}, newest first:"]
    for version in history.versions:
        lines.append(f"{INDENT}{version.path}")
        lines.append(f"{INDENT * 2}{_summary(version)}")
    return lines


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
    return f"{taken}, {_bytes(version.size)}, {MADE_BY[version.made_by]}{tail}"


def _narrowing(args: argparse.Namespace) -> str:
    """The options that chose the file, to repeat in a suggested command."""
    parts = [f" --client {args.client}" if args.client else "", f" --scope {args.scope}" if args.scope else ""]
    parts.append(f" --from {args.source}" if args.source else "")
    return "".join(parts)


def _bytes(size: int) -> str:
    return f"{size:,} byte{'' if size == 1 else 's'}"
