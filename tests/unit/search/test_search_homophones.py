"""Chinese homophone typos (`search/homophones.py`): a character of the same pinyin typed for the right one.

Chinese users type through pinyin input methods, so their typos are another character under the same syllable
(后腿 for 后退). The search reads such a window as the lexicon or glossary word it sounds like, but never a word
the user typed right, and never a common word of the language (一下 is not a typo of 以下). The small catalog
below is written for these tests, in English, as most catalogs are: a mistyped Chinese request must find what
the request typed right finds.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

import mcp_gateway.search
from mcp_gateway.search import SearchEngine, ServerEntry, ToolEntry
from mcp_gateway.search.homophones import (
    NOT_TYPOS_KEY,
    fuzzy,
    homophone_corrections,
    known_words,
    parse_table,
    pinyin_table,
    reading_index,
)
from mcp_gateway.search.query import WORD_WEIGHT, Vocabulary, parse_query

PINYIN_TABLE = Path(mcp_gateway.search.__file__).resolve().parent / "pinyin-zh.txt"
GB2312_LEVEL1_COUNT = 3755
"""The common characters of GB2312 level 1, which the table must read (the standard's own count)."""

CATALOG: dict[str, list[tuple[str, str]]] = {
    "browser": [
        ("go_back", "Navigate back to the previous page in the browser history."),
        ("go_forward", "Navigate forward to the next page in the browser history."),
        ("take_screenshot", "Take a screenshot of the current page."),
    ],
    "stocks": [
        ("get_stock_price", "Get the daily stock price of a company for a range of dates."),
        ("get_company_news", "Get the latest news about a company."),
    ],
    "catalog-admin": [
        ("update_categories", "Update the category list to the newest version."),
        ("get_categories", "Get the newest version of the category list."),
    ],
}


@pytest.fixture(scope="module")
def engine() -> SearchEngine:
    built = SearchEngine()
    for server, tools in CATALOG.items():
        built.replace_server(ServerEntry(server, ()), [ToolEntry(server, name, text) for name, text in tools])
    return built


def top(engine: SearchEngine, query: str) -> str:
    """The first hit, if it ranks strictly above the second (a tie is not finding the tool)."""
    first, *rest = [*engine.search(query, limit=2).hits, None]
    if first is None or (rest[0] is not None and rest[0].score >= first.score):
        return ""
    return f"{first.server}.{first.tool}"


@pytest.mark.parametrize(
    ("run", "typed", "meant"),
    [
        ("浏览器帮我后腿到上一页", "后腿", "后退"),
        ("特斯拉每天的股加", "股加", "股价"),
        ("苹果公司过去两年的K线数剧", "数剧", "数据"),
        ("把节点挪到这个位值", "位值", "位置"),
        ("未来十年的心血管病风线", "风线", "风险"),
        # 提供 is a known word typed right: the correction extends it, changing only the character after it.
        ("现在能用的大模型提供尚都有哪些", "提供尚", "提供商"),
    ],
)
def test_a_homophone_typo_is_read_as_the_known_word_it_sounds_like(run: str, typed: str, meant: str) -> None:
    assert meant in known_words()
    assert homophone_corrections(run) == [(typed, meant)]


def test_the_fuzzy_pairs_of_every_input_method_are_heard_alike() -> None:
    # gen for geng (-n/-ng) and zhi for zi (zh/z): 跟新 for 更新, 知动 for 自动.
    assert fuzzy("geng") == fuzzy("gen")
    assert fuzzy("zhi") == fuzzy("zi")
    assert homophone_corrections("把分类表跟新到最新版") == [("跟新", "更新")]
    assert homophone_corrections("知动保存") == [("知动", "自动")]


def test_of_equally_close_words_the_commoner_is_read() -> None:
    # 资动 is one character from both 自动 (automatic, a lexicon word) and 制动 (immobilization, a rare word of
    # the glossary's last tier), by the same fuzzy pair: the common word is the likelier one meant.
    assert {"自动", "制动"} <= known_words()
    assert homophone_corrections("资动保存") == [("资动", "自动")]


def test_the_regional_fuzzy_pairs_are_not() -> None:
    # l/n (牛量 niu for 流量 liu) and f/h (胡务 hu for 服务 fu) pair too many frequent syllables to be typos.
    assert fuzzy("niu") != fuzzy("liu")
    assert fuzzy("hu") != fuzzy("fu")
    assert {"流量", "服务"} <= known_words()
    assert homophone_corrections("查一下牛量") == []
    assert homophone_corrections("胡务器") == []


def test_a_known_word_typed_right_is_never_corrected() -> None:
    wrongly_corrected = {word: found for word in known_words() if (found := homophone_corrections(word))}
    assert wrongly_corrected == {}
    assert homophone_corrections("每天的股价") == []


def test_a_window_across_a_word_typed_right_is_not_read_as_a_typo() -> None:
    # 文想 sounds like 文献, but its 文 ends 推文 (a tweet), typed right: the window spans two words. 提供尚 holds
    # 提供 whole, so it is still read as 提供商.
    assert "推文" in known_words()
    assert homophone_corrections("我写推文想换个口吻") == []
    assert homophone_corrections("现在能用的提供尚有哪些") == [("提供尚", "提供商")]


def test_a_common_word_of_the_language_is_taken_at_its_word() -> None:
    # 市长 sounds like 时长, a known word, but is about as common: a request saying it means a mayor.
    # 一下 (a number and measure word) is grammar, never read as 以下.
    assert "市长" in pinyin_table().not_typos
    assert homophone_corrections("这是市长") == []
    assert homophone_corrections("帮我查一下") == []


def test_a_number_and_measure_word_is_grammar_never_part_of_a_mistyped_word() -> None:
    # 转一 sounds like 转移 and 建一 like 建议, but 一下 and 一个 are grammar, as the lexicon reads them.
    assert homophone_corrections("帮我转一下这个") == []
    assert homophone_corrections("帮我建一个表") == []


def test_a_long_request_reads_a_bounded_number_of_windows() -> None:
    # The longest windows are read first: past the bound, a long run's two-character windows are never reached.
    assert homophone_corrections("股加") == [("股加", "股价")]
    assert homophone_corrections("股加" + "查" * 1_000) == []


def no_vocabulary() -> Vocabulary:
    raise AssertionError("a Chinese request has no English word to correct against the index's vocabulary")


def test_a_correction_weighs_less_than_a_typed_word_and_remembers_what_was_typed() -> None:
    typos = [term for term in parse_query("每天的股加", lambda _: 1, no_vocabulary).terms if term.kind == "typo"]
    assert [(term.term, term.typed) for term in typos] == [("股价", "股加")]
    assert 0 < typos[0].weight < WORD_WEIGHT
    right = parse_query("每天的股价", lambda _: 1, no_vocabulary)
    assert not [term for term in right.terms if term.kind == "typo"]


@pytest.mark.parametrize(
    ("mistyped", "right", "tool"),
    [
        ("浏览器页面后腿", "浏览器页面后退", "browser.go_back"),
        ("特斯拉每天的股加", "特斯拉每天的股价", "stocks.get_stock_price"),
        ("把分类表跟新到最新版", "把分类表更新到最新版", "catalog-admin.update_categories"),
    ],
)
def test_a_request_with_a_homophone_typo_finds_what_the_request_typed_right_finds(
    engine: SearchEngine, mistyped: str, right: str, tool: str
) -> None:
    assert top(engine, right) == tool
    assert top(engine, mistyped) == tool


def test_the_reading_index_is_built_on_the_first_chinese_request_not_with_the_search_index() -> None:
    reading_index.cache_clear()
    built = SearchEngine()
    built.replace_server(ServerEntry("stocks", ()), [ToolEntry("stocks", "get_stock_price", "Get a stock price.")])
    built.search("stock price")
    assert reading_index.cache_info().currsize == 0
    built.search("股加")
    assert reading_index.cache_info().currsize == 1


_SYLLABLE = re.compile(r"[a-z]+")
_HAN = re.compile(r"[\u4e00-\u9fff]+")
_HAN_CHARACTER = re.compile(r"[\u4e00-\u9fff]")


def problems_of(text: str) -> list[str]:
    """Every way `text` breaks the pinyin table's format (`syllable: first | other`, `words: ...`), one sentence
    each with its line number, and characters with no first reading or more than one."""
    problems: list[str] = []
    first_of: dict[str, str] = {}
    listed: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        key, colon, rest = line.partition(":")
        if not colon or not _SYLLABLE.fullmatch(key):
            problems.append(f"line {number}: {line!r} does not start with a lower-case syllable and a colon")
            continue
        if key == NOT_TYPOS_KEY:
            bad = [word for word in rest.split() if not _HAN.fullmatch(word) or not 2 <= len(word) <= 5]
            problems.extend(f"line {number}: {word!r} is not a word of 2-5 characters" for word in bad)
            continue
        parts = [part.strip() for part in rest.split("|")]
        if len(parts) > 2 or not all(_HAN.fullmatch(part) for part in parts if part) or not any(parts):
            problems.append(f"line {number}: {rest!r} is not `characters`, `characters | characters` or `| characters`")
            continue
        if len(parts) == 1 and not parts[0]:
            problems.append(f"line {number}: {line!r} lists no characters")
            continue
        for character in parts[0]:
            if character in first_of:
                problems.append(f"line {number}: {character} already has its first reading {first_of[character]}")
            first_of[character] = key
        listed.update("".join(parts))
    problems.extend(f"{character} has no first reading" for character in sorted(listed - set(first_of)))
    return problems


def test_the_pinyin_table_keeps_its_format_and_reads_every_common_character() -> None:
    text = PINYIN_TABLE.read_text(encoding="utf-8")
    header = list(itertools.takewhile(lambda line: line.startswith("#"), text.splitlines()))
    assert any("benchmarks.pinyin_table" in line for line in header)
    assert problems_of(text) == []
    table = parse_table(text)
    common = {
        character
        for index in range(GB2312_LEVEL1_COUNT)
        for character in [bytes([0xB0 + index // 94, 0xA1 + index % 94]).decode("gb2312", errors="ignore")]
        if character
    }
    assert len(common) >= 3_700
    assert common <= table.readings.keys()
    assert set(_HAN_CHARACTER.findall("".join(known_words()))) <= table.readings.keys()
    assert not table.not_typos & known_words()
    assert len(text.encode()) < 64_000


def test_the_format_check_finds_malformed_lines() -> None:
    assert problems_of("shi: 是十 | 数\nshu: 数\nwords: 一下 超市") == []
    assert len(problems_of("Shi: 是\nshi 是\nshi: 是 | 十 | 时\nwords: 超")) == 4
    assert problems_of("shi: 是\nzi: 是") == ["line 2: 是 already has its first reading shi"]
    assert problems_of("shu: 数\nshuo: | 数") == []
    assert problems_of("shuo: | 数") == ["数 has no first reading"]
