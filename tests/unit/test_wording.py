"""Next steps as data: the model reads the meta-tool to call, a person the command to type, from one message."""

from __future__ import annotations

import pytest

from mcp_gateway.cli.people import PersonWords
from mcp_gateway.errors import InvalidArgumentsError, UnknownToolError
from mcp_gateway.wording import Message, Step, counted, said, step_for_model

FIND = Message.of("No tool named 'x'; ", Step("search"), " to find the right tool.")


@pytest.mark.parametrize(
    ("step", "model", "person"),
    [
        (Step("search"), "call search_tools", 'run mcp-gateway search "<what you want to do>"'),
        (Step("list", server="github"), "call list_tools with server 'github'", "run mcp-gateway list github"),
        (Step("list", server="github", again=True), "call list_tools again", "run mcp-gateway list github again"),
        (Step("list", imperative=False), "list_tools", "mcp-gateway list <server>"),
        (Step("repeat", again=True), "call again", "run the command again"),
        (Step("describe", imperative=False), "describe_tool", "mcp-gateway describe <server.tool>"),
        (
            Step("describe", server="gh", tool="gh.get issue", again=True),
            "call describe_tool again",
            "run mcp-gateway describe 'gh.get issue' again",
        ),
        (
            Step("execute", server="demo", tool="demo.add", again=True),
            "call execute_tool again",
            "run mcp-gateway call demo.add --args '<JSON object>' again",
        ),
        (
            Step("login", server="my web"),
            "run `mcp-gateway login my web` in a terminal",
            "run mcp-gateway login 'my web'",
        ),
    ],
)
def test_each_audience_words_the_same_step_its_own_way(step: Step, model: str, person: str) -> None:
    assert step_for_model(step) == model
    assert PersonWords().step(step) == person


def test_the_model_reads_the_words_it_always_read_and_a_person_reads_a_command() -> None:
    assert FIND.for_model() == "No tool named 'x'; call search_tools to find the right tool."
    told = PersonWords().told(FIND)
    assert told == "No tool named 'x'; run mcp-gateway search \"<what you want to do>\" to find the right tool."
    assert "search_tools" not in told


def test_a_person_who_ran_with_home_is_told_commands_with_the_same_home() -> None:
    words = PersonWords("/tmp/my home")
    assert words.step(Step("list", server="fake")) == "run mcp-gateway --home '/tmp/my home' list fake"


def test_an_error_keeps_its_step_as_data_and_its_message_for_the_model() -> None:
    error = UnknownToolError(FIND)
    assert error.message == FIND.for_model()
    assert error.said == FIND
    assert PersonWords().failure(error).message == PersonWords().told(FIND)


def test_an_error_made_of_a_plain_sentence_is_that_sentence_for_everyone() -> None:
    error = InvalidArgumentsError("Nothing to fix.", [])
    assert error.message == PersonWords().told(error.said) == "Nothing to fix."


def test_masking_an_error_masks_its_text_and_the_names_its_steps_carry() -> None:
    error = UnknownToolError(
        Message.of("Server 'srv-s3cret' has no tool; ", Step("list", server="srv-s3cret"), " to see its tools.")
    )
    error.redact(lambda text: text.replace("s3cret", "***"))
    assert "s3cret" not in error.message
    assert "s3cret" not in PersonWords().told(error.said)
    assert (
        PersonWords().told(error.said)
        == "Server 'srv-***' has no tool; run mcp-gateway list 'srv-***' to see its tools."
    )


def test_a_plain_sentence_is_said_as_is() -> None:
    assert said("Plain.").for_model() == PersonWords().told("Plain.") == "Plain."


@pytest.mark.parametrize(
    ("count", "noun", "expected"),
    [(0, "tool", "0 tools"), (1, "tool", "1 tool"), (2, "tool", "2 tools"), (1, "enabled server", "1 enabled server")],
)
def test_counts_read_singular_for_one_and_plural_otherwise(count: int, noun: str, expected: str) -> None:
    assert counted(count, noun) == expected


def test_a_sign_in_is_a_step_for_the_person_behind_the_model_and_the_person_at_the_shell() -> None:
    from mcp_gateway.downstream.translate import sign_in_required

    error = sign_in_required("web")
    assert (
        error.message == "Server 'web' needs you to sign in: run `mcp-gateway login web` in a terminal, then try again."
    )
    assert PersonWords("/ws").told(error.said) == (
        "Server 'web' needs you to sign in: run mcp-gateway --home /ws login web, then try again."
    )
