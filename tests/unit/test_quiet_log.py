"""The front's shared code logs through `logging` where the process uses it, and to stderr where it does not."""

from __future__ import annotations

import logging
import sys

import pytest

from mcp_gateway.front.quiet_log import DEBUG, ERROR, WARNING, log


def test_the_levels_are_loggings_own() -> None:
    assert (DEBUG, WARNING, ERROR) == (logging.DEBUG, logging.WARNING, logging.ERROR)


def test_a_process_that_uses_logging_gets_every_line_through_it(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="mcp_gateway.front.example"):
        log("mcp_gateway.front.example", DEBUG, "read %d lines", 3)
        log("mcp_gateway.front.example", ERROR, "gateway bug: %s", "differs")
    assert [(record.levelno, record.getMessage()) for record in caplog.records] == [
        (logging.DEBUG, "read 3 lines"),
        (logging.ERROR, "gateway bug: differs"),
    ]


def test_a_front_without_logging_says_warnings_and_worse_on_stderr_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "logging")
    log("mcp_gateway.front.example", DEBUG, "read %d lines", 3)
    log("mcp_gateway.front.example", ERROR, "gateway bug: %s", "differs")
    log("mcp_gateway.front.example", WARNING, "100% plain")  # no arguments: not %-formatted
    captured = capsys.readouterr()
    assert captured.err == "gateway bug: differs\n100% plain\n"
    assert captured.out == ""
