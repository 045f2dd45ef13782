"""The fields tools and servers are indexed in: each name spelled once, as a type.

A tool is indexed in separate fields because a word in its name says far more than the same word in a long
description. `documents.py` fills the fields, `index.py` keeps a posting list per field, `ranking.py` weighs
them and `confidence.py` judges a match by the field it is in. The names are `Literal` types, so a misspelt
field is a type error wherever it is written, and the tuples below are the one list of them (the tool fields
in the order an indexed tool stores its term counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

ToolField = Literal[
    "name", "title", "description", "param_names", "param_text", "translated", "concepts", "name_concepts"
]
"""A tool's own words by where they stand (`name` … `param_text`), English words its text translates or
abbreviates to (`translated`), and the lexicon concepts of its description and of its name and title."""
TOOL_FIELDS: tuple[ToolField, ...] = get_args(ToolField)

ServerField = Literal["server", "server_text"]
"""A server's key and aliases (`server`), and the description its config entry gives it (`server_text`)."""
SERVER_FIELDS: tuple[ServerField, ...] = get_args(ServerField)

MatchField = ToolField | Literal["server"]
"""Where a query word is found for a hit: one of the tool's fields, or its server's key or aliases."""

CONCEPT_FIELDS: frozenset[ToolField] = frozenset({"concepts", "name_concepts"})
"""The fields that hold lexicon concepts (`~delete`) and no words: a concept is scored only here, a word never."""

FIELD_POSITIONS: Mapping[ToolField, int] = {name: position for position, name in enumerate(TOOL_FIELDS)}
"""A tool field's place in `TOOL_FIELDS`, which is where an indexed tool keeps that field's counts."""
