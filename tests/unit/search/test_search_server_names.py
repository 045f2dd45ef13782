"""One rule reads a server name for search, list, describe and execute: each step, its ambiguity, its limits."""

from __future__ import annotations

import pytest

from mcp_gateway.search.servers import (
    MAX_NEAR_MISS_CHARS,
    Ambiguous,
    Reading,
    Resolved,
    Unknown,
    resolve_server,
)

SERVERS: dict[str, tuple[str, ...]] = {
    "github": ("gh",),
    "filesystem": ("fs",),
    "slack": (),
    "kubernetes": ("k8s", "集群"),
}


def resolve(name: str, servers: dict[str, tuple[str, ...]] | None = None) -> Resolved | Ambiguous | Unknown:
    return resolve_server(name, (servers if servers is not None else SERVERS).items())


@pytest.mark.parametrize(
    ("name", "server", "reading"),
    [
        ("github", "github", "key"),
        ("gh", "github", "alias"),
        ("集群", "kubernetes", "alias"),
        ("GitHub", "github", "case"),
        ("GH", "github", "case"),
        (" slack ", "slack", "case"),
        ("git_hub", "github", "separators"),
        ("Git-Hub", "github", "separators"),
        ("K8S.", "kubernetes", "separators"),
        ("githb", "github", "near miss"),
        ("kubernets", "kubernetes", "near miss"),
        ("slak", "slack", "near miss"),
    ],
)
def test_each_step_of_the_rule_reads_a_name_as_one_server_and_says_how(
    name: str, server: str, reading: Reading
) -> None:
    assert resolve(name) == Resolved(server, reading)


def test_an_exact_key_wins_over_the_same_word_as_another_servers_alias() -> None:
    servers = {"github": ("gh",), "gh": ()}
    assert resolve("gh", servers) == Resolved("gh", "key")


def test_an_exact_alias_wins_over_a_key_equal_ignoring_case() -> None:
    servers = {"work-mail": ("Mail",), "mail": ()}
    assert resolve("Mail", servers) == Resolved("work-mail", "alias")


def test_an_alias_two_servers_share_is_ambiguous_at_the_alias_step() -> None:
    servers = {"mail-work": ("mail",), "mail-home": ("mail",)}
    assert resolve("mail", servers) == Ambiguous(("mail-home", "mail-work"), "alias")


def test_names_equal_ignoring_case_on_two_servers_are_ambiguous() -> None:
    servers = {"Notes": (), "notes": ()}
    assert resolve("NOTES", servers) == Ambiguous(("Notes", "notes"), "case")


def test_names_equal_ignoring_separators_on_two_servers_are_ambiguous() -> None:
    servers = {"my-notes": (), "my_notes": ()}
    assert resolve("MyNotes", servers) == Ambiguous(("my-notes", "my_notes"), "separators")


def test_a_near_miss_of_two_servers_alike_is_ambiguous_not_a_guess() -> None:
    servers = {"postgres-prod": (), "postgres-test": (), "slack": ()}
    assert resolve("postgres", servers) == Ambiguous(("postgres-prod", "postgres-test"), "near miss")


def test_a_near_miss_is_read_as_the_unique_best_even_when_another_server_comes_close() -> None:
    servers = {"github": (), "gitlab": ()}
    # 'githb' is 91 similar to github and 73 to gitlab: far enough apart for github to be the one meant.
    assert resolve("githb", servers) == Resolved("github", "near miss")


def test_a_near_miss_through_an_alias_reads_as_the_aliased_server() -> None:
    assert resolve("k8ss") == Resolved("kubernetes", "near miss")


def test_an_unknown_name_suggests_the_servers_that_come_close_enough() -> None:
    assert resolve("glthb") == Unknown(("github",))
    assert resolve("jira") == Unknown(())


def test_a_name_with_nothing_to_compare_after_normalization_is_unknown() -> None:
    assert resolve("--") == Unknown(())
    assert resolve("") == Unknown(())


def test_a_name_too_long_to_be_a_near_miss_is_only_compared_exactly() -> None:
    long_key = "g" * (MAX_NEAR_MISS_CHARS + 1)
    servers = {long_key: (), "github": ()}
    assert resolve(long_key, servers) == Resolved(long_key, "key")
    assert resolve(long_key.upper(), servers) == Resolved(long_key, "case")
    assert resolve("github" + "x" * MAX_NEAR_MISS_CHARS, servers) == Unknown(())


def test_no_servers_means_every_name_is_unknown() -> None:
    assert resolve("github", {}) == Unknown(())


def test_approximate_readings_are_marked_as_such() -> None:
    exact = [resolve(name) for name in ("github", "gh", "GitHub")]
    approximate = [resolve(name) for name in ("git_hub", "githb")]
    assert all(isinstance(reading, Resolved) and not reading.approximate for reading in exact)
    assert all(isinstance(reading, Resolved) and reading.approximate for reading in approximate)
