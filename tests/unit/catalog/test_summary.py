"""What the catalog's digest says of each server, and `cache-digest.json` beside cache.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcp_gateway.catalog import (
    EMPTY_DIGEST,
    MAX_ABOUT_CHARS,
    MAX_SUMMARY_TOOL_CHARS,
    MAX_SUMMARY_TOOLS,
    CacheStore,
    ServerCatalog,
    ToolRecord,
    parse_digest,
    serialize_digest,
    summarize,
)

EVERYTHING_INSTRUCTIONS = "# Everything Server - Server Instructions\n\nAudience: These instructions are for an LLM."


def entry(
    server: str = "srv",
    *tools: str,
    server_title: str | None = None,
    server_description: str | None = None,
    server_name: str | None = None,
    instructions: str | None = None,
) -> ServerCatalog:
    return ServerCatalog(
        server=server,
        fingerprint=f"fp-{server}",
        fetched_at=1.0,
        tools=tuple(ToolRecord(name) for name in tools or ("one",)),
        server_name=server_name,
        instructions=instructions,
        server_title=server_title,
        server_description=server_description,
    )


def store_in(tmp_path: Path) -> CacheStore:
    return CacheStore(tmp_path / "cache.json", tmp_path / "cache.json.lock")


# ---- what is said of a server ----


def test_the_server_description_says_what_it_is_before_its_title_and_instructions() -> None:
    summary = summarize(
        entry(server_description="Issues and code.", server_title="Hub", instructions="Use owner/repo.")
    )
    assert summary.about == "Issues and code."


def test_a_title_that_only_restates_the_server_name_is_passed_over_for_the_instructions() -> None:
    summary = summarize(
        entry("github", server_title="GitHub", server_name="github-mcp", instructions="Use owner/repo.")
    )
    assert summary.about == "Use owner/repo."
    assert summarize(entry("everything", server_title="Everything Reference Server")).about == (
        "Everything Reference Server"
    )


def test_the_lead_of_the_instructions_loses_its_markdown_marks() -> None:
    assert summarize(entry(instructions=EVERYTHING_INSTRUCTIONS)).about == "Everything Server - Server Instructions"
    assert summarize(entry(instructions="\n\n  - **Notes** kept in a file\nmore")).about == "Notes kept in a file"


def test_a_server_that_says_nothing_about_itself_has_no_about() -> None:
    assert summarize(entry(instructions="  \n\n", server_title=None)).about is None


def test_about_is_one_line_cut_at_a_word_with_an_ellipsis() -> None:
    about = summarize(entry(server_description="word\nwrapped " * 40)).about
    assert about is not None
    assert len(about) <= MAX_ABOUT_CHARS
    assert "\n" not in about
    assert about.endswith("…")
    assert about.removesuffix("…").split(" ")[-1] in {"word", "wrapped"}


def test_tool_names_vary_first_by_leading_word_and_are_bounded() -> None:
    names = ["get_issue", "get_pr", "list_issues", "listPrs", "create_issue", "x" * (MAX_SUMMARY_TOOL_CHARS + 1)]
    names += [f"extra_{n}" for n in range(20)]
    tools = summarize(entry("srv", *names)).tools
    assert tools[:4] == ("get_issue", "list_issues", "create_issue", "extra_0")
    assert len(tools) == MAX_SUMMARY_TOOLS
    assert all(len(name) <= MAX_SUMMARY_TOOL_CHARS for name in tools)


# ---- the file format ----


def test_the_digest_round_trips_every_server_and_the_cache_signature() -> None:
    entries = [entry("a", "t1", server_title="Alpha tools"), entry("b", "t2")]
    digest = parse_digest(serialize_digest(entries, (11, 22, 33)))
    assert digest.cache == (11, 22, 33)
    assert digest.servers == {"a": summarize(entries[0]), "b": summarize(entries[1])}


@pytest.mark.parametrize(
    "data",
    [b"not json", b"[]", b'{"version": 2, "servers": {}}', b'{"version": 1, "servers": []}', b'{"version": 1}'],
)
def test_an_unusable_digest_is_an_empty_one(data: bytes) -> None:
    assert parse_digest(data) == EMPTY_DIGEST


def test_an_unsound_entry_is_left_out_and_the_others_kept() -> None:
    document = {
        "version": 1,
        "cache": {"mtimeNs": 1, "size": 2},
        "servers": {
            "good": {"fingerprint": "fp", "about": "Fine.", "tools": ["t"]},
            "no-fingerprint": {"about": "x"},
            "long-about": {"fingerprint": "fp", "about": "x" * (MAX_ABOUT_CHARS + 1)},
            "too-many-tools": {"fingerprint": "fp", "tools": ["t"] * (MAX_SUMMARY_TOOLS + 1)},
        },
    }
    digest = parse_digest(json.dumps(document).encode())
    assert list(digest.servers) == ["good"]
    assert digest.cache is None  # the signature lacks its inode: the digest is not known to match any file


# ---- beside cache.json ----


def test_every_write_of_the_cache_writes_a_digest_of_what_it_holds(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.save_server(entry("a", server_title="Alpha tools"))
    view = store.save_server(entry("b"))
    digest = store.load_digest()
    assert set(digest.servers) == {"a", "b"}
    assert digest.servers["a"].about == "Alpha tools"
    assert view.signature is not None
    assert digest.cache == (view.signature.mtime_ns, view.signature.size, view.signature.inode)
    store.remove_servers(["a"])
    assert set(store.load_digest().servers) == {"b"}


def test_a_digest_that_does_not_match_the_cache_is_rewritten_when_the_cache_is_loaded(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.save_server(entry("a"))
    store.digest_path.unlink()  # as an older gateway leaves a workspace: cache.json alone
    assert store.load_digest() == EMPTY_DIGEST
    view = store.load()
    store.refresh_digest(view)
    assert set(store.load_digest().servers) == {"a"}
    written = store.digest_path.stat().st_mtime_ns
    store.refresh_digest(store.load())  # matching now: left alone
    assert store.digest_path.stat().st_mtime_ns == written


def test_a_digest_planted_as_a_link_is_not_read_and_a_write_replaces_the_link_not_its_target(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"version": 1, "servers": {"evil": {"fingerprint": "fp", "about": "planted"}}}))
    os.symlink(target, store.digest_path)
    assert store.load_digest() == EMPTY_DIGEST
    store.save_server(entry("a"))
    assert not store.digest_path.is_symlink()
    assert set(store.load_digest().servers) == {"a"}
    assert "planted" in target.read_text()


def test_a_digest_that_cannot_be_written_costs_nothing_but_the_digest(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.digest_path.mkdir(parents=True)  # a directory where the file should be: the rename fails
    view = store.save_server(entry("a"))
    assert set(view.servers) == {"a"}
    assert set(store.load().servers) == {"a"}
    assert store.load_digest() == EMPTY_DIGEST
