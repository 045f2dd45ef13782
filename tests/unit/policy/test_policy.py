"""The policy: which rule decides (an exact name alone; else the strictest), how hints read the spec's defaults,
how config.json's rules are checked, and what `enforce` does with each answer a person can give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from mcp_gateway.config import load_config
from mcp_gateway.errors import CallRefusedError
from mcp_gateway.masking import SecretMask
from mcp_gateway.policy import Decision, decide, enforce

pytestmark = pytest.mark.anyio

RULES: dict[str, Any] = {
    "*": "allow",
    "github.delete_*": "deny",
    "github.delete_gist": "allow",
    "destructiveHint": "confirm",
    "fs.*": "confirm",
}


@pytest.mark.parametrize(
    ("tool", "annotations", "expected"),
    [
        ("github.delete_repo", {"readOnlyHint": True}, Decision("deny", "github.delete_*")),
        ("github.delete_gist", {}, Decision("allow", "github.delete_gist")),  # named exactly: it alone decides
        ("github.search", {"readOnlyHint": True}, Decision("allow", "*")),
        ("github.create_issue", {}, Decision("confirm", "destructiveHint")),  # unsaid: destructive, as the spec says
        ("github.create_issue", {"destructiveHint": False}, Decision("allow", "*")),
        ("fs.read", {"readOnlyHint": True}, Decision("confirm", "fs.*")),  # a hint never loosens a glob
    ],
)
def test_an_exact_name_decides_alone_and_otherwise_the_strictest_matching_rule_wins(
    tool: str, annotations: dict[str, object], expected: Decision
) -> None:
    assert decide(RULES, tool, annotations) == expected


def test_no_rule_allows_and_hints_read_the_spec_defaults() -> None:
    assert decide({}, "a.b", None) == Decision("allow", None)
    assert decide({"openWorldHint": "deny"}, "a.b", None).action == "deny"
    assert decide({"openWorldHint": "deny"}, "a.b", {"openWorldHint": False}).action == "allow"
    assert decide({"readOnlyHint": "deny"}, "a.b", {}).action == "allow"
    assert decide({"readOnlyHint": "deny"}, "a.b", {"readOnlyHint": True}).action == "deny"
    # a read-only tool is not destructive, whatever else it says
    assert decide({"destructiveHint": "deny"}, "a.b", {"readOnlyHint": True, "destructiveHint": True}).action == "allow"


def test_config_keeps_good_rules_reads_a_bad_action_as_deny_and_leaves_out_what_cannot_match(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    policy = {"github.*": "Confirm", "destructivehint": "deny", "x.y": "block", "github": "allow"}
    path.write_text(json.dumps({"version": 1, "settings": {"policy": policy, "auditValues": True}}))
    config = load_config(path)
    assert config.settings.policy == {"github.*": "confirm", "destructiveHint": "deny", "x.y": "deny"}
    assert config.settings.audit_values is True
    said = {diagnostic.json_path: diagnostic for diagnostic in config.diagnostics}
    assert (
        said['settings.policy["x.y"]'].message == 'a rule must say "allow", "confirm" or "deny"; it is read as "deny"'
    )
    assert "'github.*' for every tool of a server 'github'" in str(said["settings.policy.github"])


def test_a_policy_that_is_not_an_object_is_said_and_no_rule_is_used(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"version": 1, "settings": {"policy": ["github.*"]}}))
    config = load_config(path)
    assert config.settings.policy == {}
    assert [d.json_path for d in config.diagnostics] == ["settings.policy"]


class Person:
    """A client's elicitation: answers with `answer`, and keeps what it was asked."""

    def __init__(self, answer: types.ElicitResult | types.ErrorData) -> None:
        self.answer = answer
        self.asked: list[types.InputRequest] = []

    async def ask(self, request: types.InputRequest) -> types.InputResponse | types.ErrorData:
        self.asked.append(request)
        return self.answer


SECRETS = SecretMask(["Zx9-secretValue-0123456789"])


async def test_confirm_asks_the_person_with_the_arguments_masked_and_an_accept_lets_the_call_go() -> None:
    person = Person(types.ElicitResult(action="accept"))
    arguments = {"path": "/tmp/x", "token": "Zx9-secretValue-0123456789"}
    await enforce({"fs.*": "confirm"}, "fs.write", {}, arguments, ask=person.ask, secrets=SECRETS)
    (question,) = person.asked
    assert isinstance(question, types.ElicitRequest)
    message = question.params.message
    assert '"path":"/tmp/x"' in message
    assert "Zx9-secretValue" not in message
    assert "fs.write" in message


@pytest.mark.parametrize(("action", "said"), [("decline", "declined"), ("cancel", "cancelled")])
async def test_a_decline_or_a_cancel_refuses(action: Any, said: str) -> None:
    person = Person(types.ElicitResult(action=action))
    with pytest.raises(CallRefusedError) as refused:
        await enforce({"fs.*": "confirm"}, "fs.write", {}, {}, ask=person.ask, secrets=SECRETS)
    assert refused.value.message == f"The user {said} the call of 'fs.write', so it was not called."


async def test_a_client_that_cannot_be_asked_is_refused_with_the_rule_that_would_allow_it() -> None:
    cannot = Person(types.ErrorData(code=-32600, message="no elicitation"))
    for ask in (cannot.ask, None):
        with pytest.raises(CallRefusedError) as refused:
            await enforce({"destructiveHint": "confirm"}, "fs.write", {}, {}, ask=ask, secrets=SECRETS)
        assert refused.value.message == (
            "'fs.write' needs the user's confirmation (the rule 'destructiveHint' says confirm) and this client "
            'cannot ask the user (elicitation), so it was not called; to allow it without asking, set "fs.write": '
            '"allow" in settings.policy of config.json.'
        )


async def test_deny_refuses_without_asking() -> None:
    person = Person(types.ElicitResult(action="accept"))
    with pytest.raises(CallRefusedError, match="denied by this gateway's policy"):
        await enforce({"fs.write": "deny"}, "fs.write", {}, {}, ask=person.ask, secrets=SECRETS)
    assert person.asked == []
