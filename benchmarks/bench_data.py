"""Loading `../shared/bench-data`: tool catalogs and benchmark queries (see that folder's README)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from mcp_gateway.catalog import ToolRecord

DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "bench-data"
QUERIES_FILE = "queries.jsonl"


@dataclass(frozen=True)
class BenchServer:
    name: str
    aliases: tuple[str, ...]
    tools: tuple[ToolRecord, ...]


@dataclass(frozen=True)
class Gold:
    server: str
    tool: str
    alternatives: tuple[tuple[str, str], ...]

    def accepts(self, pair: tuple[str, str]) -> bool:
        return pair == (self.server, self.tool) or pair in self.alternatives


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    source: str
    kind: str
    lang: str
    gold: tuple[Gold, ...]
    style: str = ""
    """How the request is phrased, where its file says (`benchmarks/styled/`: paraphrase, task, keyword, ...)."""


def load_catalog(path: Path) -> list[BenchServer]:
    document = cast(dict[str, Any], json.loads(path.read_text()))
    servers: list[BenchServer] = []
    for name, entry in cast(dict[str, dict[str, Any]], document["servers"]).items():
        tools = tuple(ToolRecord.from_wire(tool) for tool in cast(list[dict[str, Any]], entry.get("tools", [])))
        servers.append(BenchServer(name, tuple(cast(list[str], entry.get("aliases", []))), tools))
    return servers


def load_queries(path: Path) -> list[Query]:
    queries: list[Query] = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        raw = cast(dict[str, Any], json.loads(line))
        gold = tuple(
            Gold(
                g["server"],
                g["tool"],
                tuple((a["server"], a["tool"]) for a in cast(list[dict[str, str]], g.get("alternatives", []))),
            )
            for g in cast(list[dict[str, Any]], raw["gold"])
        )
        queries.append(
            Query(
                raw["id"], raw["query"], raw["source"], raw["kind"], raw.get("lang", "en"), gold, raw.get("style", "")
            )
        )
    return queries


def spread_queries(data: Path, count: int) -> list[str]:
    """`count` public queries taken evenly across the file (every k-th), so every source and kind is
    represented, and the same ones from run to run."""
    texts = [query.text for query in load_queries(data / QUERIES_FILE)]
    step = max(len(texts) // count, 1)
    return texts[::step][:count]
