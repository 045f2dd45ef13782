"""The guard in front of every signal the gateway sends, and the marker its stdio children carry."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_gateway.config import StdioServer
from mcp_gateway.downstream import processes
from mcp_gateway.downstream.connect import ConnectOptions, _stdio_launch  # pyright: ignore[reportPrivateUsage]
from mcp_gateway.downstream.process_records import ProcessRecords
from mcp_gateway.downstream.stderr_log import ServerNotes, StderrLog

WAIT_SECONDS = 10.0


@pytest.mark.parametrize("pgid", [0, 1, -1, -4242])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_group_0_1_and_negative_ids_are_never_signalled(
    signals_sent: list[tuple[int, int]], caplog: pytest.LogCaptureFixture, pgid: int, signum: signal.Signals
) -> None:
    with caplog.at_level(logging.WARNING):
        assert processes.signal_group(pgid, signum) is False
    assert signals_sent == []
    assert f"refused to send {signum.name}" in caplog.text


def test_the_gateways_own_group_is_never_signalled(
    signals_sent: list[tuple[int, int]], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert processes.signal_group(os.getpgrp(), signal.SIGKILL) is False
    assert signals_sent == []
    assert "own group" in caplog.text


@pytest.mark.parametrize("pgid", [0, 1])
def test_groups_nobody_may_signal_are_never_probed_nor_called_alive(
    signals_sent: list[tuple[int, int]], pgid: int
) -> None:
    assert processes.group_alive(pgid) is False
    assert processes.group_alive(os.getpgrp()) is False
    assert signals_sent == []


def test_a_group_we_started_is_signalled_and_then_gone() -> None:
    process = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        assert processes.group_alive(process.pid)
        assert processes.signal_group(process.pid, signal.SIGKILL) is True
        assert process.wait(timeout=WAIT_SECONDS) == -signal.SIGKILL
        assert not processes.group_alive(process.pid)
        assert processes.signal_group(process.pid, signal.SIGKILL) is False, "gone: nothing was signalled"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(WAIT_SECONDS)


def test_the_gateway_token_is_random_per_process_and_stable_within_it() -> None:
    token = processes.gateway_token()
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    assert processes.gateway_token() == token
    other = subprocess.run(
        [sys.executable, "-c", "from mcp_gateway.downstream import processes; print(processes.gateway_token())"],
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
        check=True,
    )
    assert other.stdout.strip() not in ("", token)


def options(records: ProcessRecords | None, environ: dict[str, str], log: Path) -> ConnectOptions:
    return ConnectOptions(
        close_timeout=1.0,
        environ=environ,
        remembered_protocol=None,
        records=records,
        log=StderrLog(log),
        notes=ServerNotes("fake", object()),
    )


@pytest.mark.parametrize("inherit_env", [True, False])
def test_every_stdio_child_carries_the_marker_of_the_gateway_that_records_it(tmp_path: Path, inherit_env: bool) -> None:
    records = ProcessRecords(tmp_path, token="ab" * 16)
    spec = StdioServer(command="srv", env={processes.GROUP_MARKER_ENV: "forged", "A": "1"}, inherit_env=inherit_env)
    inherited = {processes.GROUP_MARKER_ENV: "outer-gateway", "ONLY_INHERITED": "x"}
    launch = _stdio_launch(spec, options(records, inherited, tmp_path / "log"))
    assert launch.env[processes.GROUP_MARKER_ENV] == records.token
    assert launch.env["A"] == "1"
    assert ("ONLY_INHERITED" in launch.env) is inherit_env
    unrecorded = _stdio_launch(spec, options(None, inherited, tmp_path / "log"))
    assert unrecorded.env[processes.GROUP_MARKER_ENV] == processes.gateway_token()
