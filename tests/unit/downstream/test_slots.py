"""The pool's registry of supervisors per resolved definition: resolving off the loop, forgetting idle slots,
and speaking for a server's supervisors together."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from mcp_gateway.config import ServerConfig, load_config
from mcp_gateway.downstream import slots as slots_module
from mcp_gateway.downstream.definitions import Definition, resolve
from mcp_gateway.downstream.slots import Slot, Slots
from mcp_gateway.downstream.supervisor import ServerStatus, State, Supervisor
from mcp_gateway.origin import Origin

pytestmark = pytest.mark.anyio


@dataclass
class FakeSupervisor:
    """What `Slots` reads of a supervisor: its state and its status."""

    state: State = State.IDLE
    pid: int | None = None
    in_flight: int = 0

    def status(self) -> ServerStatus:
        running = self.state is State.READY
        return ServerStatus(self.state, running, self.pid, self.in_flight, None, None, 0.0)


def server(tmp_path: Path) -> ServerConfig:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"mcpServers": {"s": {"command": "srv", "env": {"A": "${MARK}"}}}}))
    return load_config(path, environ={}, create_missing=False).servers["s"]


def session(label: str, mark: str) -> Origin:
    return Origin.of({"MARK": mark}, "/work", label)


def slot_of(config: ServerConfig, origin: Origin, fake: FakeSupervisor) -> Slot:
    return Slot(cast(Supervisor, fake), resolve(config, origin, own=False), origin)


async def test_a_sessions_first_resolution_runs_in_a_worker_thread_and_is_then_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = server(tmp_path)
    threads: list[int] = []

    def recorded(server: ServerConfig, origin: Origin, *, own: bool) -> Definition:
        threads.append(threading.get_ident())
        return resolve(server, origin, own=own)

    monkeypatch.setattr(slots_module, "resolve", recorded)
    slots = Slots(Origin.of({}, "/"))
    origin = session("session-1", "a")

    await slots.prepare(config, origin)
    await slots.prepare(config, origin)
    definition = slots.definition(config, origin)

    assert len(threads) == 1
    assert threads[0] != threading.get_ident()
    assert definition is slots.definition(config, origin)


def test_an_idle_slot_nobody_holds_is_forgotten_when_its_server_gets_another(tmp_path: Path) -> None:
    config = server(tmp_path)
    slots = Slots(Origin.of({}, "/"))
    idle, held, backing_off = FakeSupervisor(), FakeSupervisor(), FakeSupervisor(State.BACKING_OFF)
    slots.add("s", slot_of(config, session("session-1", "idle"), idle))
    holding = slots.add("s", slot_of(config, session("session-2", "held"), held))

    with holding.used_by("session-2"):
        slots.add("s", slot_of(config, session("session-3", "backing-off"), backing_off))
        slots.add("s", slot_of(config, session("session-4", "new"), FakeSupervisor(State.READY)))

    kept = [slot.origin.session for slot in slots.of("s")]
    assert kept == ["session-2", "session-3", "session-4"]  # held, backing off (its window holds), new


def test_a_servers_status_is_its_most_alive_supervisors_with_every_call_in_flight(tmp_path: Path) -> None:
    config = server(tmp_path)
    slots = Slots(Origin.of({}, "/"))
    slots.add("s", slot_of(config, session("session-1", "a"), FakeSupervisor(State.BACKING_OFF, in_flight=0)))
    slots.add("s", slot_of(config, session("session-2", "b"), FakeSupervisor(State.READY, pid=42, in_flight=2)))
    slots.add("s", slot_of(config, session("session-3", "c"), FakeSupervisor(State.STARTING, in_flight=1)))

    status = slots.status("s")

    assert status is not None
    assert (status.state, status.running, status.pid, status.in_flight) == (State.READY, True, 42, 3)
    assert slots.status("other") is None
    views = slots.processes()["s"]
    assert [(view.pid, view.state) for view in views] == [
        (None, State.BACKING_OFF),
        (42, State.READY),
        (None, State.STARTING),
    ]
