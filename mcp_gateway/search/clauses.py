"""Multi-step requests split into their steps, so each step's tool can surface.

"Generate a report on bitcoin and save it to /root/report.md" needs two tools; scored as one bag of words,
the report tools take every top place and the file writer none. A long request is therefore also split at
sentence and step boundaries ("and then", ";", "然后", …), each step is ranked on its own, and the rankings
are fused with the whole request's by reciprocal rank. Short requests are left whole.
"""

from __future__ import annotations

import re

from mcp_gateway.search.text import analyze

MIN_WORDS_TO_SPLIT = 8
"""Analyzed words a request needs before it is treated as possibly several steps. Chosen by hand in fe8f172
(step fusion as a whole: task R@5 .540 → .552). Measured: 6 → unchanged; 12 → .451/.785/.572, .573."""
MIN_CLAUSE_WORDS = 2
"""Analyzed words a piece needs to be ranked as a step of its own (one word is a fragment, not a task). Chosen
by hand in fe8f172. Measured: 1 → task R@5 .569; 3 → .453/.784/.573, .577."""
MAX_CLAUSES = 4
"""Steps ranked separately at most, a bound on a long request's cost (b7d2fc1). Measured: 2 → .453/.784/.573,
.573 (task MRR .438 → .408); 6 → task R@5 .561."""
_BOUNDARY = re.compile(
    r"""
    [.;!?\n]+(?=\s|$)                                   # sentence ends
  | ,?\s+(?:and\s+then|then|after\s+that|afterwards|finally|next|also|and\s+also)\s+
  | ,\s*and\s+ | \s+and\s+(?=(?:save|write|send|create|store|put|email|post|upload|export|convert|generate|make|add)\b)
  | [，。；！？\n] | 然后 | 并且 | 接着 | 之后 | 最后 | 再把 | 并把
    """,
    re.VERBOSE | re.IGNORECASE,
)


def steps_of(text: str) -> list[str]:
    """The request's steps when it is long and has several, else []."""
    if len(analyze(text).words) < MIN_WORDS_TO_SPLIT:
        return []
    pieces = [piece.strip() for piece in _BOUNDARY.split(text)]
    steps = [piece for piece in pieces if len(analyze(piece).words) >= MIN_CLAUSE_WORDS]
    return steps[:MAX_CLAUSES] if len(steps) > 1 else []
