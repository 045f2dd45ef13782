"""The Chinese glossary file (`mcp_gateway/search/glossary-zh.txt`) keeps the format the lexicon reads.

Each non-comment line is `english: 中文 中文 ...`: one lower-case English word, then one to eight Chinese words of
two to five CJK characters (a single character is too ambiguous to bridge languages). The file is hand-written
data, so a malformed line would otherwise only show up as a search that silently finds less. The check stays on
the format and the size: it must not depend on bench data, which is not in the package.
"""

from __future__ import annotations

import re

import pytest
from glossary_lines import entries, glossary_lines, header, line_problems

GLOSSARY = "glossary-zh.txt"
MIN_ENTRIES = 1_500
"""The floor the issue-14 brief set for the glossary's coverage of catalog vocabulary."""
MAX_CHINESE_WORDS = 8
"""The most Chinese words a line holds: the common ways users write the word, not every near-synonym."""
_ENGLISH = re.compile(r"[a-z]+")
_CHINESE_WORD = re.compile(r"[\u4e00-\u9fff]{2,5}")


def problems_of(lines: list[str]) -> list[str]:
    """Every way `lines` break the glossary's format, one sentence each with its line number."""
    return line_problems(lines, _ENGLISH, "lower-case English word", _chinese_problems)


def _chinese_problems(number: int, english: str, chinese: list[str]) -> list[str]:
    problems: list[str] = []
    if not 1 <= len(chinese) <= MAX_CHINESE_WORDS:
        problems.append(f"line {number}: {english!r} has {len(chinese)} Chinese words, not 1 to {MAX_CHINESE_WORDS}")
    problems.extend(
        f"line {number}: {word!r} is not 2 to 5 Chinese characters"
        for word in chinese
        if not _CHINESE_WORD.fullmatch(word)
    )
    if len(set(chinese)) != len(chinese):
        problems.append(f"line {number}: {english!r} repeats a Chinese word")
    return problems


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return glossary_lines(GLOSSARY)


def test_every_line_of_the_glossary_is_well_formed(lines: list[str]) -> None:
    assert problems_of(lines) == []


def test_the_glossary_opens_with_a_header_saying_how_it_was_made(lines: list[str]) -> None:
    assert lines[0].startswith("#")
    assert "benchmarks.glossary_words" in header(lines)


def test_the_glossary_covers_the_vocabulary_of_catalogs(lines: list[str]) -> None:
    assert len(entries(lines)) >= MIN_ENTRIES


def test_the_words_that_motivated_the_glossary_have_their_chinese(lines: list[str]) -> None:
    """Chinese requests about these found nothing before the glossary: no Chinese word reached the English ones."""
    found = entries(lines)
    expected = {
        "quran": "古兰经",
        "tensor": "张量",
        "select": "下拉框",
        "tab": "标签页",
        "gcd": "最大公约数",
        "resource": "资源组",
        "clinical": "临床试验",
        "delete": "删除",
    }
    assert {word: chinese for word, chinese in expected.items() if chinese not in found.get(word, [])} == {}


RARE_WORDS_BLOCK = "# Tier C:"
"""The header of the glossary's last block, the rarer words of descriptions (`glossary_words.py`'s tier C)."""


def test_a_rare_word_takes_no_chinese_word_the_common_vocabulary_renders(lines: list[str]) -> None:
    """A Chinese word rendering a common catalog word (数据: data) would, on a rare word's line too, add that rare
    word, weighty for its rarity, to every request saying it."""
    start = next(number for number, line in enumerate(lines) if line.startswith(RARE_WORDS_BLOCK))
    common = {chinese for words in entries(lines[:start]).values() for chinese in words}
    rare = entries(lines[start:])
    assert rare, "the rare words' block is empty"
    assert {english: taken for english, words in rare.items() if (taken := common.intersection(words))} == {}


@pytest.mark.parametrize(
    "line",
    [
        "Delete: 删除",  # upper case
        "delete 删除",  # no colon
        "delete:",  # no Chinese
        "delete: 删",  # a single character
        "delete: 删除一个文件吧",  # six characters: an explanation, not a word
        "delete: remove",  # English on the Chinese side
        "delete: 删除 删掉 移除 去掉 清除 抹掉 擦除 删去 除去",  # nine words
        "delete: 删除 删除",  # repeated
        "api key: 密钥",  # two English words
    ],
)
def test_the_check_refuses_a_malformed_line(line: str) -> None:
    assert problems_of([line]) != []


def test_the_check_refuses_a_second_line_for_one_word() -> None:
    assert problems_of(["delete: 删除", "delete: 删掉"]) != []
