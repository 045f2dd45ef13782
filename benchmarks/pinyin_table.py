"""Writes `mcp_gateway/search/pinyin-zh.txt`, the toneless pinyin readings the search corrects homophones with.

Chinese users type through pinyin input methods, so their typos are mostly another character of the same
reading (后腿 for 后退): `mcp_gateway/search/homophones.py` compares readings, and reads them from that file, so the
gateway needs no pinyin library at run time. This script is the dev step that makes the file, with `pypinyin`
(installed by hand, `pip install pypinyin`; it is deliberately in no dependency list: neither the gateway nor
the test suite needs it).

The characters are those of the lexicon's and the glossary's Chinese words, and the 3,755 common characters of
GB2312 level 1 (so the homophone a user typed is there to be read), each with every toneless reading pypinyin
gives it (heteronyms: all of them, as an input method offers a character under each), keeping which reading
is the character's first: an input method lists a character under its other readings far down, so a typo is
read only through the typed character's first reading. One line a syllable, `shuo: 说硕烁 | 数` (first-reading
characters, then the others), syllables in alphabetical order, characters in the order they were met.

    python -m benchmarks.pinyin_table [--out PATH]
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp_gateway.search.homophones import (
    NOT_TYPOS_KEY,
    build_reading_index,
    known_words,
    parse_table,
    sounds_like,
    words_by_commonness,
)
from mcp_gateway.search.lexicon import glossary, lexicon_chinese_words

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "mcp_gateway" / "search" / "pinyin-zh.txt"
GB2312_LEVEL1_COUNT = 3755
"""Characters of GB2312 level 1, the common ones (the standard's own count)."""
GB2312_ROW_SIZE = 94
"""Code points per GB2312 row (0xA1..0xFE)."""
GB2312_LEVEL1_FIRST_ROW = 0xB0
GB2312_FIRST_CELL = 0xA1
TYPO_ODDS = 5
"""A word of the language is read as a typo of the known word it sounds like only when that word is at least this
many times as common (jieba's word counts): a slip of the input method is rarer than typing what one means, so a
word as common as its homophone is taken at its word (一下 13,924 beside 以下 7,611; 超市 534 beside 超时 45), and a
rare one is not (后腿 118 beside 后退 697). A known word jieba lacks counts as rare. Set by hand; measured on the
Chinese styled dev set (typo R@5 .562 at 5): 3 → the same; 10 → .500, as it leaves 后腿 uncorrected."""
NOT_TYPOS_PER_LINE = 40
"""Words per `words:` line, to keep the file readable in a diff."""
HEADER = """\
# Toneless pinyin readings of the characters Chinese search requests are read with (issue 14, homophone typos).
# Format: `syllable: first | other`, one syllable a line: the characters whose first (most common) reading it
# is, then, after ` | ` where there are any, those it is another reading of (数 is shu first, shuo too); a
# character is on the line of each of its readings. Tones dropped, u-umlaut written v (lv, nve), as pinyin input
# methods type them.
# Made by `python -m benchmarks.pinyin_table` (a dev step: it needs `pip install pypinyin`, which the gateway
# and its tests never import) from pypinyin {version}, over the characters of the lexicon's and the glossary's
# Chinese words and the 3,755 characters of GB2312 level 1; rerun it when those words change.
# The `words:` lines at the end list words of the language (jieba {jieba_version}'s dictionary) that sound like a
# lexicon or glossary word a character or two away but are not typos of it: at least a {odds}th as common (一下
# beside 以下); the search never reads them as typos. Generating them needs `pip install jieba` too.
"""


def dev_module(name: str) -> Any:
    """A dev tool's module, imported by name so that neither the gateway nor a type check needs it installed."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        raise SystemExit(
            f"benchmarks.pinyin_table needs {name}, a dev tool: `pip install {name}`, then run it again."
        ) from None


def gb2312_level1() -> list[str]:
    """The common characters, in GB2312 order; code points that do not decode (the level's gaps) are skipped."""
    found: list[str] = []
    for index in range(GB2312_LEVEL1_COUNT):
        code = bytes([GB2312_LEVEL1_FIRST_ROW + index // GB2312_ROW_SIZE, GB2312_FIRST_CELL + index % GB2312_ROW_SIZE])
        try:
            found.append(code.decode("gb2312"))
        except UnicodeDecodeError:
            continue
    return found


def characters() -> list[str]:
    words = sorted(lexicon_chinese_words() | set(glossary()))
    return list(dict.fromkeys(ch for ch in [*"".join(words), *gb2312_level1()] if "\u4e00" <= ch <= "\u9fff"))


def table(chars: Iterable[str]) -> dict[str, tuple[list[str], list[str]]]:
    """Syllable → (the characters it is the first reading of, the characters it is another reading of)."""
    pypinyin = dev_module("pypinyin")
    by_syllable: dict[str, tuple[list[str], list[str]]] = {}
    for ch in chars:
        readings: list[list[str]] = pypinyin.pinyin(ch, style=pypinyin.Style.NORMAL, heteronym=True, errors="ignore")
        syllables = [r.lower() for group in readings for r in group if r.isascii() and r.isalpha()]
        for rank, syllable in enumerate(dict.fromkeys(syllables)):
            by_syllable.setdefault(syllable, ([], []))[0 if rank == 0 else 1].append(ch)
    return dict(sorted(by_syllable.items()))


def render(by_syllable: dict[str, tuple[list[str], list[str]]], versions: dict[str, str], not_typos: list[str]) -> str:
    lines: list[str] = []
    for syllable, (first, other) in by_syllable.items():
        # A syllable that is no character's first reading (cen: only 参's other one) has nothing before the bar.
        lines.append(
            " ".join([f"{syllable}:", *(["".join(first)] if first else []), *(["|", "".join(other)] if other else [])])
        )
    for start in range(0, len(not_typos), NOT_TYPOS_PER_LINE):
        lines.append(f"{NOT_TYPOS_KEY}: {' '.join(not_typos[start : start + NOT_TYPOS_PER_LINE])}")
    return HEADER.format(odds=TYPO_ODDS, **versions) + "\n".join(lines) + "\n"


def word_counts() -> dict[str, int]:
    """jieba's dictionary: word → its count in jieba's corpus."""
    jieba = dev_module("jieba")
    counts: dict[str, int] = {}
    path = Path(jieba.__file__).parent / "dict.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        word, count, *_ = line.split()
        counts[word] = int(count)
    return counts


def not_typos(syllable_lines: str, counts: dict[str, int]) -> list[str]:
    """The words of jieba's dictionary the search would read as a typo of a known word, though they are at least
    a `TYPO_ODDS`th as common as it."""
    table = parse_table(syllable_lines)
    known = known_words()
    index = build_reading_index(words_by_commonness(), table)
    found: list[str] = []
    for word, count in counts.items():
        if word in known or not 2 <= len(word) <= 5 or not all("\u4e00" <= ch <= "\u9fff" for ch in word):
            continue
        meant = sounds_like(word, table, index)
        if meant is not None and counts.get(meant, 0) < TYPO_ODDS * count:
            found.append(word)
    return sorted(found)


def main() -> None:
    pypinyin, jieba = dev_module("pypinyin"), dev_module("jieba")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    out: Path = args.out
    by_syllable = table(characters())
    versions = {"version": pypinyin.__version__, "jieba_version": jieba.__version__}
    exceptions = not_typos(render(by_syllable, versions, []), word_counts())
    out.write_text(render(by_syllable, versions, exceptions), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
