"""The plain BM25 baseline every retrieval figure is compared with, in the same run.

As described in bench-data's README: `rank_bm25.BM25Okapi` with k1=1.2 and b=0.75 over the server key,
its aliases, the tool name, its description and its parameter names, tokenized on non-alphanumerics and
camelCase, lower-cased. No stemming, no synonyms, no field weights.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from rank_bm25 import BM25Okapi  # pyright: ignore[reportMissingTypeStubs]

from benchmarks.bench_data import BenchServer
from mcp_gateway.catalog import ToolRecord

K1 = 1.2
B = 0.75
_PIECES = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\x00-\x7f]")


def tokenize(text: str) -> list[str]:
    return [piece.lower() for piece in _PIECES.findall(text)]


def _parameter_names(tool: ToolRecord) -> list[str]:
    properties = tool.input_schema.get("properties")
    return [str(key) for key in cast(dict[str, object], properties)] if isinstance(properties, dict) else []


class PlainBM25:
    def __init__(self, servers: Sequence[BenchServer]) -> None:
        self.pairs: list[tuple[str, str]] = []
        corpus: list[list[str]] = []
        for server in servers:
            for tool in server.tools:
                text = " ".join([server.name, *server.aliases, tool.name, tool.description, *_parameter_names(tool)])
                corpus.append(tokenize(text))
                self.pairs.append((server.name, tool.name))
        self._bm25 = BM25Okapi(corpus, k1=K1, b=B)

    def search(self, query: str, limit: int) -> list[tuple[str, str]]:
        scores: list[float] = list(self._bm25.get_scores(tokenize(query)))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        order = sorted(range(len(self.pairs)), key=lambda index: -scores[index])
        return [self.pairs[index] for index in order[:limit]]
