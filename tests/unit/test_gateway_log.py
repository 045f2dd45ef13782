"""The gateway's own log: private, never through a symlink, and masked (message, arguments and traceback)."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from workspace_hazards import bounded, plant_fifo

from mcp_gateway.gateway_log import MaskingFilter, PrivateFileHandler
from mcp_gateway.masking import MASK, SecretMask

SECRET = "hush-logged-secret"


@pytest.fixture
def logger(tmp_path: Path) -> Iterator[tuple[logging.Logger, Path]]:
    """A logger of its own writing through a masking `PrivateFileHandler` to `tmp_path/gateway.log`."""
    path = tmp_path / "gateway.log"
    handler = PrivateFileHandler(path)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(MaskingFilter(SecretMask([SECRET])))
    log = logging.getLogger(f"test-gateway-log-{id(handler)}")
    log.propagate = False
    log.setLevel(logging.DEBUG)
    log.addHandler(handler)
    try:
        yield log, path
    finally:
        log.removeHandler(handler)
        handler.close()


def test_the_log_file_is_created_private_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        handler = PrivateFileHandler(tmp_path / "gateway.log")
    finally:
        os.umask(previous)
    handler.close()
    assert stat.S_IMODE((tmp_path / "gateway.log").stat().st_mode) == 0o600


def test_an_existing_readable_log_file_is_made_private_and_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "gateway.log"
    path.write_text("earlier\n")
    path.chmod(0o644)
    handler = PrivateFileHandler(path)
    handler.emit(logging.makeLogRecord({"msg": "later"}))
    handler.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == "earlier\nlater\n"


def test_a_symlink_in_place_of_the_log_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("not the gateway's\n")
    target.chmod(0o644)
    (tmp_path / "gateway.log").symlink_to(target)
    with pytest.raises(OSError, match="symbolic link"):  # ELOOP, from O_NOFOLLOW
        PrivateFileHandler(tmp_path / "gateway.log")
    assert target.read_text() == "not the gateway's\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_a_fifo_in_place_of_the_log_is_refused_at_once(tmp_path: Path) -> None:
    """Opening a FIFO without a reader for writing would wait for one: the gateway would never start."""
    fifo = plant_fifo(tmp_path / "gateway.log")
    with pytest.raises(OSError, match="FIFO"):
        bounded(lambda: PrivateFileHandler(fifo))


def test_a_secret_in_a_message_or_its_arguments_is_masked(logger: tuple[logging.Logger, Path]) -> None:
    log, path = logger
    log.info("HTTP Request: POST %s", f"https://api.example/mcp?key={SECRET}")
    log.warning(f"token {SECRET} rejected")
    assert path.read_text().splitlines() == [
        f"INFO HTTP Request: POST https://api.example/mcp?key={MASK}",
        f"WARNING token {MASK} rejected",
    ]


def test_a_secret_in_a_traceback_is_masked(logger: tuple[logging.Logger, Path]) -> None:
    log, path = logger

    def reject() -> None:
        raise ValueError(f"bad credential {SECRET}")

    try:
        reject()
    except ValueError:
        log.exception("handler raised")
    text = path.read_text()
    assert f"ValueError: bad credential {MASK}" in text
    assert SECRET not in text


def test_a_url_credential_nobody_configured_is_masked_and_ordinary_text_kept(
    logger: tuple[logging.Logger, Path],
) -> None:
    log, path = logger
    log.debug("connecting to https://me:pw-unconfigured@host/mcp?token=t0k3n-unconfigured&page=2 from /home/me")
    assert path.read_text() == f"DEBUG connecting to https://me:{MASK}@host/mcp?token={MASK}&page=2 from /home/me\n"


def test_a_malformed_logging_call_is_still_written_masked(logger: tuple[logging.Logger, Path]) -> None:
    log, path = logger
    log.warning(f"expected two values for {SECRET}: %s %s", "one")
    assert path.read_text() == f"WARNING expected two values for {MASK}: %s %s\n"
