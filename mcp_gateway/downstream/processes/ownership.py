"""Whether a recorded process group is provably one this gateway's predecessor started.

A record names a group by its id, and ids are reused. A group may be signalled by a later gateway only
when one of its current members proves to be ours:
- a member whose environment carries the recorded marker token (inherited from the stdio child we started);
- or the leader (pid == pgid) still running with the start time we recorded, when its environment cannot be
  read (a readable environment without our marker is evidence against: a reused pid, or a forged record).
Anything else (no member readable, a platform without the means) is "in doubt", and in doubt we never kill.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from mcp_gateway.downstream.processes.groups import group_of, refusal
from mcp_gateway.downstream.processes.identity import all_pids, is_zombie, marker_of, same_start, start_time


class Verdict(enum.Enum):
    PROVEN = "proven"
    GONE = "gone"
    IN_DOUBT = "in doubt"


@dataclass(frozen=True)
class Ownership:
    verdict: Verdict
    reason: str


def group_members(pgid: int) -> list[int]:
    """The live processes (zombies excluded) whose process group is `pgid`."""
    return [pid for pid in all_pids() if group_of(pid) == pgid and not is_zombie(pid)]


def prove_ownership(pgid: int, leader_start: float | None, token: str) -> Ownership:
    """Judge recorded group `pgid` against the leader start time and marker token its record holds."""
    refused = refusal(pgid)
    if refused is not None:
        return Ownership(Verdict.IN_DOUBT, refused)
    members = group_members(pgid)
    if not members:
        return Ownership(Verdict.GONE, "no process of the group is left")
    unreadable = 0
    for pid in members:
        marker = marker_of(pid)
        if marker.readable and marker.token == token:
            return Ownership(Verdict.PROVEN, f"process {pid} carries this gateway's marker")
        if not marker.readable:
            unreadable += 1
            if pid == pgid and leader_start is not None and same_start(leader_start, start_time(pid)):
                return Ownership(Verdict.PROVEN, f"its leader {pid} still runs with the recorded start time")
    return Ownership(
        Verdict.IN_DOUBT,
        f"none of its {len(members)} processes proves to be ours ({unreadable} with an unreadable environment, "
        "the others without this gateway's marker)",
    )
