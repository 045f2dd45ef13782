"""Trust in what is behind the door: pinned definitions, the poisoning screen, and what is held for review.

Each tool, prompt and resource template a server lists is normalized and hashed (`definitions`); the pins file
(`pins.json` beside config.json) keeps what was approved per server and connection identity (`pins`); the
screen flags what only an attack needs (`screen`); `decisions.judge` says per definition: trusted, awaiting
review (and why) or rejected; the gate (`gate.Integrity`) keeps those verdicts in step with the catalog and the
file; `review` words what awaits a person, with a diff. The service (`service/trust.py`) applies it.
"""

from mcp_gateway.integrity.decisions import Verdict, judge
from mcp_gateway.integrity.definitions import Kind, digest, less_safe, normalized
from mcp_gateway.integrity.gate import Integrity, ServerVerdicts, resolution_of
from mcp_gateway.integrity.pins import PinsFile
from mcp_gateway.integrity.review import Awaiting, FirstSight, Review, held_items, visible
from mcp_gateway.integrity.screen import screened

__all__ = [
    "Awaiting",
    "FirstSight",
    "Integrity",
    "Kind",
    "PinsFile",
    "Review",
    "ServerVerdicts",
    "Verdict",
    "digest",
    "held_items",
    "judge",
    "less_safe",
    "normalized",
    "resolution_of",
    "screened",
    "visible",
]
