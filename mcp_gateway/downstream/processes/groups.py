"""Process groups on this platform: POSIX signals them; elsewhere nothing is ever signalled.

The split mirrors the SDK's `mcp.os.posix` / `mcp.os.win32`. The gateway starts every stdio server in its
own POSIX process group; a platform without process groups gets an implementation that refuses every
signal and never calls a group alive, so that "in doubt, do not kill" holds there too.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mcp_gateway.downstream.processes.unsupported import group_alive, group_of, pid_alive, refusal, signal_group
else:
    from mcp_gateway.downstream.processes.posix import group_alive, group_of, pid_alive, refusal, signal_group

__all__ = ["group_alive", "group_of", "pid_alive", "refusal", "signal_group"]
