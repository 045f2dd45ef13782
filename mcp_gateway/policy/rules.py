"""Which rule of `settings.policy` decides a tool call, and what it decides.

Precedence, in one sentence: a rule naming the tool exactly (`server.tool`, no wildcard) decides alone;
otherwise the strictest matching rule wins (deny over confirm over allow), so a server's annotations can only
tighten what a glob says, never loosen it; no matching rule allows. A hint rule matches a tool whose hint is
true, read as the MCP spec defines its default when the tool does not say: a tool is destructive and
open-world unless it says otherwise, and read-only only when it says so (a read-only tool is never
destructive).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from mcp_gateway.config import PolicyAction

STRICTNESS: dict[PolicyAction, int] = {"allow": 0, "confirm": 1, "deny": 2}
_WILDCARDS = frozenset("*?[")


@dataclass(frozen=True)
class Decision:
    action: PolicyAction
    rule: str | None
    """The key of the rule that decided; None when none matched."""


ALLOWED = Decision("allow", None)


def decide(rules: Mapping[str, PolicyAction], qualified: str, annotations: Mapping[str, object] | None) -> Decision:
    """What `rules` decide for the tool named `qualified` (`server.tool`) with `annotations` (as listed)."""
    if not rules:
        return ALLOWED  # the usual case, at every call
    exact = rules.get(qualified)
    if exact is not None and not _WILDCARDS & set(qualified):
        return Decision(exact, qualified)
    hints = _true_hints(annotations or {})
    matching = [
        Decision(action, key)
        for key, action in rules.items()
        if (key in hints) or (key not in HINT_TESTS and fnmatchcase(qualified, key))
    ]
    return max(matching, key=lambda decision: STRICTNESS[decision.action], default=ALLOWED)


def _read_only(annotations: Mapping[str, object]) -> bool:
    return annotations.get("readOnlyHint") is True


HINT_TESTS: dict[str, Callable[[Mapping[str, object]], bool]] = {
    "readOnlyHint": _read_only,
    "destructiveHint": lambda annotations: (
        not _read_only(annotations) and annotations.get("destructiveHint") is not False
    ),
    "openWorldHint": lambda annotations: annotations.get("openWorldHint") is not False,
}


def _true_hints(annotations: Mapping[str, object]) -> frozenset[str]:
    return frozenset(hint for hint, test in HINT_TESTS.items() if test(annotations))
