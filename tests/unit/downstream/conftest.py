"""Fixtures of the downstream unit tests."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def signals_sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Every os.killpg call, recorded instead of made: these tests name groups nobody may signal."""
    calls: list[tuple[int, int]] = []

    def record(pgid: int, signum: int) -> None:
        calls.append((pgid, int(signum)))

    monkeypatch.setattr(os, "killpg", record)
    return calls
