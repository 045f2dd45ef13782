"""Driving the fairness benchmark (`benchmarks.fairness`): its workspace, its three sessions (each a front, each
on a thread of its own), the load, the echo probe and the RSS sampler, in each mode, in a runtime directory of
its own whose daemons are stopped at its end; and what each mode recorded (`ModeResult`), judged against the
goals.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import anyio
import anyio.to_thread

from benchmarks.fairness_figures import PHASES, Echo, Latency, Memory, RssSample, Span, by_phase, latency, memory
from benchmarks.gateway_runtime import MODES, SHARED, Mode, Runtime, private_daemon, private_runtime
from benchmarks.gateway_session import compile_package, gateway_command, gateway_environment, refresh_catalog
from benchmarks.procfs import memory_mb, rss_mb
from benchmarks.raw_session import RawSession, RawSessionError, Reply, tool_call_with_text
from benchmarks.repo_paths import FAKE_SERVER

MB = 1024 * 1024
LINE_MB = 50
RESULT_MB = 10
ROUNDS = 3
BEFORE_SECONDS = 3.0
AFTER_SECONDS = 5.0
"""How long after the last load the daemon's RSS is read: 'a few seconds after'."""
PAUSE_SECONDS = 0.5
"""Between two loads."""
SAMPLE_SECONDS = 0.02
WARM_ECHOES = 20
ECHO_MESSAGE = "fairness probe"
ECHO_SECONDS = 30.0
LOAD_SECONDS = 180.0
"""Bound on one load's call (50 MB parsed by a private daemon on a loaded 2-CPU machine takes seconds)."""
START_SECONDS = 60.0
GOAL_P99_MS = 50.0
GOAL_KEPT_MB = 30.0
SESSIONS = ("A", "B", "C")


@dataclass(frozen=True)
class Load:
    """One round of load: what A and B got back, and when."""

    span: Span
    a: str
    a_seconds: float
    b: str
    b_seconds: float


@dataclass
class ModeResult:
    mode: Mode
    daemons: dict[str, int] = field(default_factory=dict[str, int])
    """Per label (the shared daemon, or each session's private daemon), its pid."""
    echoes: list[Echo] = field(default_factory=list[Echo])
    loads: list[Load] = field(default_factory=list[Load])
    samples: dict[str, list[RssSample]] = field(default_factory=dict[str, list[RssSample]])
    hwm_mb: dict[str, float] = field(default_factory=dict[str, float])

    def latency(self) -> dict[str, Latency]:
        grouped = by_phase(self.echoes, [load.span for load in self.loads])
        return {phase: latency(grouped[phase]) for phase in PHASES}

    def memory(self) -> dict[str, Memory]:
        spans = [load.span for load in self.loads]
        return {
            label: memory(self.samples.get(label, []), spans, BEFORE_SECONDS, self.hwm_mb.get(label, math.nan))
            for label in self.daemons
        }

    def judged(self) -> dict[str, bool]:
        """The goals: C's p99 during the load, and each loaded daemon's RSS back near where it was."""
        goals = {f"C's echo p99 during the load <= {GOAL_P99_MS:g} ms": self.latency()["during"].p99_ms <= GOAL_P99_MS}
        for label, kept in self.memory().items():
            if label != "C's daemon":  # a private daemon C alone used carries no load
                goals[f"{label} RSS back within {GOAL_KEPT_MB:g} MB"] = kept.kept_mb <= GOAL_KEPT_MB
        return goals


@dataclass(frozen=True)
class Options:
    rounds: int = ROUNDS
    line_bytes: int = LINE_MB * MB
    result_bytes: int = RESULT_MB * MB
    modes: tuple[Mode, ...] = MODES


def write_workspace(home: Path) -> None:
    """Two fake servers, one for the load and one for the probe; the daemon leaves a second after its last session."""
    home.mkdir(parents=True)
    fake = {"command": sys.executable, "args": [str(FAKE_SERVER)]}
    document = {
        "version": 1,
        "mcpServers": {"loader": fake, "echoer": fake | {"env": {"FAKE_MCP_NAME": "echoer"}}},
        "settings": {"daemonGraceSeconds": 1},
    }
    (home / "config.json").write_text(json.dumps(document, indent=2))
    refresh_catalog(home)


def watched_daemons(mode: Mode, home: Path, runtime: Runtime, sessions: dict[str, RawSession]) -> dict[str, int]:
    if mode == SHARED:
        daemon = runtime.shared_daemon(home)
        found = {} if daemon is None else {"the shared daemon": daemon}
    else:
        found = {f"{name}'s daemon": pid for name, s in sessions.items() if (pid := private_daemon(s.pid)) is not None}
    if len(found) != (1 if mode == SHARED else len(sessions)):
        raise RawSessionError(f"the {mode} daemons of the sessions were not found: {found}")
    return found


def peak_mb(pid: int) -> float:
    """The process's VmHWM; NaN once it is gone (a daemon that died says so in C's failed echoes)."""
    try:
        return memory_mb(pid).get("VmHWM", math.nan)
    except OSError:
        return math.nan


def expect(reply: Reply, what: str) -> Reply:
    if reply.error:
        raise RawSessionError(f"{what} failed: {reply.head}")
    return reply


def warm_up(sessions: dict[str, RawSession]) -> None:
    """Every server started and every session's path used once, before anything is timed."""
    for _ in range(WARM_ECHOES):
        expect(sessions["C"].execute("echoer.echo", {"message": ECHO_MESSAGE}, seconds=START_SECONDS), "C's echo")
    expect(sessions["A"].execute("loader.length", {"text": "warm"}, seconds=START_SECONDS), "A's warm-up")
    expect(sessions["B"].execute("loader.big", {"bytes": 10}, seconds=START_SECONDS), "B's warm-up")


class Background:
    """A loop run on a thread of its own until `stop`; an error ends it and is raised by `stop`."""

    def __init__(self, step: Callable[[], None]) -> None:
        self._step = step
        self._stopping = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                self._step()
        except BaseException as error:  # reported by stop, on the main thread
            self._error = error

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=ECHO_SECONDS + LOAD_SECONDS)
        if self._error is not None:
            raise self._error


def outcome(reply: Reply) -> str:
    said = f"error: {reply.head[:120]}" if reply.error else f"result ({reply.size:,} bytes): {reply.head[:40]}"
    return said


def one_load(sessions: dict[str, RawSession], options: Options, body: bytes) -> Load:
    """A's big line and B's big result at once; each answer awaited (bounded)."""
    results: dict[str, tuple[str, float]] = {}

    def a() -> None:
        started = time.perf_counter()
        request_id = sessions["A"].next_id()
        parts = tool_call_with_text(request_id, "loader.length", "text", body)
        try:
            said = outcome(sessions["A"].exchange(parts, request_id, LOAD_SECONDS))
        except RawSessionError as error:
            said = f"failed: {error}"
        results["A"] = (said, time.perf_counter() - started)

    def b() -> None:
        started = time.perf_counter()
        try:
            said = outcome(sessions["B"].execute("loader.big", {"bytes": options.result_bytes}, seconds=LOAD_SECONDS))
        except RawSessionError as error:
            said = f"failed: {error}"
        results["B"] = (said, time.perf_counter() - started)

    started = time.perf_counter()
    threads = [threading.Thread(target=step, daemon=True) for step in (a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=LOAD_SECONDS + 5)
    ended = time.perf_counter()
    (a_said, a_seconds), (b_said, b_seconds) = (results.get(name, ("no answer", ended - started)) for name in "AB")
    return Load(Span(started, ended), a_said, a_seconds, b_said, b_seconds)


def run_mode(home: Path, runtime: Runtime, mode: Mode, options: Options, errlog: TextIO) -> ModeResult:
    result = ModeResult(mode)
    env = runtime.environment(gateway_environment(), mode)
    with ExitStack() as stack:
        sessions: dict[str, RawSession] = {}
        for name in SESSIONS:
            sessions[name] = session = RawSession(gateway_command(home), env, errlog)
            stack.callback(session.close)
            expect(session.initialize(START_SECONDS), f"{name}'s initialize")
        warm_up(sessions)
        result.daemons = watched_daemons(mode, home, runtime, sessions)
        result.samples = {label: [] for label in result.daemons}

        def sample() -> None:
            for label, pid in result.daemons.items():
                if (mb := rss_mb(pid)) is not None:
                    result.samples[label].append(RssSample(time.perf_counter(), mb))
            time.sleep(SAMPLE_SECONDS)

        def echo() -> None:
            started = time.perf_counter()
            try:
                reply = sessions["C"].execute("echoer.echo", {"message": ECHO_MESSAGE}, seconds=ECHO_SECONDS)
                ok = not reply.error and reply.head == ECHO_MESSAGE
            except RawSessionError:
                ok = False
            result.echoes.append(Echo(Span(started, time.perf_counter()), ok))
            if not ok and sessions["C"].process.poll() is not None:
                raise RawSessionError("C's front exited")

        body = b"y" * options.line_bytes  # made once, before anything is timed
        sampler, prober = Background(sample), Background(echo)
        try:
            time.sleep(BEFORE_SECONDS)
            for round_number in range(options.rounds):
                if round_number:
                    time.sleep(PAUSE_SECONDS)
                result.loads.append(one_load(sessions, options, body))
            time.sleep(AFTER_SECONDS)
        finally:
            prober.stop()
            sampler.stop()
        result.hwm_mb = {label: peak_mb(pid) for label, pid in result.daemons.items()}
    return result


async def run(options: Options, errlog: TextIO) -> list[ModeResult]:
    compile_package()
    results: list[ModeResult] = []
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-fairness-", ignore_cleanup_errors=True) as scratch:
        home = Path(scratch) / "workspace"
        write_workspace(home)
        for mode in options.modes:
            async with private_runtime() as runtime:  # its daemons are stopped at its end, whatever happened
                results.append(await anyio.to_thread.run_sync(run_mode, home, runtime, mode, options, errlog))
    return results
