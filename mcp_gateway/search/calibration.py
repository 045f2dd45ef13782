"""How likely a hit is the tool the request wants, from evidence any catalog gives at query time, and its level.

A coverage threshold means something different on every catalog: requests carry arguments no tool's text holds,
and a catalog of four servers knows fewer of a request's words than one of three hundred. So the level is read
from several kinds of evidence, each a share or a ratio, never a raw score (`Signals`), combined by a logistic
model into the probability that the hit is right, cut at `HIGH_PROBABILITY` and `LOW_PROBABILITY`. The model is
small (a weight per signal) so that it carries over to catalogs it was not fitted on.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

Confidence = Literal["high", "medium", "low"]


class Signals(NamedTuple):
    """A hit's evidence, in the order of `WEIGHTS`. Each but the last two is scaled by `coverage`: a lead, a margin
    or a name asked for says little of a hit that explains little of the request (among tools that explain little
    the least bad leads by a lot; in a small catalog the next hit is often far behind). The rivals below a hit
    leave out its namesakes (the same tool on another server)."""

    coverage: float
    """Share of the request's information the hit accounts for (`confidence.judge`)."""
    coverage_lead: float
    """Its coverage minus the best coverage of the hits ranked below it, -1..1."""
    margin: float
    """1 minus the best score of the hits ranked below it over its own."""
    name_asked: float
    """Share of the tool's name the request asks for (`fits.NameFits`)."""
    objects_found: float
    """Share of the request's objects its name, title or first sentence holds (`fits.ObjectFits`)."""
    server_named: float
    """How clearly the request names the hit's server (`ranking.server_intent`)."""
    length: float
    """ln(1 + the number of the request's judged words)."""


SIGNAL_NAMES: tuple[str, ...] = tuple(Signals.__annotations__)

BIAS = -4.799
WEIGHTS: tuple[float, ...] = (0.012, 12.296, 5.229, 3.085, 1.668, 0.499, 1.240)
"""One per signal in `Signals` order (`BIAS` is the intercept), fitted by `benchmarks/calibrate.py` (ridge 1) on
development requests only, each set weighing the same: catalog.json's public queries; the styled sets over it with
its unanswerable requests; the registry catalog's and the outside catalog's sets with theirs (`benchmarks/unseen/`).
Coverage itself weighs nothing once the signals scaled by it are read."""
HIGH_PROBABILITY = 0.85
"""`high`: the model may call it without looking further. On the dev sets (share high, right when high): public
24%, .93; styled English 21%, .81, Chinese 11%, 1.00; registry 30%, .89 / 12%, 1.00; outside 22%, .94 / 9%, 1.00.
0.8 gave about 2 points more high at 1 to 4 points less right."""
LOW_PROBABILITY = 0.3
"""`low`: perhaps no tool does what was asked. On the dev sets (right when low; unanswerable requests low, English
and Chinese): public .24; styled .24 and .22, .91 and .95; registry .57 and .44, 1.00 and .95; outside .21 and
.24, .89 and .96. 0.25 left fewer unanswerable requests low (styled .89 and .85); 0.35 more right hits low (.28)."""


def probability(signals: Signals) -> float:
    """The logistic model's probability that the hit is the tool the request wants."""
    logit = BIAS + sum(weight * value for weight, value in zip(WEIGHTS, signals, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))


def level(chance: float) -> Confidence:
    if chance >= HIGH_PROBABILITY:
        return "high"
    return "medium" if chance >= LOW_PROBABILITY else "low"
