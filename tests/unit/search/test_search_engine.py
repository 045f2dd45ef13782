"""SearchEngine: ranking, the bilingual lexicon, typos, server intent, notes and absolute confidence."""

from __future__ import annotations

import itertools

import pytest
from search_catalog import SERVERS, Tool, add_server, build_engine, engine_with, ranked

from mcp_gateway.search import SearchEngine, SearchResult, ServerEntry, ToolEntry
from mcp_gateway.search.confidence import RankedTool
from mcp_gateway.wording import counted, said


@pytest.fixture
def engine() -> SearchEngine:
    return build_engine()


def hit_of(result: SearchResult, qualified: str) -> RankedTool:
    for hit in result.hits:
        if f"{hit.server}.{hit.tool}" == qualified:
            return hit
    raise AssertionError(f"{qualified} not among {ranked(result)}")


def two_tool_engine(*tools: tuple[str, str]) -> SearchEngine:
    engine = SearchEngine()
    engine.replace_server(ServerEntry("svc"), [ToolEntry("svc", name, description) for name, description in tools])
    return engine


# ---- words: identifiers, stems, stop words ----


def test_a_query_in_plain_words_finds_a_camel_case_tool_name(engine: SearchEngine) -> None:
    assert ranked(engine.search("list pull requests"))[0] == "github.listPullRequests"


def test_a_query_in_plain_words_finds_a_kebab_case_tool_name(engine: SearchEngine) -> None:
    assert ranked(engine.search("deployment logs"))[0] == "kubernetes.get-deployment-logs"


def test_inflected_query_words_meet_the_base_forms_in_tool_names(engine: SearchEngine) -> None:
    assert ranked(engine.search("reading files"))[0] == "filesystem.read_file"
    assert ranked(engine.search("deleting a repositories"))[0] == "github.delete_repository"


def test_a_query_of_stop_words_only_matches_nothing(engine: SearchEngine) -> None:
    result = engine.search("what is the")
    assert result.hits == ()


# ---- CJK and the lexicon ----


def test_a_one_character_chinese_query_finds_a_tool_whose_chinese_description_contains_it(
    engine: SearchEngine,
) -> None:
    assert ranked(engine.search("天"))[0] == "weather.get_forecast"


def test_a_chinese_word_query_finds_a_tool_with_a_chinese_description(engine: SearchEngine) -> None:
    assert ranked(engine.search("天气预报"))[0] == "weather.get_forecast"


def test_a_chinese_query_finds_an_english_described_tool_through_the_lexicon(engine: SearchEngine) -> None:
    assert "filesystem.delete_file" in ranked(engine.search("删除文件"))[:3]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("浏览器切换到第二个标签页", "browser.switch_tab"), ("把存着的那个张量放大两倍", "numeric.scale_tensor")],
)
def test_a_chinese_query_finds_an_english_described_tool_through_the_glossary(query: str, expected: str) -> None:
    # Neither 标签页 (tab) nor 张量 (tensor) is a lexicon word: only the glossary of catalog words bridges them.
    engine = engine_with(
        {
            "browser": [("switch_tab", "Switch to a tab by its index."), ("open_page", "Open a URL in the browser.")],
            "numeric": [("scale_tensor", "Scale a tensor by a factor."), ("store_matrix", "Store a matrix by name.")],
        }
    )
    assert ranked(engine.search(query))[0] == expected


def test_a_chinese_query_for_sending_a_message_finds_the_english_send_message_tool(engine: SearchEngine) -> None:
    assert ranked(engine.search("发送消息"))[0] == "slack.send_message"


@pytest.mark.parametrize(
    ("query", "tools", "expected"),
    [
        ("remove a note", [("delete_note", "Delete a note."), ("rename_note", "Rename a note.")], "delete_note"),
        ("delete a note", [("remove_note", "Remove a note."), ("rename_note", "Rename a note.")], "remove_note"),
        ("star a repo", [("star_repository", "Star a repository."), ("star_gist", "Star a gist.")], "star_repository"),
        ("star a repository", [("star_repo", "Star a repo."), ("star_gist", "Star a gist.")], "star_repo"),
        (
            "k8s status",
            [("kubernetes_status", "Kubernetes status."), ("redis_status", "Redis status.")],
            "kubernetes_status",
        ),
        ("kubernetes status", [("k8s_status", "K8s status."), ("redis_status", "Redis status.")], "k8s_status"),
    ],
)
def test_synonyms_work_in_both_directions(query: str, tools: list[tuple[str, str]], expected: str) -> None:
    result = two_tool_engine(*tools).search(query)
    assert ranked(result)[0] == f"svc.{expected}"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("delete a reaction", "slack.remove_reaction"),
        ("erase a file", "filesystem.delete_file"),
        ("remove a file", "filesystem.delete_file"),  # a strict xfail until the English glossary (`remove` → delete)
        ("remove a repo", "github.delete_repository"),  # a strict xfail until the name fit (`fits.py`)
    ],
)
def test_an_english_synonym_finds_the_tool_named_with_the_other_word(
    engine: SearchEngine, query: str, expected: str
) -> None:
    assert ranked(engine.search(query))[0] == expected


def test_a_misspelled_query_word_still_finds_the_tool(engine: SearchEngine) -> None:
    result = engine.search("serach code")
    assert ranked(result)[0] == "github.search_code"
    assert any("typo" in reason for reason in result.hits[0].reasons)


def test_a_misspelled_tool_name_still_finds_the_tool(engine: SearchEngine) -> None:
    assert ranked(engine.search("delete_fille"))[0] == "filesystem.delete_file"


# ---- exact names ----


@pytest.mark.parametrize("query", ["create_issue", "createIssue", "create-issue", "github.create_issue"])
def test_an_exact_tool_name_query_ranks_that_tool_first_with_high_confidence(engine: SearchEngine, query: str) -> None:
    result = engine.search(query)
    assert ranked(result)[0] == "github.create_issue"
    assert result.hits[0].confidence == "high"
    assert "the query names this tool" in result.hits[0].reasons


# ---- server intent ----


@pytest.mark.parametrize(
    ("query", "server"),
    [
        ("list on github", "github"),
        ("gh list", "github"),
        ("list k8s", "kubernetes"),
        ("kubernetes list", "kubernetes"),
    ],
)
def test_a_query_naming_a_server_by_key_or_alias_ranks_that_servers_tools_first(
    engine: SearchEngine, query: str, server: str
) -> None:
    result = engine.search(query)
    # "list" is in the names of tools on three servers; the server word decides.
    assert result.hits[0].server == server


def test_a_server_name_with_a_stop_word_in_it_is_named_by_a_request_without_it() -> None:
    # A request never keeps "for" as a word, so a name phrase holding it ("call for papers") could never be whole.
    engine = engine_with(
        {
            "call-for-papers-mcp": [("get_events", "Search academic conferences and events by keyword.")],
            "eventbrite": [("search_events", "Search events near a place by keyword.")],
        }
    )
    result = engine.search("which calls for papers close next week in Europe, find events")
    assert result.hits[0].server == "call-for-papers-mcp"


def test_a_server_key_naming_its_transport_is_named_by_the_service_alone() -> None:
    # Users key a server by how it is reached too (`amap-amap-sse`); a request says "Amap", never "sse".
    engine = engine_with(
        {
            "amap-amap-sse": [("maps_weather", "Weather of a city by its name or code.")],
            "weather-service": [("get_weather_forecast", "Weather forecast for a city, by day.")],
        }
    )
    result = engine.search("what will the weather be in Wuhan tomorrow according to Amap")
    assert result.hits[0].server == "amap-amap-sse"


@pytest.mark.parametrize("name", ["OpenStreetMap", "OSM"])
def test_a_listing_name_with_a_parenthesis_is_named_by_either_of_its_names(name: str) -> None:
    # Listings name a server `OpenStreetMap (OSM) MCP Server`: a request says one name or the other, never both.
    engine = SearchEngine()
    finds = "Find schools near a point, within a radius."
    engine.replace_server(ServerEntry("places-db"), [ToolEntry("places-db", "find_schools", finds)])
    alias = ("OpenStreetMap (OSM) MCP Server",)
    engine.replace_server(ServerEntry("osm-mcp-server", alias), [ToolEntry("osm-mcp-server", "find_schools", finds)])
    result = engine.search(f"find schools near me with {name}")
    assert result.hits[0].server == "osm-mcp-server"


def test_a_server_hint_restricts_results_to_that_server(engine: SearchEngine) -> None:
    result = engine.search("list", server="github")
    assert result.hits
    assert {hit.server for hit in result.hits} == {"github"}
    assert result.focused_server == "github"
    assert result.notes == ()


@pytest.mark.parametrize("hint", ["gh", "GitHub", "git_hub", "githb"])
def test_a_server_hint_may_be_an_alias_another_spelling_or_a_near_miss(engine: SearchEngine, hint: str) -> None:
    result = engine.search("delete", server=hint)
    assert result.focused_server == "github"
    assert [hit.tool for hit in result.hits] == ["delete_repository"]


def test_an_ambiguous_server_hint_searches_all_servers_and_says_so() -> None:
    servers = {
        **SERVERS,
        "mail-work": ((), [("send_email", "Send an email from the work account.", ())]),
        "mail-home": ((), [("send_email", "Send an email from the home account.", ())]),
    }
    engine = build_engine(servers)
    result = engine.search("send", server="mail")
    assert result.focused_server is None
    assert {"mail-work", "mail-home", "slack"} <= {hit.server for hit in result.hits}
    (note,) = [said(note).for_model() for note in result.notes]
    assert "mail-home" in note
    assert "mail-work" in note
    assert "searched all servers" in note


def test_an_unknown_server_hint_searches_all_servers_and_says_so(engine: SearchEngine) -> None:
    result = engine.search("delete", server="jira")
    assert result.focused_server is None
    assert {hit.server for hit in result.hits} >= {"filesystem", "github"}
    assert result.notes == ("No server matches the hint 'jira'; searched all servers instead.",)


def test_a_query_matching_nothing_lists_the_servers_with_their_tool_counts(engine: SearchEngine) -> None:
    result = engine.search("quantum entanglement")
    assert result.hits == ()
    (note,) = result.notes
    for server, (_, tools) in SERVERS.items():
        assert f"{server} ({counted(len(tools), 'tool')})" in said(note).for_model()


def test_a_query_matching_nothing_within_a_hinted_server_points_to_list_tools(engine: SearchEngine) -> None:
    result = engine.search("forecast", server="slack")
    assert result.hits == ()
    assert [said(note).for_model() for note in result.notes] == [
        "No tool of 'slack' matched 'forecast'; call list_tools with server 'slack' to see them all."
    ]


def test_an_empty_engine_says_no_tools_are_known() -> None:
    assert SearchEngine().search("anything").notes == ("No tools are known yet.",)


def test_the_limit_caps_the_number_of_hits(engine: SearchEngine) -> None:
    assert len(engine.search("file", limit=2).hits) == 2
    assert len(engine.search("file", limit=0).hits) == 1


# ---- confidence ----


def test_a_weak_query_does_not_make_its_best_hit_high(engine: SearchEngine) -> None:
    result = engine.search("translate a document into French")
    assert result.hits
    assert result.hits[0].confidence != "high"


@pytest.mark.parametrize("query", ["get", "list"])
def test_a_query_of_only_a_generic_verb_gives_no_high_confidence_hit(engine: SearchEngine, query: str) -> None:
    result = engine.search(query)
    assert result.hits
    assert all(hit.confidence != "high" for hit in result.hits)


def test_a_qualified_name_query_is_high_only_for_the_tool_it_names(engine: SearchEngine) -> None:
    result = engine.search("filesystem.delete_file")
    assert ranked(result)[0] == "filesystem.delete_file"
    assert [hit.tool for hit in result.hits if hit.confidence == "high"] == ["delete_file"]


def test_a_tool_related_only_by_topic_is_not_high(engine: SearchEngine) -> None:
    assert hit_of(engine.search("kubernetes pods"), "kubernetes.get-deployment-logs").confidence != "high"


def test_a_tool_matching_only_the_verb_of_the_query_is_not_high(engine: SearchEngine) -> None:
    assert hit_of(engine.search("remove a file"), "slack.remove_reaction").confidence != "high"


def _unrelated_tools() -> list[Tool]:
    verbs = ["create", "update", "archive", "rename", "share", "export"]
    objects = ["invoice", "calendar_event", "contact", "playlist", "spreadsheet", "ticket", "channel"]
    return [
        (f"{verb}_{obj}", f"{verb.title()} the {obj.replace('_', ' ')} of the user.", ())
        for verb, obj in itertools.product(verbs, objects)
    ]


@pytest.mark.parametrize("query", ["remove a file", "delete file", "删除文件", "erase the file", "file"])
def test_adding_unrelated_tools_does_not_change_a_hits_confidence(query: str) -> None:
    alone = SearchEngine()
    add_server(alone, "filesystem", ("fs",), SERVERS["filesystem"][1])
    crowded = build_engine()
    add_server(crowded, "office", (), _unrelated_tools())
    before = hit_of(alone.search(query), "filesystem.delete_file").confidence
    after = hit_of(crowded.search(query), "filesystem.delete_file").confidence
    assert before == after


def test_a_strong_match_alone_is_high_and_below_an_as_good_one_it_is_medium_and_names_it() -> None:
    engine = SearchEngine()
    add_server(engine, "filesystem", (), [("delete_file", "Delete a file", ())])
    assert hit_of(engine.search("remove a file"), "filesystem.delete_file").confidence == "high"
    add_server(engine, "trash", (), [("remove_file", "Remove a file from the disk and the trash.", ())])
    result = engine.search("remove a file")
    assert ranked(result)[0] == "trash.remove_file"
    second = hit_of(result, "filesystem.delete_file")
    assert second.confidence == "medium"
    assert "ranked below trash.remove_file" in second.reasons


def test_each_hit_explains_why_it_matched(engine: SearchEngine) -> None:
    hit = hit_of(engine.search("remove a file"), "filesystem.delete_file")
    assert "synonym delete: remove" in hit.reasons
    assert "name: file" in hit.reasons
