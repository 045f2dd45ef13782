"""What the gateway's instructions say about each server, derived from the catalog and kept beside it.

A client reads the gateway's `instructions` once, in the answer to `initialize`, which must come at once:
reading and parsing cache.json takes 13 ms for 7 servers and 116 ms for 300 (json alone: 3 and 42 ms), and
the instructions need a line per server, not every tool. So every write of cache.json also writes
`cache-digest.json`, a few hundred bytes per server, pure data derived from the entries just written:

    {"version": 1, "cache": {"mtimeNs": int, "size": int, "inode": int},
     "servers": {"<server>": {"fingerprint": str, "about": str|null, "tools": [str]}}}

`cache` is the signature of the cache.json it was derived from: a digest that does not match the file (an
older gateway wrote the file, a write of the digest failed) is rewritten once the catalog is loaded, and
until then is still used, entry by entry, where its fingerprint matches the server's config. The digest is
never the truth about tools (cache.json is): losing it costs the instructions their lines, nothing else.
Parsing never raises; whatever is not sound is left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp_gateway.catalog.records import ServerCatalog

DIGEST_VERSION = 1
MAX_ABOUT_CHARS = 120
"""One line about a server: what a model reads to route a task to it (about 25 tokens)."""
MAX_SUMMARY_TOOLS = 12
"""Tool names kept per server, in listing order: the instructions show a few of those the config allows."""
MAX_SUMMARY_TOOL_CHARS = 64
"""A tool name kept for the digest; longer ones are left out (they would crowd the line)."""


@dataclass(frozen=True)
class ServerSummary:
    fingerprint: str
    """The server's config fingerprint when it was listed: a summary for another config is not used."""
    about: str | None
    """What the server says it is: its `serverInfo` description, else its title, else its instructions' lead."""
    tools: tuple[str, ...]
    """The first tool names it listed."""


@dataclass(frozen=True)
class Digest:
    servers: Mapping[str, ServerSummary]
    cache: tuple[int, int, int] | None
    """The (mtime_ns, size, inode) of the cache.json it was derived from; None when unknown."""


EMPTY_DIGEST = Digest({}, None)
DIGEST_NAME = "cache-digest.json"
"""The digest's file, beside cache.json."""
MAX_DIGEST_BYTES = 4 * 1024 * 1024
"""A digest is a few hundred bytes per server; anything this large is not one."""


def summarize(entry: ServerCatalog) -> ServerSummary:
    """What every session's instructions say of the server: nothing it listed when another resolution of it (another
    project, another environment) lists otherwise, for what one project's process said is none of another's."""
    if entry.varies:
        return ServerSummary(entry.fingerprint, None, ())
    names = [tool.name for tool in entry.tools if len(tool.name) <= MAX_SUMMARY_TOOL_CHARS]
    return ServerSummary(entry.fingerprint, _about(entry), tuple(_varied(names)[:MAX_SUMMARY_TOOLS]))


def serialize_digest(entries: Iterable[ServerCatalog], cache: tuple[int, int, int]) -> bytes:
    servers: dict[str, Any] = {}
    for entry in sorted(entries, key=lambda e: e.server):
        summary = summarize(entry)
        servers[entry.server] = {
            "fingerprint": summary.fingerprint,
            "about": summary.about,
            "tools": list(summary.tools),
        }
    mtime_ns, size, inode = cache
    signature = {"mtimeNs": mtime_ns, "size": size, "inode": inode}
    document = {"version": DIGEST_VERSION, "cache": signature, "servers": servers}
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class _Signature(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    mtime_ns: int = Field(alias="mtimeNs")
    size: int
    inode: int


class _Summary(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    fingerprint: str
    about: str | None = Field(default=None, max_length=MAX_ABOUT_CHARS)
    tools: list[str] = Field(default_factory=list[str], max_length=MAX_SUMMARY_TOOLS)


def parse_digest(data: bytes) -> Digest:
    """Read a `cache-digest.json` image; an unusable one is an empty digest, an unsound entry is left out."""
    try:
        raw: Any = json.loads(data)
    except (ValueError, RecursionError):
        return EMPTY_DIGEST
    if not isinstance(raw, dict):
        return EMPTY_DIGEST
    document = cast(dict[str, Any], raw)
    if document.get("version") != DIGEST_VERSION or not isinstance(document.get("servers"), dict):
        return EMPTY_DIGEST
    try:
        signature = _Signature.model_validate(document.get("cache"))
        cache = (signature.mtime_ns, signature.size, signature.inode)
    except ValidationError:
        cache = None
    servers: dict[str, ServerSummary] = {}
    for name, value in cast(dict[str, Any], document["servers"]).items():
        try:
            entry = _Summary.model_validate(value)
        except ValidationError:
            continue
        tools = tuple(tool for tool in entry.tools if len(tool) <= MAX_SUMMARY_TOOL_CHARS)
        servers[name] = ServerSummary(entry.fingerprint, entry.about, tools)
    return Digest(servers, cache)


def _about(entry: ServerCatalog) -> str | None:
    for said in (entry.server_description, _title(entry), _lead(entry.instructions)):
        line = one_line(said or "", MAX_ABOUT_CHARS)
        if line:
            return line
    return None


def _title(entry: ServerCatalog) -> str | None:
    """The server's title, unless it only restates a name the model already sees."""
    title = entry.server_title
    if title is None:
        return None
    names = {_squashed(entry.server), _squashed(entry.server_name or "")}
    return None if _squashed(title) in names else title


def _lead(instructions: str | None) -> str | None:
    """The first line of text in a server's instructions, without markdown's heading, list and emphasis marks."""
    for line in (instructions or "").splitlines():
        text = _EMPHASIS.sub("", _LINE_MARKS.sub("", line)).strip()
        if text:
            return text
    return None


def _varied(names: list[str]) -> list[str]:
    """`names` with the first of each leading word first (`get_issue`, `list_prs` before `get_pr`): a few
    names then say more about what a server does."""
    seen: set[str] = set()
    first: list[str] = []
    rest: list[str] = []
    for name in names:
        lead = _LEADING_WORD.split(name, maxsplit=1)[0].casefold()
        (rest if lead in seen else first).append(name)
        seen.add(lead)
    return first + rest


_LINE_MARKS = re.compile(r"^[\s#>*+\-]+")
_EMPHASIS = re.compile(r"\*\*|__|`")
_LEADING_WORD = re.compile(r"[_\-.\s/]|(?<=[a-z])(?=[A-Z])")


def _squashed(text: str) -> str:
    return "".join(char for char in text.casefold() if char.isalnum())


def one_line(text: str, limit: int) -> str:
    """`text` on one line, cut at a word boundary to at most `limit` characters (an ellipsis says it was cut)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] if " " in text[: limit - 1] else text[: limit - 1]
    return cut.rstrip(",.;:") + "…"
