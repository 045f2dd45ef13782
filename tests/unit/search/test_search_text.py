"""Text analysis: identifier splitting, light stemming, stop words, CJK n-grams and the lexicon."""

from __future__ import annotations

import pytest

from mcp_gateway.search import lexicon, text
from mcp_gateway.search.lexicon import concepts_of
from mcp_gateway.search.text import CJK_FILLER, analyze, forget_analyses, split_identifier, stem


@pytest.mark.parametrize(
    ("identifier", "parts"),
    [
        ("getUserInfo", ["get", "user", "info"]),
        ("list_issues", ["list", "issues"]),
        ("get-deployment-logs", ["get", "deployment", "logs"]),
        ("web-search.v2", ["web", "search", "v", "2"]),
        ("HTTPServer2", ["http", "server", "2"]),
        ("listPullRequests", ["list", "pull", "requests"]),
    ],
)
def test_identifiers_split_on_camel_case_snake_kebab_and_dots(identifier: str, parts: list[str]) -> None:
    assert split_identifier(identifier) == parts


def test_a_camel_case_name_is_also_indexed_as_one_joined_word() -> None:
    words = analyze("GitHub").words
    assert "github" in words
    assert {"git", "hub"} <= set(words)


@pytest.mark.parametrize(
    "forms",
    [
        ("file", "files"),
        ("create", "creates", "created", "creating"),
        ("list", "lists", "listed", "listing"),
        ("repository", "repositories"),
        ("delete", "deletes", "deleted", "deleting"),
    ],
)
def test_plural_and_ing_ed_forms_share_one_stem(forms: tuple[str, ...]) -> None:
    assert len({stem(form) for form in forms}) == 1


def test_stemming_leaves_words_that_only_look_plural_alone() -> None:
    assert stem("news") != stem("new")
    assert stem("analysis") == "analysis"


def test_stemming_does_not_merge_general_and_generate() -> None:
    assert stem("general") != stem("generate")


def test_stop_words_and_filler_are_dropped() -> None:
    assert analyze("Please help me get the contents of a file for my user").words == (
        "get",
        "content",
        "file",
        "user",
    )


def test_what_contractions_leave_at_the_apostrophe_is_dropped() -> None:
    # Straight and curly apostrophes alike: the letters after one are not words of the request.
    assert analyze("I\u2019m sure it's a repo I've cloned, you're right, we'll see, I'd say, don't").words == (
        "sure",
        "repo",
        "clone",
        "right",
        "see",
        "say",
        "don",
    )


def test_a_cjk_run_becomes_its_characters_and_bigrams() -> None:
    terms = analyze("天气预报")
    assert terms.cjk_runs == ("天气预报",)
    assert {"天", "气", "预", "报", "天气", "气预", "预报"} == set(terms.words)


def test_cjk_filler_characters_are_not_terms_on_their_own() -> None:
    words = analyze("我的文件").words
    assert "我" not in words
    assert "的" not in words
    assert "文件" in words


def test_mixed_english_and_chinese_text_keeps_both() -> None:
    terms = analyze("列出 GitHub 的 issue")
    assert "github" in terms.words
    assert stem("issue") in terms.words
    assert "列出" in terms.words


@pytest.mark.parametrize(
    ("english", "chinese", "concept"),
    [
        ("delete", "删除", "~delete"),
        ("remove", "移除", "~delete"),
        ("repo", "仓库", "~repository"),
        ("k8s", "集群", "~kubernetes"),
        ("file", "文件", "~file"),
    ],
)
def test_the_lexicon_maps_english_words_and_chinese_words_to_the_same_concept(
    english: str, chinese: str, concept: str
) -> None:
    assert concept in concepts_of((stem(english),), ())
    assert concept in concepts_of((), (chinese,))


def test_the_lexicon_finds_chinese_words_inside_an_unsegmented_run() -> None:
    concepts = concepts_of((), ("帮我删除这个文件",))
    assert "~delete" in concepts
    assert "~file" in concepts


def test_a_two_word_english_phrase_maps_to_its_concept_only_as_a_phrase() -> None:
    assert "~pull_request" in concepts_of(("pull", "request"), ())
    assert "~pull_request" not in concepts_of(("pull",), ())


def test_every_two_word_phrase_and_every_chinese_word_of_the_lexicon_is_found_on_its_own() -> None:
    tables = lexicon._tables()  # pyright: ignore[reportPrivateUsage]
    for (first, second), concepts in tables.pairs.items():
        assert set(concepts) <= set(concepts_of((first, second), ())), (first, second)
    for word in tables.chinese:
        if len(word) > 1 or word not in CJK_FILLER:
            assert lexicon.segment_spans(word)[0] == (0, word)


def test_the_cache_of_runs_stays_within_its_bound_and_answers_as_a_fresh_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = [f"listPullRequests{n} get_user_{n} 读取文件{n} files PRs k8s" for n in range(40)]
    expected = [analyze(each) for each in texts]
    forget_analyses()
    monkeypatch.setattr(text, "MAX_CACHED_RUNS", 8)
    try:
        for each, terms in zip(texts, expected, strict=True):
            assert analyze(each) == terms
            assert len(text._RUN_TERMS) <= 8  # pyright: ignore[reportPrivateUsage]
    finally:
        forget_analyses()


def test_a_text_without_cjk_and_one_with_it_split_into_the_same_english_terms() -> None:
    assert analyze("Read the files of GitHub PRs").words == analyze("Read the files of GitHub PRs 读取").words[:-3]
    assert analyze("Read the files 读取").cjk_runs == ("读取",)
    assert analyze("Read the files").cjk_runs == ()
