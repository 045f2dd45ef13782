"""`settings.policy` read rule by rule: a bad rule is said at its JSON path and never opens the door.

Each key is a glob over the `server.tool` names the gateway gives tools (`github.delete_*`, `*`) or an
annotation hint (`destructiveHint`, `openWorldHint`, `readOnlyHint`); each value is `allow`, `confirm` or
`deny`. A value that is none of them is read as `deny` (a typo must not allow what was meant to be kept
out); a key that is neither a glob nor a hint cannot be matched, so its rule is left out. What the rules mean
together is `mcp_gateway.policy`'s.
"""

from __future__ import annotations

from typing import cast, get_args

from mcp_gateway.config.diagnostics import DiagnosticReport, did_you_mean, join_path
from mcp_gateway.config.models import PolicyAction

HINTS = ("destructiveHint", "openWorldHint", "readOnlyHint")
ACTIONS: tuple[PolicyAction, ...] = get_args(PolicyAction)
GLOB_CHARACTERS = frozenset("*?[")


def checked_policy(raw: object, path: str, report: DiagnosticReport) -> dict[str, PolicyAction]:
    """The usable rules of `raw` (the `policy` setting as written); each problem reported under `path`."""
    if not isinstance(raw, dict):
        report.error(path, "'policy' must be an object of rules; no rule is used", '{"github.delete_*": "deny"}')
        return {}
    rules: dict[str, PolicyAction] = {}
    for key, value in cast(dict[str, object], raw).items():
        where = join_path(path, key)
        hint = next((hint for hint in HINTS if hint.lower() == key.lower()), None)
        if hint is None and "." not in key and not GLOB_CHARACTERS & set(key):
            guess = did_you_mean(key, HINTS)
            report.error(
                where,
                f"'{key}' is neither a tool ('server.tool', with * and ? as wildcards) nor an annotation hint "
                f"({', '.join(HINTS)}); the rule is left out",
                guess or f"'{key}.*' for every tool of a server '{key}'",
            )
            continue
        action = value.strip().lower() if isinstance(value, str) else None
        if action not in ACTIONS:
            report.error(where, 'a rule must say "allow", "confirm" or "deny"; it is read as "deny"', '"confirm"')
            action = "deny"
        rules[hint or key] = action
    return rules
