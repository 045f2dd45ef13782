"""Fixtures for config tests: write a config file into a temporary workspace and load it."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from mcp_gateway.config import GatewayConfig, load_config


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    return tmp_path / "home" / "config.json"


@pytest.fixture
def load_json(config_path: Path) -> Callable[..., GatewayConfig]:
    """Write `document` (a JSON-able object) to the config path and load it with `environ` (default: empty)."""

    def load(document: object, environ: Mapping[str, str] | None = None) -> GatewayConfig:
        config_path.parent.mkdir(parents=True, exist_ok=True)
        config_path.write_text(json.dumps(document), encoding="utf-8")
        return load_config(config_path, environ={} if environ is None else environ, create_missing=False)

    return load
