"""A call held to the policy before it reaches its server: allowed, refused, or put to the person.

`confirm` asks through the client's elicitation (a form with no field: accepting is the confirmation), by the
`ask` of the call's asker, so every pairing of protocol eras asks as a tool's own question would
(`service/questions.py`). A client that cannot be asked, a decline, a cancel or no answer within
`MAX_ANSWER_SECONDS` refuse the call, with one sentence saying why and, where a person could not be asked,
which rule of config.json to change to allow it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

import anyio
import anyio.to_thread
import mcp_types as types

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.config import PolicyAction
from mcp_gateway.errors import CallRefusedError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.masking import SecretMask
from mcp_gateway.policy.rules import Decision, decide
from mcp_gateway.tokens import compact_json

Ask = Callable[[types.InputRequest], Awaitable[types.InputResponse | types.ErrorData]]
MAX_ANSWER_SECONDS = 600.0
"""As long as a tool's own question may wait for its person (`downstream/asking.py`)."""
MAX_SHOWN_ARGUMENTS_CHARS = 1000
"""How much of the arguments the person sees in the question: enough to tell what the call will do."""
NO_FIELDS: JsonObject = {"type": "object", "properties": {}}


async def enforce(
    rules: Mapping[str, PolicyAction],
    qualified: str,
    annotations: Mapping[str, object] | None,
    arguments: JsonObject,
    *,
    ask: Ask | None,
    secrets: SecretMask,
) -> None:
    """Return when the call of `qualified` may go to its server; raise `CallRefusedError` when it may not."""
    decision = refuse_if_denied(rules, qualified, annotations)
    if decision.action == "allow":
        return
    name = clip(qualified, MAX_ECHOED_NAME_CHARS)
    shown = await anyio.to_thread.run_sync(_shown_arguments, arguments, secrets)
    question = types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message=f"Allow the call of {name} with {shown}? (mcp-gateway asks: {_rule(decision)} says confirm.)",
            requested_schema=NO_FIELDS,
        )
    )
    answer: types.InputResponse | types.ErrorData | None = None
    if ask is not None:
        with anyio.move_on_after(MAX_ANSWER_SECONDS):
            answer = await ask(question)
    if isinstance(answer, types.ElicitResult):
        if answer.action == "accept":
            return
        said = "declined" if answer.action == "decline" else "cancelled"
        raise CallRefusedError(f"The user {said} the call of '{name}', so it was not called.")
    why = "gave no answer in time" if answer is None and ask is not None else "cannot ask the user (elicitation)"
    raise CallRefusedError(
        f"'{name}' needs the user's confirmation ({_rule(decision)} says confirm) and this client {why}, so it "
        f'was not called; to allow it without asking, set "{name}": "allow" in settings.policy of config.json.'
    )


def refuse_if_denied(
    rules: Mapping[str, PolicyAction], qualified: str, annotations: Mapping[str, object] | None
) -> Decision:
    """The policy's decision on a call of `qualified`, unless it is `deny`: then `CallRefusedError`. Checked before
    the call's arguments are, so a model is never asked to fix the arguments of a call that will be refused."""
    decision = decide(rules, qualified, annotations)
    if decision.action == "deny":
        raise CallRefusedError(
            f"'{clip(qualified, MAX_ECHOED_NAME_CHARS)}' is denied by this gateway's policy ({_rule(decision)} in "
            "settings.policy of config.json), so it was not called."
        )
    return decision


def _rule(decision: Decision) -> str:
    return f"the rule '{clip(decision.rule or '', MAX_ECHOED_NAME_CHARS)}'"


def _shown_arguments(arguments: JsonObject, secrets: SecretMask) -> str:
    return secrets.mask_clipped(compact_json(arguments), MAX_SHOWN_ARGUMENTS_CHARS)
