"""The policy: per tool, from `settings.policy` in config.json, allow, confirm (ask the person) or deny.

`decide` says which rule decides a call and what (`rules.py`, where the precedence is stated); `enforce` holds
a call to it before it reaches its server, asking the person through the client's elicitation for `confirm`
(`enforce.py`). A refused call raises `CallRefusedError`. The rules are read and checked with config.json
(`config/policy_rules.py`).
"""

from mcp_gateway.policy.enforce import enforce, refuse_if_denied
from mcp_gateway.policy.rules import Decision, decide

__all__ = ["Decision", "decide", "enforce", "refuse_if_denied"]
