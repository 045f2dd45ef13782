"""The Chinese glossary: for the English words tool catalogs use, the Chinese words a user writes for them.

The lexicon (`lexicon.py`) maps about a hundred concepts between the languages; a Chinese request about
anything else (a Quran server, tensors, a dropdown, browser tabs) had no way to meet the English words of the
tool that serves it. `glossary-zh.txt` is that missing half: one line per catalog word, `english: 中文 中文`,
chosen from the words of `catalog-xl.json`'s tool names, server names and descriptions by
`benchmarks/glossary_words.py`, never from benchmark requests.

A glossary word only translates: it adds English words to a Chinese text's terms, as the lexicon's Chinese
words do, but no concept. A CJK run is read for glossary words on its own, longest word first at each
position, apart from the lexicon's reading, so a long glossary word (`删除文件`) never hides a lexicon word it
contains from the concepts.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from mcp_gateway.search.text import stem

GLOSSARY_FILE = "glossary-zh.txt"
MAX_GLOSSARY_WORD = 5
"""The longest Chinese word looked for, in characters: the longest the glossary holds (its test keeps every
word within it), a bound on the reading's cost, not a tuning."""


@lru_cache(maxsize=1)
def glossary() -> dict[str, tuple[str, ...]]:
    """Chinese word → the English stems it stands for, read once from the package's glossary file."""
    found: dict[str, set[str]] = {}
    text = files("mcp_gateway.search").joinpath(GLOSSARY_FILE).read_text(encoding="utf-8")
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        english, _, chinese = line.partition(":")
        stems = {stem(word) for word in english.split()}
        for word in chinese.split():
            found.setdefault(word, set()).update(stems)
    return {word: tuple(sorted(stems)) for word, stems in found.items()}


def glossary_translations(run: str) -> list[str]:
    """English stems for the glossary words in a CJK run, longest word first at each position."""
    table = glossary()
    found: list[str] = []
    position = 0
    while position < len(run):
        for length in range(min(MAX_GLOSSARY_WORD, len(run) - position), 1, -1):
            english = table.get(run[position : position + length])
            if english is not None:
                found.extend(english)
                position += length - 1
                break
        position += 1
    return found
