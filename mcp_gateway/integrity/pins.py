"""The pins file, `pins.json` beside config.json: what a person (or a server's first listing) approved.

Per server and per resolution of it (`fingerprint`: the key of the process it resolves to, `Pool.process_key`, so
a server resolved otherwise for another project or environment is pinned apart and nothing of one is judged by
the other's pins; an edit of the server's command or url is a new resolution, put there by the user), and per
kind (tool, prompt, template) and name the approved definition (normalized, for the diff a review shows), its
digest, its hints, when and how it was approved; and what was rejected, by digest, so a review stops asking
about it. Beside config.json, not in the cache directory: an approval must outlive a cleaned cache. Read and
written only through `workspace_files` (private, atomic, never through a link), every read-merge-write under a
lock, in a worker thread. A file that cannot be parsed is set aside (kept for a person) and the pins start again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.integrity.definitions import Kind
from mcp_gateway.workspace_files import private_lock, read_regular, replace_file, set_aside

VERSION = 2
MAX_PINS_BYTES = 256 * 1024 * 1024
LOCK_SECONDS = 10.0
KINDS: tuple[Kind, ...] = ("tool", "prompt", "template")


@dataclass(frozen=True)
class Pin:
    digest: str
    definition: dict[str, Any]
    hints: dict[str, Any]
    at: float
    by: str
    """"first sight" (the server's first listing, trusted as the user put it there) or "review"."""


@dataclass
class ServerPins:
    fingerprint: str
    pins: dict[Kind, dict[str, Pin]] = field(default_factory=lambda: {kind: {} for kind in KINDS})
    rejected: dict[Kind, dict[str, str]] = field(default_factory=lambda: {kind: {} for kind in KINDS})


Pins = dict[str, dict[str, ServerPins]]
"""Server name → resolution (`ServerPins.fingerprint`) → its pins."""
Signature = tuple[int, int, int, int]


class PinsFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock_path = path.with_name(path.name + ".lock")
        self.notice: str | None = None
        """Why the last read found no usable file there (set aside), else None."""

    def signature(self) -> Signature | None:
        """What tells one version of the file from the next (an `lstat`: cheap enough for every request)."""
        try:
            info = os.lstat(self.path)
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size, info.st_ino, info.st_dev)

    def read(self) -> tuple[Pins, Signature | None]:
        signature = self.signature()
        try:
            data = read_regular(self.path, MAX_PINS_BYTES)
        except FileNotFoundError:
            return {}, None
        except (UnusableFileError, OSError) as exc:
            self.notice = f"{self.path} cannot be read ({exc}); every server's next listing is judged as its first"
            return {}, signature
        try:
            return _parsed(json.loads(data)), signature
        except (ValueError, KeyError, TypeError) as exc:
            aside = set_aside(self.path, "corrupt", keep=3)
            self.notice = f"{self.path} was not a pins file ({type(exc).__name__}); kept as {aside}, pins start again"
            return {}, None

    def update(self, change: Callable[[Pins], bool]) -> tuple[Pins, Signature | None]:
        """Read the file, let `change` edit it, write it back if it says it changed: all under the file's lock."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with private_lock(self._lock_path, timeout_s=LOCK_SECONDS, poll_s=0.01):
            pins, signature = self.read()
            if change(pins):
                data = json.dumps(_document(pins), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                replace_file(self.path, data, durable=True)
                signature = self.signature()
            return pins, signature


def pinned(digest: str, definition: dict[str, Any], hints: dict[str, Any], by: str) -> Pin:
    return Pin(digest, definition, hints, time.time(), by)


def _document(pins: Pins) -> dict[str, Any]:
    return {
        "version": VERSION,
        "servers": {
            name: {
                resolution: {
                    **{
                        kind: {key: pin.__dict__ for key, pin in server.pins[kind].items()}
                        for kind in KINDS
                        if server.pins[kind]
                    },
                    "rejected": {kind: names for kind, names in server.rejected.items() if names},
                }
                for resolution, server in resolutions.items()
            }
            for name, resolutions in pins.items()
        },
    }


def _parsed(document: Any) -> Pins:
    if not isinstance(document, dict) or cast(dict[str, Any], document).get("version") != VERSION:
        raise ValueError(f"not a version {VERSION} pins file")
    pins: Pins = {}
    for name, resolutions in cast(dict[str, dict[str, dict[str, Any]]], document["servers"]).items():
        for resolution, entry in resolutions.items():
            server = ServerPins(str(resolution))
            for kind in KINDS:
                for key, pin in cast(dict[str, dict[str, Any]], entry.get(kind, {})).items():
                    server.pins[kind][key] = Pin(
                        str(pin["digest"]),
                        dict(pin["definition"]),
                        dict(pin["hints"]),
                        float(pin["at"]),
                        str(pin["by"]),
                    )
                server.rejected[kind] = {str(k): str(v) for k, v in entry.get("rejected", {}).get(kind, {}).items()}
            pins.setdefault(str(name), {})[server.fingerprint] = server
    return pins
