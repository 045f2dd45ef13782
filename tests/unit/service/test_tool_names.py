"""Qualified-name resolution against a directory of servers and their cached tools."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest
from gateway_testing import load, write_workspace
from protocol.inprocess_fakes import FakeDownstream, InProcessConnector

from mcp_gateway.catalog import ToolRecord
from mcp_gateway.errors import (
    AmbiguousToolError,
    ToolCallError,
    ToolNotAllowedError,
    UnknownServerError,
    UnknownToolError,
)
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.names import ResolvedTool, ToolDirectory, resolve_server_name, resolve_tool

WAIT_SECONDS = 10.0
"""Each gateway test starts in-process servers only; this bounds it on a busy machine, it is not a timing."""


@dataclass
class FakeDirectory:
    """Servers → tool names; everything else configurable per test."""

    tools: dict[str, list[str]]
    alias_map: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    disabled: set[str] = field(default_factory=set[str])
    hidden: set[tuple[str, str]] = field(default_factory=set[tuple[str, str]])
    rejected_entries: dict[str, str] = field(default_factory=dict[str, str])

    def server_keys(self) -> Sequence[str]:
        return list(self.tools)

    def aliases(self, server: str) -> Sequence[str]:
        return self.alias_map.get(server, [])

    def is_disabled(self, server: str) -> bool:
        return server in self.disabled

    def rejected(self) -> Mapping[str, str]:
        return self.rejected_entries

    def find(self, server: str, tool: str) -> ToolRecord | None:
        return ToolRecord(name=tool) if tool in self.tools.get(server, []) else None

    def allowed(self, server: str, tool: str) -> bool:
        return (server, tool) not in self.hidden

    def tool_names(self, server: str) -> Sequence[str]:
        return [name for name in self.tools.get(server, []) if self.allowed(server, name)]


def directory(**overrides: object) -> ToolDirectory:
    base = FakeDirectory(
        tools={
            "github": ["create_issue", "list_issues", "search"],
            "filesystem": ["read_file", "write_file", "search"],
            "slack": ["send_message"],
        },
        alias_map={"github": ["gh"], "filesystem": ["fs"]},
    )
    for key, value in overrides.items():
        setattr(base, key, value)
    return base


def where(resolved: ResolvedTool) -> tuple[str, str]:
    return resolved.server, resolved.tool.name


def test_a_qualified_name_resolves_to_its_server_and_tool() -> None:
    resolved = resolve_tool(directory(), "github.create_issue")
    assert where(resolved) == ("github", "create_issue")
    assert resolved.qualified == "github.create_issue"


def test_an_alias_works_as_the_prefix_of_a_qualified_name() -> None:
    resolved = resolve_tool(directory(), "gh.create_issue")
    assert where(resolved) == ("github", "create_issue")
    assert resolved.qualified == "github.create_issue"


def test_a_bare_name_on_exactly_one_server_is_accepted() -> None:
    assert where(resolve_tool(directory(), "send_message")) == ("slack", "send_message")


def test_a_bare_name_on_several_servers_is_ambiguous_and_lists_the_candidates() -> None:
    with pytest.raises(AmbiguousToolError) as caught:
        resolve_tool(directory(), "search")
    assert sorted(caught.value.candidates) == ["filesystem.search", "github.search"]
    assert "github.search" in caught.value.message
    assert "filesystem.search" in caught.value.message
    assert "qualified name" in caught.value.message


def test_a_server_key_with_a_dot_resolves_by_the_longest_prefix() -> None:
    dotted = FakeDirectory(tools={"a.b": ["c"], "a": ["b.c", "x"]})
    assert where(resolve_tool(dotted, "a.b.c")) == ("a.b", "c")
    assert where(resolve_tool(dotted, "a.x")) == ("a", "x")


def test_a_tool_name_with_a_dot_is_reachable_on_the_shorter_server_key() -> None:
    dotted = FakeDirectory(tools={"a.b": ["c"], "a": ["b.c"]})
    assert where(resolve_tool(dotted, "a.b.c", server="a")) == ("a", "b.c")
    assert where(resolve_tool(dotted, "b.c", server="a")) == ("a", "b.c")
    assert where(resolve_tool(dotted, "c", server="a.b")) == ("a.b", "c")


def test_a_qualified_name_falls_back_to_a_shorter_server_key_when_the_longer_one_lacks_the_tool() -> None:
    dotted = FakeDirectory(tools={"a.b": ["other"], "a": ["b.c"]})
    assert where(resolve_tool(dotted, "a.b.c")) == ("a", "b.c")


def test_the_server_argument_with_a_bare_name_picks_that_servers_tool() -> None:
    assert where(resolve_tool(directory(), "search", server="filesystem")) == ("filesystem", "search")


@pytest.mark.parametrize(
    ("tool", "server"),
    [("github.search", "github"), ("gh.search", "github"), ("github.search", "gh"), ("search", "GH")],
)
def test_the_server_argument_together_with_a_qualified_name_resolves_once(tool: str, server: str) -> None:
    assert where(resolve_tool(directory(), tool, server=server)) == ("github", "search")


def test_a_tool_of_a_disabled_server_is_refused_as_disabled() -> None:
    with pytest.raises(ToolNotAllowedError, match="disabled"):
        resolve_tool(directory(disabled={"slack"}), "slack.send_message")
    with pytest.raises(ToolNotAllowedError, match="disabled"):
        resolve_tool(directory(disabled={"slack"}), "send_message")


def test_a_bare_name_shared_with_a_disabled_server_resolves_to_the_enabled_one() -> None:
    assert where(resolve_tool(directory(disabled={"github"}), "search")) == ("filesystem", "search")


def test_an_excluded_tool_is_refused_naming_the_include_and_exclude_filters() -> None:
    hidden = directory(hidden={("github", "create_issue")})
    for name in ("github.create_issue", "create_issue"):
        with pytest.raises(ToolNotAllowedError) as caught:
            resolve_tool(hidden, name)
        assert "includeTools/excludeTools" in caught.value.message


def test_a_bare_name_shared_with_an_excluded_tool_resolves_to_the_allowed_one() -> None:
    assert where(resolve_tool(directory(hidden={("github", "search")}), "search")) == ("filesystem", "search")


def test_an_unknown_qualified_tool_suggests_the_closest_name_on_that_server() -> None:
    with pytest.raises(UnknownToolError) as caught:
        resolve_tool(directory(), "github.create_isue")
    assert "did you mean 'create_issue'" in caught.value.message
    assert "list_tools" in caught.value.message


def test_an_unknown_bare_tool_suggests_a_qualified_name() -> None:
    with pytest.raises(UnknownToolError) as caught:
        resolve_tool(directory(), "send_mesage")
    assert "did you mean 'slack.send_message'" in caught.value.message
    assert "search_tools" in caught.value.message


def test_an_unknown_tool_never_suggests_a_hidden_one() -> None:
    with pytest.raises(UnknownToolError) as caught:
        resolve_tool(directory(hidden={("github", "create_issue")}), "github.create_isue")
    assert "'create_issue'" not in caught.value.message


def test_an_unknown_server_argument_is_an_unknown_server_with_a_suggestion() -> None:
    with pytest.raises(UnknownServerError) as caught:
        resolve_tool(directory(), "search", server="glthb")
    assert "did you mean 'github'" in caught.value.message
    assert "search_tools" in caught.value.message


def test_a_server_rejected_by_config_validation_is_named_as_invalid_not_unknown() -> None:
    broken = directory(rejected_entries={"jira": "url: must start with https://"})
    with pytest.raises(ToolNotAllowedError) as caught:
        resolve_server_name(broken, "jira")
    assert "invalid entry" in caught.value.message
    assert "must start with https://" in caught.value.message


@pytest.mark.parametrize(
    ("name", "expected"),
    [("github", "github"), ("gh", "github"), ("GitHub", "github"), ("git_hub", "github"), ("githb", "github")],
)
def test_a_server_name_resolves_by_key_alias_case_separators_or_a_near_miss(name: str, expected: str) -> None:
    assert resolve_server_name(directory(), name) == expected
    assert resolve_tool(directory(), "search", server=name).server == expected


def test_a_server_name_near_two_servers_alike_is_refused_naming_both() -> None:
    twins = FakeDirectory(tools={"postgres-prod": ["query"], "postgres-test": ["query"]})
    with pytest.raises(AmbiguousToolError) as caught:
        resolve_server_name(twins, "postgres")
    assert caught.value.candidates == ["postgres-prod", "postgres-test"]
    assert "postgres-prod" in caught.value.message
    assert "postgres-test" in caught.value.message


def test_a_server_name_equal_to_two_keys_but_for_case_is_refused_naming_both() -> None:
    twins = FakeDirectory(tools={"Notes": ["add"], "notes": ["add"]})
    with pytest.raises(AmbiguousToolError) as caught:
        resolve_tool(twins, "add", server="NOTES")
    assert caught.value.candidates == ["Notes", "notes"]


def test_a_rejected_entry_named_exactly_is_not_read_as_a_near_miss_of_another_server() -> None:
    broken = directory(tools={"jiraa": ["create_ticket"]}, rejected_entries={"jira": "url: must start with https://"})
    assert resolve_server_name(broken, "Jira-A") == "jiraa"
    with pytest.raises(ToolNotAllowedError) as caught:
        resolve_server_name(broken, "jira")
    assert "invalid entry" in caught.value.message


def shared_alias_directory() -> ToolDirectory:
    return FakeDirectory(
        tools={"mail-work": ["send_email"], "mail-home": ["send_email"]},
        alias_map={"mail-work": ["mail"], "mail-home": ["mail"]},
    )


def test_a_qualified_name_with_an_alias_two_servers_share_is_ambiguous() -> None:
    with pytest.raises(AmbiguousToolError) as caught:
        resolve_tool(shared_alias_directory(), "mail.send_email")
    assert sorted(caught.value.candidates) == ["mail-home.send_email", "mail-work.send_email"]


def test_a_server_argument_naming_an_alias_two_servers_share_is_refused_naming_both() -> None:
    with pytest.raises(ToolCallError) as caught:
        resolve_server_name(shared_alias_directory(), "mail")
    assert "mail-home" in caught.value.message
    assert "mail-work" in caught.value.message


# ---- the gateway's four operations read a server name alike ----


@asynccontextmanager
async def gateway_over(home: Path, *downstreams: FakeDownstream) -> AsyncGenerator[Gateway]:
    """A gateway whose servers are in-process fakes; none is listed until an operation needs it."""
    servers = {d.name: {"command": "in-process", "aliases": list(ALIASES.get(d.name, ()))} for d in downstreams}
    workspace = write_workspace(home, servers)
    async with Gateway(workspace, load(workspace), connector=InProcessConnector(*downstreams)) as gateway:
        yield gateway


ALIASES = {"github": ("gh",)}


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["github", "gh", "GitHub", "git_hub", "githb"])
async def test_search_list_describe_and_execute_read_a_server_name_as_the_same_server(
    tmp_path: Path, name: str
) -> None:
    github, gitlab = FakeDownstream("github"), FakeDownstream("gitlab")
    with anyio.fail_after(WAIT_SECONDS):
        async with gateway_over(tmp_path, github, gitlab) as gateway:
            report = await gateway.search("echo a message", server=name)
            page = await gateway.list_tools(name)
            described = await gateway.describe("echo", server=name)
            result = await gateway.execute("echo", {"message": "hi"}, server=name)
    assert report.focused_server == "github"
    assert {hit.tool.server for hit in report.hits} == {"github"}
    assert page.server == "github"
    assert described.tool.qualified == "github.echo"
    assert result["content"] == [{"type": "text", "text": "hi"}]
    assert (github.calls, gitlab.calls) == (["echo"], [])


@pytest.mark.anyio
async def test_search_list_describe_and_execute_all_refuse_a_name_near_two_servers_alike(tmp_path: Path) -> None:
    prod, test = FakeDownstream("postgres-prod"), FakeDownstream("postgres-test")
    with anyio.fail_after(WAIT_SECONDS):
        async with gateway_over(tmp_path, prod, test) as gateway:
            await gateway.refresh()
            report = await gateway.search("echo a message", server="postgres")
            refusals: list[AmbiguousToolError] = []
            operations: list[Callable[[], Awaitable[object]]] = [
                lambda: gateway.list_tools("postgres"),
                lambda: gateway.describe("echo", server="postgres"),
                lambda: gateway.execute("echo", {"message": "hi"}, server="postgres"),
            ]
            for operation in operations:
                with pytest.raises(AmbiguousToolError) as caught:
                    await operation()
                refusals.append(caught.value)
    assert report.focused_server is None
    assert report.notes == (
        "The server hint 'postgres' could mean postgres-prod, postgres-test; searched all servers instead.",
    )
    assert [refusal.candidates for refusal in refusals] == [["postgres-prod", "postgres-test"]] * 3
    assert (prod.calls, test.calls) == ([], [])


@pytest.mark.anyio
async def test_search_list_describe_and_execute_all_call_an_unknown_name_unknown(tmp_path: Path) -> None:
    github = FakeDownstream("github")
    with anyio.fail_after(WAIT_SECONDS):
        async with gateway_over(tmp_path, github) as gateway:
            await gateway.refresh()
            report = await gateway.search("echo a message", server="glthb")
            messages: list[str] = []
            operations: list[Callable[[], Awaitable[object]]] = [
                lambda: gateway.list_tools("glthb"),
                lambda: gateway.describe("echo", server="glthb"),
                lambda: gateway.execute("echo", {"message": "hi"}, server="glthb"),
            ]
            for operation in operations:
                with pytest.raises(UnknownServerError) as caught:
                    await operation()
                messages.append(caught.value.message)
    assert report.focused_server is None
    assert report.notes == ("No server matches the hint 'glthb'; searched all servers instead.",)
    assert all("did you mean 'github'" in message for message in messages)
    assert github.calls == []
