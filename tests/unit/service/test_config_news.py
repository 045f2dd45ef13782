"""Each reader of search notes hears each live config edit once: the news is kept in order, never consumed; a file
that cannot be used is a state every reader is told of until it is fixed."""

from __future__ import annotations

from mcp_gateway.config import ConfigChanges
from mcp_gateway.service.config_news import ConfigNews, Reader, reading_as


def untold(news: ConfigNews, reader: Reader | None = None) -> dict[str, bool] | None:
    if reader is None:
        return news.untold()
    with reading_as(reader):
        return news.untold()


def test_every_session_hears_an_edit_once_even_one_opened_after_it() -> None:
    news = ConfigNews()
    first, second = Reader(), Reader()
    news.applied(ConfigChanges(added=("new",), removed=("old",)))
    late = Reader()  # its instructions, as every session's, were built when the gateway started
    assert untold(news, first) == {"new": True, "old": False}
    assert untold(news, first) is None
    assert untold(news, second) == {"new": True, "old": False}
    assert untold(news, late) == {"new": True, "old": False}
    assert untold(news) == {"new": True, "old": False}, "the command line's own reader hears it too"


def test_a_server_added_then_removed_is_said_as_its_last_edit_left_it_and_other_changes_without_names() -> None:
    news = ConfigNews()
    reader = Reader()
    news.applied(ConfigChanges(added=("svc",)))
    news.applied(ConfigChanges(removed=("svc",)))
    news.applied(ConfigChanges(settings=("toolSearchLimit",)))
    assert untold(news, reader) == {"svc": False}
    news.applied(ConfigChanges(changed=("other",)))
    assert untold(news, reader) == {}, "something changed, no server came or went"


def test_a_file_that_cannot_be_used_is_a_state_until_it_is_resolved() -> None:
    news = ConfigNews()
    news.refused("config.json cannot be used: invalid JSON at line 1, column 9")
    assert news.problem == "config.json cannot be used: invalid JSON at line 1, column 9"
    assert untold(news, Reader()) is None, "no edit was applied: nothing changed under the sessions"
    news.resolved()
    assert news.problem is None
