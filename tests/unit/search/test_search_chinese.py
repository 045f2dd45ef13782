"""Chinese requests, written the way Chinese users ask, against a mostly English catalog.

Chinese users ask for English-described tools all the time; the bilingual lexicon is what lets
"把这个仓库还没关闭的 issue 列出来" find `list_issues`. The catalog below is written for these tests: a few
ordinary servers, two of them described in Chinese, so the Chinese descriptions compete as they do in real
catalogs.
"""

from __future__ import annotations

import pytest
from search_catalog import engine_with

from mcp_gateway.search import SearchEngine, ServerEntry, ToolEntry
from mcp_gateway.search.lexicon import cjk_units

Tool = tuple[str, str]

CATALOG: dict[str, tuple[tuple[str, ...], list[Tool]]] = {
    "filesystem": (
        ("文件系统",),
        [
            ("read_file", "Read the complete contents of a file from the file system."),
            ("write_file", "Create a new file or overwrite an existing file with new content."),
            ("delete_file", "Delete a file."),
            ("create_directory", "Create a new directory, or make sure it exists."),
            ("list_directory", "List the files and directories in a path."),
        ],
    ),
    "github": (
        ("gh", "代码仓库"),
        [
            ("list_issues", "List issues in a GitHub repository, filtered by state (open or closed)."),
            ("create_issue", "Create a new issue in a GitHub repository."),
            ("list_pull_requests", "List pull requests in a GitHub repository."),
            ("search_repositories", "Search for GitHub repositories."),
        ],
    ),
    "browser": (
        (),
        [
            ("take_screenshot", "Take a screenshot of the current page."),
            ("click", "Click an element on the page."),
            ("navigate", "Open a URL in the browser."),
        ],
    ),
    "mail": ((), [("send_email", "Send an email to one or more recipients."), ("search_emails", "Search emails.")]),
    "weather-cn": ((), [("get_forecast", "获取指定城市未来几天的天气预报"), ("get_alerts", "查询气象预警信息")]),
    "office-cn": (
        (),
        [
            ("ppt_list_files", "列出演示文稿目录中的所有文件"),
            ("ppt_delete_slide", "删除演示文稿中的一张幻灯片"),
            ("analyze_file", "分析文件内容并返回摘要"),
        ],
    ),
    "crypto": ((), [("get_price", "Get the current price of a cryptocurrency such as bitcoin or ethereum.")]),
    "translator": ((), [("translate_text", "Translate text into another language.")]),
}


@pytest.fixture(scope="module")
def engine() -> SearchEngine:
    built = SearchEngine()
    for server, (aliases, tools) in CATALOG.items():
        entries = [ToolEntry(server, name, description) for name, description in tools]
        built.replace_server(ServerEntry(server, aliases), entries)
    return built


def top(engine: SearchEngine, query: str, count: int = 3, **options: str) -> list[str]:
    return [f"{hit.server}.{hit.tool}" for hit in engine.search(query, limit=count, **options).hits]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("删除这个文件", "filesystem.delete_file"),
        ("读取文件内容", "filesystem.read_file"),
        ("写入文件", "filesystem.write_file"),
        ("创建一个新的目录", "filesystem.create_directory"),
        ("把这个仓库还没关闭的 issue 列出来", "github.list_issues"),
        ("列出所有的 pull request", "github.list_pull_requests"),
        ("截个图", "browser.take_screenshot"),
        ("点击这个按钮", "browser.click"),
        ("打开这个网页", "browser.navigate"),
        ("给我发一封邮件", "mail.send_email"),
        ("查询比特币价格", "crypto.get_price"),
        ("帮我翻译成英文", "translator.translate_text"),
        ("查一下北京明天的天气", "weather-cn.get_forecast"),
    ],
)
def test_a_chinese_request_finds_the_tool_that_does_it(engine: SearchEngine, query: str, expected: str) -> None:
    assert expected in top(engine, query)


def test_a_chinese_description_does_not_outrank_the_english_tool_that_matches_the_whole_request(
    engine: SearchEngine,
) -> None:
    # office-cn's descriptions contain 文件 and 删除 literally; the file deleter is still the answer.
    assert top(engine, "删除这个文件", count=1) == ["filesystem.delete_file"]


def test_a_one_character_query_still_finds_something(engine: SearchEngine) -> None:
    assert "weather-cn.get_forecast" in top(engine, "天")


def test_an_english_request_finds_a_tool_described_in_chinese(engine: SearchEngine) -> None:
    assert top(engine, "weather forecast for a city", count=1) == ["weather-cn.get_forecast"]


def test_a_chinese_alias_in_the_request_focuses_on_its_server(engine: SearchEngine) -> None:
    ranked = top(engine, "在代码仓库里搜索", count=2)
    assert ranked[0].startswith("github.")


def test_a_product_named_in_chinese_names_its_server_as_its_english_name_would() -> None:
    # 我的世界 is what Chinese players call Minecraft (the glossary says so); two servers find entities alike.
    finds = "Find the nearest entity of a given type."
    engine = engine_with({"roblox": [("find_entity", finds)], "minecraft": [("find-entity", finds)]})
    for query in ("find the nearest entity in minecraft", "在我的世界里找最近的实体"):
        assert top(engine, query, count=1) == ["minecraft.find-entity"], query


def test_a_chinese_look_it_up_weighs_no_more_than_the_english_search_it_stands_for() -> None:
    # 查一下 reads as search, a word most tools' text uses: typed in English it says little, and translated it
    # must not say more, or every Chinese request to look something up finds the search tools first.
    engine = engine_with(
        {
            "web": [("search", "Search the web for any query.")],
            "files": [("search_files", "Search files by name.")],
            "mail": [("search_emails", "Search emails by sender or subject.")],
            "geology": [("mineral_info", "Get information about a mineral.")],
        }
    )
    assert top(engine, "search this mineral", count=1) == ["geology.mineral_info"]
    assert top(engine, "帮我查一下这种矿物", count=1) == ["geology.mineral_info"]


def test_a_chinese_server_hint_resolves_by_alias(engine: SearchEngine) -> None:
    result = engine.search("列出来", server="文件系统")
    assert result.focused_server == "filesystem"
    assert all(hit.server == "filesystem" for hit in result.hits)


def test_a_clear_chinese_request_is_confident_and_says_why(engine: SearchEngine) -> None:
    hit = next(hit for hit in engine.search("删除文件").hits if hit.tool == "delete_file")
    assert hit.confidence == "high"
    assert any(reason.startswith("translation") for reason in hit.reasons)


def test_a_tool_only_on_the_topic_of_the_request_is_not_high(engine: SearchEngine) -> None:
    hits = {f"{hit.server}.{hit.tool}": hit for hit in engine.search("查询比特币价格").hits}
    assert hits["crypto.get_price"].confidence != "low"
    assert all(hit.confidence != "high" for name, hit in hits.items() if name != "crypto.get_price")


def test_a_chinese_request_is_judged_by_its_glossary_words_not_by_pieces_straddling_them() -> None:
    # 搜索 is a lexicon word; 字段 and 结果 are glossary words between lexicon words. Read as bigrams, the stretch
    # gave 些字, 段会 and 果里, pieces no tool has, which counted as what no server here is about.
    units = cjk_units("哪些字段会在搜索结果里返回")

    assert {"搜索", "字段", "结果", "返回"} <= set(units)
    assert {"些字", "段会", "果里"}.isdisjoint(units)
