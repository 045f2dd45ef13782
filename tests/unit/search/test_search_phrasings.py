"""Several phrasings of one need in one search: each ranked on its own and fused, the best judgement kept."""

from __future__ import annotations

from search_catalog import build_engine, ranked

from mcp_gateway.search import SearchEngine
from mcp_gateway.search.engine import MAX_ALTERNATIVES


def test_an_alternative_phrasing_finds_the_tool_the_first_one_misses() -> None:
    engine = build_engine()
    assert engine.search("check on my workloads").hits == ()
    fused = engine.search("check on my workloads", alternatives=["list kubernetes pods"])
    assert ranked(fused)[0] == "kubernetes.pods_list"


def test_a_hit_is_judged_by_the_phrasing_that_fits_it_best() -> None:
    engine = build_engine()
    vague = engine.search("get rid of a repo")
    assert [hit.confidence for hit in vague.hits if hit.tool == "delete_repository"] == ["low"]
    fused = engine.search("get rid of a repo", alternatives=["delete a github repository"])
    assert [hit.confidence for hit in fused.hits if hit.tool == "delete_repository"] == ["high"]
    reversed_order = engine.search("delete a github repository", alternatives=["get rid of a repo"])
    assert [hit.confidence for hit in reversed_order.hits if hit.tool == "delete_repository"] == ["high"]


def test_no_alternatives_or_blank_ones_leave_the_search_as_it_was() -> None:
    engine = build_engine()
    plain = engine.search("deployment logs")
    assert engine.search("deployment logs", alternatives=[]) == plain
    assert engine.search("deployment logs", alternatives=["", "   "]) == plain


def test_alternatives_beyond_the_bound_are_not_searched() -> None:
    engine = build_engine()
    fillers = ["deployment logs"] * MAX_ALTERNATIVES
    beyond = engine.search("deployment logs", alternatives=[*fillers, "send a slack message"])
    within = engine.search("deployment logs", alternatives=fillers)
    assert ranked(beyond) == ranked(within)
    assert "slack.send_message" not in ranked(beyond)


def test_alternatives_respect_a_server_hint() -> None:
    engine: SearchEngine = build_engine()
    result = engine.search("remove", alternatives=["send a message", "list pods"], server="slack")
    assert {hit.server for hit in result.hits} == {"slack"}
