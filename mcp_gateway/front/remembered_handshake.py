"""The handshake a cold start made last time, remembered so the next cold start answers without loading the config.

A front with no daemon running must answer `initialize` and `tools/list` itself, before its daemon has read the
config. The handshake changes only when what it is made from changes: the config file, the catalog's digest
beside cache.json (both read by `service.surface.handshake_instructions`), the environment (its secrets are
masked in the text) and the gateway's version. So the daemon writes the one it made next to its socket, with a
signature of each file it read (device, inode, size, modification and change times, taken before reading) and
a digest of the whole environment; the next cold start of that workspace answers from it while every one of
those is unchanged. The daemon it starts then says the same (`early_answers.settle` logs any difference as a
gateway bug).

The file is trusted only in the private runtime directory, read bounded and never through a link, written
whole (a temporary file, then a rename). Standard library only, as the front is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, cast

from mcp_gateway import __version__
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.hello import MAX_HELLO_BYTES, Answer, BadHello
from mcp_gateway.front.private_files import keep, read_kept
from mcp_gateway.front.rendezvous import FRONT_PROTOCOL, sha256_hex

SUFFIX = ".handshake"
"""Beside the socket, whose name already stands for the workspace, the version and the front protocol."""
MAX_BYTES = 2 * MAX_HELLO_BYTES
"""A handshake line is bounded like a hello answer; the sources' line is a few hundred bytes more."""
KEY = "mcpGatewayRemembered"


class Source(NamedTuple):
    """A file a handshake was made from, and its signature when it was read (None: it did not exist)."""

    path: str
    signature: list[int] | None


def signatures_now(paths: Sequence[Path]) -> list[Source]:
    """Each file's signature now: to be taken before the handshake is made from them."""
    return [Source(os.fspath(path), _signature(path)) for path in paths]


def remembered_path(socket: Path) -> Path:
    return socket.with_suffix(SUFFIX)


def remembered(path: Path, environ: Mapping[str, str]) -> Handshake | None:
    """The handshake remembered at `path`, if it was made from exactly what is there now; None otherwise."""
    data = read_kept(path, MAX_BYTES)
    kept = None if data is None else _parsed(data)
    if kept is None or not _unchanged(kept[0], environ):
        return None
    return kept[1].handshake


def _parsed(data: bytes) -> tuple[dict[str, Any], Answer] | None:
    if data.count(b"\n") != 2:
        return None
    said, answer_line, _ = data.split(b"\n")
    try:
        body: object = cast(dict[str, Any], json.loads(said))[KEY]
        answer = Answer.decode(answer_line)
    except (ValueError, TypeError, KeyError, BadHello):
        return None
    if not isinstance(body, dict) or answer.version != __version__:
        return None
    return cast(dict[str, Any], body), answer


def _unchanged(fields: dict[str, Any], environ: Mapping[str, str]) -> bool:
    """The same protocol and environment, and every source file with the signature it had."""
    try:
        now = [[path, _signature(Path(path))] for path, _ in cast(list[Any], fields["sources"])]
    except (KeyError, TypeError, ValueError):  # not a list of [path, signature] pairs: not one this front wrote
        return False
    return bool(now) and fields == {"protocol": FRONT_PROTOCOL, "environ": _environ_digest(environ), "sources": now}


def remember(path: Path, environ: Mapping[str, str], sources: Sequence[Source], answer_line: bytes) -> None:
    """Keep `answer_line` (an accepting hello answer) for the next cold start; a failure only means the next
    one makes its handshake again."""
    said = {"protocol": FRONT_PROTOCOL, "environ": _environ_digest(environ), "sources": [list(s) for s in sources]}
    data = json.dumps({KEY: said}).encode() + b"\n" + answer_line.rstrip(b"\n") + b"\n"
    if len(data) > MAX_BYTES:
        return
    keep(path, data)


def _signature(path: Path) -> list[int] | None:
    """Follows a link, as the config is read (a config may be one); None for a file that is not there."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _environ_digest(environ: Mapping[str, str]) -> str:
    said = "\0".join(sorted(f"{name}={value}" for name, value in environ.items()))
    return sha256_hex(said.encode(errors="surrogateescape"))
