"""The one place the gateway signals process groups and judges whose they are.

Contract:
- `signal_group(pgid, sig)` is the only way the package sends a signal; it refuses, logs and reports any
  group id <= 1 (`killpg(0)` is the gateway's own group, `killpg(1)` every process the user may signal)
  and the gateway's own group, whoever asks.
- Every stdio child gets `GROUP_MARKER_ENV=<gateway_token()>` in its environment (a random token per
  gateway process, written in the gateway's process record), which its own children inherit.
- `prove_ownership` decides whether a group recorded by a gateway that is gone may be signalled now: only
  when a current member proves to be ours (see `ownership`). In doubt, it is not.
psutil (for start times and environments) is imported on first use, never on the path to `initialize`.
"""

from __future__ import annotations

from mcp_gateway.downstream.processes.groups import group_alive, pid_alive, refusal, signal_group
from mcp_gateway.downstream.processes.identity import (
    GROUP_MARKER_ENV,
    gateway_token,
    is_zombie,
    same_start,
    start_time,
    warm_up,
)
from mcp_gateway.downstream.processes.ownership import Ownership, Verdict, group_members, prove_ownership

__all__ = [
    "GROUP_MARKER_ENV",
    "Ownership",
    "Verdict",
    "gateway_token",
    "group_alive",
    "group_members",
    "is_zombie",
    "pid_alive",
    "prove_ownership",
    "refusal",
    "same_start",
    "signal_group",
    "start_time",
    "warm_up",
]
