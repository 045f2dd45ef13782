"""Token counts shown to users: exact with tiktoken, and never thrown off by what a tool's text contains."""

from __future__ import annotations

from mcp_gateway.tokens import compact_json, estimate_tokens, token_counter


def test_text_that_looks_like_a_special_token_is_counted_as_plain_text() -> None:
    counter = token_counter()
    assert counter.exact
    assert counter.count("stop at <|endoftext|> please") > counter.count("stop at please")


def test_the_estimate_is_the_length_over_four_and_a_half_characters() -> None:
    assert estimate_tokens("x" * 45) == 10


def test_compact_json_has_no_spaces_and_keeps_non_ascii() -> None:
    assert compact_json({"a": [1, 2], "名": "值"}) == '{"a":[1,2],"名":"值"}'
