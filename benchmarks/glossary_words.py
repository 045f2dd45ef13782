"""The English words of tool catalogs that a Chinese glossary should render, by how widely they are used.

The Chinese glossary (`mcp_gateway/search/glossary-zh.txt`) is written from the vocabulary of tool catalogs,
never from benchmark queries: this script is where that vocabulary comes from. It reads a catalog in
bench-data's format (`catalog-xl.json` by default, the widest one) and prints one word a line with the number
of servers that use it anywhere (tool names, server keys, aliases or descriptions), in three tiers:

- A: words of tool names used by at least `MIN_NAME_SERVERS` servers, and description words used by at least
  `MIN_DESCRIPTION_SERVERS` servers: the shared vocabulary of what tools do and act on.
- B: the remaining words of tool names, server keys and aliases: rarer actions and objects, and the names of
  services and products (many are user names and noise, to be skipped by whoever reads the list).
- C: the remaining words of descriptions, used by fewer than `MIN_DESCRIPTION_SERVERS` servers and not another
  form of a word of tiers A or B (`adding` beside `add`: the search stems both alike): the words of narrow
  domains (a geology server's strata, a trading server's candlesticks) that a request about such a tool uses,
  among typos and fragments of a single author's prose.

Tier A comes first, then B, then C, each most-used first (ties alphabetically). `--context N` adds, after each
word, stretches of the first descriptions that use it on up to N servers, so whoever renders it sees the senses
catalogs use it in.
Identifiers are split with the search's own `split_identifier`, descriptions into runs of ASCII letters; the
search's stop words, words under `MIN_WORD_LENGTH` letters and anything not purely alphabetic are dropped.

    python -m benchmarks.glossary_words [--catalog PATH] [--tier A|B|C] [--context N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR
from mcp_gateway.search.text import STOP_WORDS, split_identifier, stem

DEFAULT_CATALOG = DEFAULT_DATA_DIR / "catalog-xl.json"
MIN_NAME_SERVERS = 2
"""A tool-name word used by one server only is as likely its author's coinage as shared vocabulary. Set by the
issue-14 brief."""
MIN_DESCRIPTION_SERVERS = 5
"""Descriptions are long and varied prose: a word needs five servers to count as the catalogs' vocabulary
rather than one author's phrasing. Set by the issue-14 brief (it gives about 2,000 tier-A words on catalog-xl)."""
MIN_WORD_LENGTH = 3
"""Shorter words are abbreviations or fragments (`id`, `db`, `io`) that a glossary cannot render. A bound set by
the issue-14 brief."""
_LETTERS = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class CatalogWord:
    word: str
    servers: int
    """How many servers use the word anywhere: tool names, server key, aliases or descriptions."""
    tier: str
    contexts: tuple[str, ...] = ()
    """A stretch of the first description using the word on each server that uses it in a description, in
    catalog order, for `--context`."""


def _kept(words: Iterable[str]) -> set[str]:
    return {
        word
        for word in words
        if len(word) >= MIN_WORD_LENGTH and word.isascii() and word.isalpha() and word not in STOP_WORDS
    }


def catalog_words(document: dict[str, Any]) -> list[CatalogWord]:
    """The words of one catalog document (`{"servers": {key: {"aliases", "tools"}}}`), tier A then tier B."""
    name_servers: Counter[str] = Counter()  # words of tool names
    identifier_servers: Counter[str] = Counter()  # words of tool names, server keys and aliases
    description_servers: Counter[str] = Counter()
    any_servers: Counter[str] = Counter()
    contexts: dict[str, list[str]] = {}
    for key, entry in cast(dict[str, dict[str, Any]], document["servers"]).items():
        tools = cast(list[dict[str, Any]], entry.get("tools", []))
        aliases = cast(list[str], entry.get("aliases", []))
        tool_names = _kept(word for tool in tools for word in split_identifier(str(tool.get("name", ""))))
        identifiers = tool_names | _kept(word for text in [key, *aliases] for word in split_identifier(text))
        texts = [str(tool.get("description") or "") for tool in tools]
        descriptions = _kept(match.lower() for text in texts for match in _LETTERS.findall(text))
        seen: set[str] = set()
        for text in texts:
            for match in _LETTERS.finditer(text):
                word = match.group().lower()
                if word not in seen:
                    seen.add(word)
                    contexts.setdefault(word, []).append(_around(text, match.start(), match.end()))
        name_servers.update(tool_names)
        identifier_servers.update(identifiers)
        description_servers.update(descriptions)
        any_servers.update(identifiers | descriptions)
    tier_a = {word for word, count in name_servers.items() if count >= MIN_NAME_SERVERS} | {
        word for word, count in description_servers.items() if count >= MIN_DESCRIPTION_SERVERS
    }
    tier_b = set(identifier_servers) - tier_a
    covered_stems = {stem(word) for word in tier_a | tier_b}
    tier_c = {word for word in set(description_servers) - tier_a - tier_b if stem(word) not in covered_stems}

    def ordered(words: set[str], tier: str) -> list[CatalogWord]:
        return [
            CatalogWord(word, any_servers[word], tier, tuple(contexts.get(word, ())))
            for word in sorted(words, key=lambda w: (-any_servers[w], w))
        ]

    return ordered(tier_a, "A") + ordered(tier_b, "B") + ordered(tier_c, "C")


CONTEXT_CHARS = 60
"""Characters of description shown on each side of a word: about a clause, enough to tell its sense."""


def _around(text: str, start: int, end: int) -> str:
    return " ".join(text[max(0, start - CONTEXT_CHARS) : end + CONTEXT_CHARS].split())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.glossary_words", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--catalog", type=Path, default=DEFAULT_CATALOG, help="a catalog in bench-data's format")
    parser.add_argument("--tier", choices=["A", "B", "C"], help="print only this tier")
    parser.add_argument("--with-tier", action="store_true", help="prefix each line with its tier")
    parser.add_argument(
        "--context", type=int, default=0, metavar="N", help="follow each word with its use on up to N servers"
    )
    args = parser.parse_args(argv)
    catalog = cast(Path, args.catalog)
    try:
        document = cast(dict[str, Any], json.loads(catalog.read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:
        print(f"cannot read the catalog {catalog}: {error}; pass --catalog with a bench-data catalog", file=sys.stderr)
        return 2
    if not isinstance(document.get("servers"), dict):
        print(f'{catalog} has no "servers" object; pass --catalog with a bench-data catalog', file=sys.stderr)
        return 2
    for entry in catalog_words(document):
        if args.tier and entry.tier != args.tier:
            continue
        prefix = f"{entry.tier} " if args.with_tier else ""
        context = "".join(f"\t{use}" for use in entry.contexts[: cast(int, args.context)])
        print(f"{prefix}{entry.word} {entry.servers}{context}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
