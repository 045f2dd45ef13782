"""The states of a downstream server in the pool, and the only changes between them (`supervisor.py` keeps them).

    idle ───a call (or eager)───► starting ───handshake done───► ready ───retired───► draining
     ▲                               │                             │   (idle, wedged,     │ │
     │                               │ start failed                │    crashed)          │ │
     │                               ▼                             │                      │ │
     │       ┌──window over,──► backing off ◄──died soon after its handshake, before─────┘ │
     │       │  a call:           │          answering a tool call (an early exit)          │
     │       └── starting ◄───────┘                                                         │
     └────────────────────────────── its last retired connection closed ◄─────────────────┘
                                      (a call meanwhile: draining ──► starting)
    any state ──the pool stops──► stopped

- idle: no connection; the first call starts the server.
- starting: one task spawns and handshakes it, within `connectTimeoutMs`; concurrent first calls wait for it
  (a start that ends with neither a connection nor an error, which only a bug can cause, goes back to idle).
- ready: calls share the one connection; a lazy server is stopped `idleTimeout` after its last call ended.
- draining: the connection was retired; it takes no new call and closes after its last one, while a new call
  starts a fresh process at once (a stubborn server may take seconds to die).
- backing off: the last start failed; calls fail fast with the seconds left in the window (`backoff.py`).
- stopped: the gateway is stopping; nothing starts again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from mcp_gateway.downstream.error_journal import ErrorRecord


class State(enum.Enum):
    IDLE = "idle"
    STARTING = "starting"
    READY = "ready"
    DRAINING = "draining"
    BACKING_OFF = "backing off"
    STOPPED = "stopped"


TRANSITIONS: dict[State, frozenset[State]] = {
    State.IDLE: frozenset({State.STARTING, State.STOPPED}),
    State.STARTING: frozenset({State.READY, State.BACKING_OFF, State.IDLE, State.STOPPED}),
    State.READY: frozenset({State.DRAINING, State.BACKING_OFF, State.STOPPED}),
    State.DRAINING: frozenset({State.IDLE, State.STARTING, State.BACKING_OFF, State.STOPPED}),
    State.BACKING_OFF: frozenset({State.STARTING, State.STOPPED}),
    State.STOPPED: frozenset(),
}


@dataclass(frozen=True)
class ServerStatus:
    state: State
    running: bool
    pid: int | None
    in_flight: int
    protocol_version: str | None
    last_error: ErrorRecord | None
    backoff_seconds_left: float
