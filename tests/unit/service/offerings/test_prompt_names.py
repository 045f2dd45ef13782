"""How downstream prompts are named for the client: `server__prompt`, shortened deterministically when it must be."""

from __future__ import annotations

import re

from mcp_gateway.service.offerings import HASH_CHARS, MAX_PROMPT_NAME_CHARS, PromptNames, PromptRef

CLAUDE_CODE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def test_a_short_plain_name_is_server_two_underscores_prompt_and_reads_back() -> None:
    names = PromptNames([PromptRef("everything", "args-prompt")])
    assert names.name(PromptRef("everything", "args-prompt")) == "everything__args-prompt"
    assert names.ref("everything__args-prompt") == PromptRef("everything", "args-prompt")
    assert names.ref("everything__other") is None


def test_two_servers_with_the_same_prompt_name_get_two_names() -> None:
    refs = [PromptRef("a", "summarize"), PromptRef("b", "summarize")]
    names = PromptNames(refs)
    assert [names.name(ref) for ref in refs] == ["a__summarize", "b__summarize"]


def test_a_too_long_name_is_cut_to_the_limit_with_a_hash_and_is_the_same_in_every_session() -> None:
    ref = PromptRef("a-server-with-a-rather-long-name", "and-a-prompt-whose-name-goes-on-and-on-and-on")
    name = PromptNames([ref]).name(ref)
    assert len(name) == MAX_PROMPT_NAME_CHARS
    assert name.startswith("a-server-with-a-rather-long-name__and-a-prompt")
    assert re.fullmatch(rf".*-[0-9a-f]{{{HASH_CHARS}}}", name)
    assert PromptNames([PromptRef("x", "y"), ref]).name(ref) == name, "deterministic, whatever else is listed"
    assert PromptNames([ref]).ref(name) == ref


def test_two_long_names_that_share_their_first_64_characters_stay_apart() -> None:
    stem = "p" * 80
    refs = [PromptRef("s", f"{stem}-one"), PromptRef("s", f"{stem}-two")]
    names = PromptNames(refs)
    assert names.name(refs[0]) != names.name(refs[1])
    assert [names.ref(names.name(ref)) for ref in refs] == refs


def test_odd_characters_are_made_underscores_and_names_that_would_then_collide_are_told_apart() -> None:
    refs = [PromptRef("docs", "review code"), PromptRef("docs", "review_code"), PromptRef("docs", "résumé/ü")]
    names = PromptNames(refs)
    shown = [names.name(ref) for ref in refs]
    assert shown[1] == "docs__review_code", "a usable name keeps its plain form"
    assert shown[0].startswith("docs__review_code-"), "the odd one is shortened form: readable, hashed"
    assert len(set(shown)) == 3
    assert all(CLAUDE_CODE_NAME.fullmatch(name) for name in shown)


def test_a_server_key_holding_two_underscores_reads_back_from_the_table_not_by_splitting() -> None:
    refs = [PromptRef("a__b", "c"), PromptRef("a", "b__c")]
    names = PromptNames(refs)
    assert names.name(refs[0]) != names.name(refs[1]), "both read a__b__c: told apart by a hash"
    assert [names.ref(names.name(ref)) for ref in refs] == refs
