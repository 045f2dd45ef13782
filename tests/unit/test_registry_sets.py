"""The registry catalog and its request sets pass their checker (benchmarks/unseen/check_registry.py)."""

from __future__ import annotations

import pytest

from benchmarks.unseen import check_registry


@pytest.mark.skipif(not check_registry.SHARED_CATALOG.exists(), reason="the shared bench data is not beside the repo")
def test_registry_catalog_and_requests_pass_their_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_registry.main() == 0, capsys.readouterr().err
