"""What the gateway decides about one listed definition: trusted, awaiting review (and why), or rejected.

- A server with no pins for its connection identity is seen for the first time: its listing is trusted as the
  user put the server there (`trust: "manual"` instead holds every definition for review), except what the
  screen flags.
- On a known server, a definition whose digest is pinned is trusted unless its hints got less safe; one that
  is new or changed awaits review, saying what changed; one whose digest was rejected stays out, unasked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_gateway.integrity.definitions import Kind, changed_fields, digest, hints, less_safe, normalized
from mcp_gateway.integrity.pins import Pin, ServerPins
from mcp_gateway.integrity.screen import screened

State = Literal["trusted", "awaiting", "rejected"]
NEW_ON_KNOWN = "new on a server already approved"
MANUAL = 'a new server, and trust is "manual"'


@dataclass(frozen=True)
class Verdict:
    kind: Kind
    name: str
    state: State
    reason: str
    """Empty when trusted; else one clause: "changed since approved: description", "flagged: …"."""
    digest: str
    definition: dict[str, Any]
    hints: dict[str, Any]
    pin: Pin | None = None
    """What was approved before, for a diff; None when nothing was."""
    first_sight: bool = False
    """Trusted because the server is seen for the first time: to be pinned so."""
    noted: tuple[str, ...] = field(default=())
    """Hint changes that are not less safe: shown by a review, not held."""

    @property
    def held(self) -> bool:
        return self.state != "trusted"


def judge(server: ServerPins | None, kind: Kind, listed: Mapping[str, Any], *, manual: bool) -> Verdict:
    """The verdict on `listed` (a definition as its server listed it) given the server's pins (None: unknown)."""
    name = str(listed.get("name", ""))
    found = digest(listed, kind)
    shape, said = normalized(listed, kind), hints(listed) if kind == "tool" else {}

    def verdict(state: State, reason: str = "", **more: Any) -> Verdict:
        return Verdict(kind, name, state, reason, found, shape, said, **more)

    pin = server.pins[kind].get(name) if server is not None else None
    if pin is not None and pin.digest == found:
        worse = less_safe(pin.hints, said)
        if worse:
            return verdict("awaiting", f"its hints got less safe: {', '.join(worse)}", pin=pin)
        noted = () if pin.hints == said else ("its annotations changed",)
        return verdict("trusted", pin=pin, noted=noted)
    if server is not None and server.rejected[kind].get(name) == found:
        return verdict("rejected", "rejected at a review", pin=pin)
    flags = screened(listed)
    if server is None and not manual and not flags:
        return verdict("trusted", first_sight=True)
    if server is None:
        why = MANUAL if manual else ""
    elif pin is None:
        why = NEW_ON_KNOWN
    else:
        worse = less_safe(pin.hints, said)
        why = f"changed since approved: {', '.join(changed_fields(pin.definition, shape) + worse)}"
    flagged = f"flagged: {'; '.join(flags)}" if flags else ""
    return verdict("awaiting", "; ".join(filter(None, (why, flagged))), pin=pin)
