"""Pair 3: start to an answered `tools/list`, the gateway on the demo workspace (cache refreshed beforehand)
against both demo servers spawned in parallel, each initialized and listed, as a client without the gateway
starts them. The gateway's time to an answered `initialize` is reported apart.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio

from benchmarks.gateway_session import gateway_client, stdio_session
from benchmarks.latency.failure import BenchError
from benchmarks.latency.sampling import Sample, rotated, sample
from benchmarks.latency.subjects import SESSION_TIMEOUT_SECONDS, demo_entries, direct_params

META_TOOLS = 4
"""The gateway lists its four meta-tools, whatever it serves."""


@dataclass(frozen=True)
class StartupResult:
    gateway: Sample
    direct: Sample
    gateway_initialized: Sample
    """Of the gateway's total: until `initialize` was answered."""

    @property
    def ratio(self) -> float:
        return self.gateway.median / self.direct.median


async def gateway_startup(home: Path, errlog: TextIO) -> tuple[float, float]:
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with gateway_client(home, errlog) as gateway:
            initialized = time.perf_counter()
            listed = await gateway.list_tools()
            answered = time.perf_counter()
    if len(listed.tools) != META_TOOLS:
        raise BenchError(f"the gateway listed {len(listed.tools)} tools, not its four meta-tools")
    return (answered - started) * 1000, (initialized - started) * 1000


async def direct_startup(entries: Mapping[str, Mapping[str, Any]], errlog: TextIO) -> float:
    """Every server spawned at once, as a client without the gateway starts them; done when all listed."""
    answered: list[float] = []

    async def start(entry: Mapping[str, Any]) -> None:
        async with stdio_session(direct_params(entry), errlog) as direct:
            if not (await direct.list_tools()).tools:
                raise BenchError(f"{entry['args']} listed no tools")
            answered.append(time.perf_counter())

    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for entry in entries.values():
                group.start_soon(start, entry)
    return (max(answered) - started) * 1000


async def measure_startup(home: Path, repeat: int, errlog: TextIO) -> StartupResult:
    entries = demo_entries(home)
    gateway: list[float] = []
    initialized: list[float] = []
    direct: list[float] = []
    for turn in range(repeat):
        for side in rotated(["gateway", "direct"], turn):
            if side == "gateway":
                total, init = await gateway_startup(home, errlog)
                gateway.append(total)
                initialized.append(init)
            else:
                direct.append(await direct_startup(entries, errlog))
    return StartupResult(sample(gateway), sample(direct), sample(initialized))
