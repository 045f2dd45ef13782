"""Each reader of search notes hears each live config edit once: the news is kept in order, never consumed."""

from __future__ import annotations

from mcp_gateway.config.diff import ConfigChanges
from mcp_gateway.service.config_news import ConfigNews, Reader, reading_as


def untold(news: ConfigNews, reader: Reader | None = None) -> tuple[dict[str, bool] | None, str | None]:
    if reader is None:
        return news.untold()
    with reading_as(reader):
        return news.untold()


def test_every_session_hears_an_edit_once_even_one_opened_after_it() -> None:
    news = ConfigNews()
    first, second = Reader(), Reader()
    news.applied(ConfigChanges(added=("new",), removed=("old",)))
    late = Reader()  # its instructions, as every session's, were built when the gateway started
    assert untold(news, first) == ({"new": True, "old": False}, None)
    assert untold(news, first) == (None, None)
    assert untold(news, second) == ({"new": True, "old": False}, None)
    assert untold(news, late) == ({"new": True, "old": False}, None)
    assert untold(news) == ({"new": True, "old": False}, None), "the command line's own reader hears it too"


def test_a_server_added_then_removed_is_said_as_its_last_edit_left_it_and_other_changes_without_names() -> None:
    news = ConfigNews()
    reader = Reader()
    news.applied(ConfigChanges(added=("svc",)))
    news.applied(ConfigChanges(removed=("svc",)))
    news.applied(ConfigChanges(settings=("toolSearchLimit",)))
    assert untold(news, reader) == ({"svc": False}, None)
    news.applied(ConfigChanges(changed=("other",)))
    assert untold(news, reader) == ({}, None), "something changed, no server came or went"


def test_a_refused_edit_is_said_once_to_each_session_and_again_when_refused_anew() -> None:
    news = ConfigNews()
    first, second = Reader(), Reader()
    news.refused("config.json was edited but cannot be used: invalid JSON")
    assert untold(news, first) == (None, "config.json was edited but cannot be used: invalid JSON")
    assert untold(news, first) == (None, None)
    assert untold(news, second)[1] is not None
    news.resolved()
    assert untold(news, second) == (None, None)
    news.refused("config.json was edited but cannot be used: invalid JSON")
    assert untold(news, first)[1] is not None, "the same mistake made again is news again"
