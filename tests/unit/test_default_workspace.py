"""A front without `--home` finds the default config where platformdirs says, asking it once per environment."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_gateway.front.default_workspace import default_config_path
from mcp_gateway.paths import HOME_ENV_VAR, Workspace


class Asked:
    def __init__(self, answer: Path) -> None:
        self.answer = answer
        self.times = 0

    def __call__(self) -> Path:
        self.times += 1
        return self.answer


@pytest.fixture
def runtime(tmp_path: Path) -> Path:
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    return directory


def test_platformdirs_is_asked_once_per_environment(runtime: Path) -> None:
    environ = {"HOME": "/home/ada", "XDG_CONFIG_HOME": "/home/ada/.config", "PATH": "/bin"}
    ask = Asked(Path("/home/ada/.config/mcp-gateway/config.json"))
    assert default_config_path(runtime, ask, environ) == ask.answer
    assert default_config_path(runtime, ask, environ | {"PATH": "/usr/bin", "PWD": "/elsewhere"}) == ask.answer
    assert ask.times == 1
    (remembered,) = runtime.iterdir()
    assert remembered.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "change",
    [
        {"HOME": "/home/grace"},
        {"XDG_CONFIG_HOME": "/srv/config"},
        {"XDG_DATA_HOME": "/srv/data"},  # a variable platformdirs might read one day: asked again, never wrong
        {"ANDROID_DATA": "/data"},
    ],
)
def test_another_environment_asks_again(runtime: Path, change: dict[str, str]) -> None:
    environ = {"HOME": "/home/ada", "XDG_CONFIG_HOME": "/home/ada/.config"}
    first, second = Asked(Path("/first/config.json")), Asked(Path("/second/config.json"))
    assert default_config_path(runtime, first, environ) == first.answer
    assert default_config_path(runtime, second, environ | change) == second.answer
    assert default_config_path(runtime, second, environ) == first.answer  # each environment keeps its own answer


def test_the_answer_is_platformdirs_own_for_each_environment(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(HOME_ENV_VAR, raising=False)
    ask: Callable[[], Path] = lambda: Workspace.from_environment(None).config_path  # noqa: E731  # as the front asks
    for home, config_home in [(tmp_path / "a", None), (tmp_path / "b", None), (tmp_path / "a", tmp_path / "xdg")]:
        monkeypatch.setenv("HOME", str(home))
        if config_home is None:
            monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
        expected = Workspace.from_environment(None).config_path
        assert default_config_path(runtime, ask) == expected  # asked
        assert default_config_path(runtime, lambda: pytest.fail("asked twice")) == expected  # remembered


def test_a_link_planted_where_an_answer_is_kept_is_neither_read_nor_written_through(
    runtime: Path, tmp_path: Path
) -> None:
    environ = {"HOME": "/home/ada"}
    ask = Asked(Path("/home/ada/.config/mcp-gateway/config.json"))
    default_config_path(runtime, ask, environ)
    (kept,) = runtime.iterdir()
    elsewhere = tmp_path / "planted"
    elsewhere.write_text("/attacker/config.json")
    kept.unlink()
    kept.symlink_to(elsewhere)
    assert default_config_path(runtime, ask, environ) == ask.answer
    assert ask.times == 2
    assert elsewhere.read_text() == "/attacker/config.json"
    assert not kept.is_symlink()  # replaced by a file of ours, not written through


@pytest.mark.parametrize("content", [b"relative/config.json", b"", b"/a" * 3000, b"/with\0nul"])
def test_an_unusable_answer_is_asked_again(runtime: Path, content: bytes) -> None:
    environ = {"HOME": "/home/ada"}
    ask = Asked(Path("/home/ada/.config/mcp-gateway/config.json"))
    default_config_path(runtime, ask, environ)
    (kept,) = runtime.iterdir()
    kept.write_bytes(content)
    assert default_config_path(runtime, ask, environ) == ask.answer
    assert ask.times == 2


def test_a_directory_open_to_others_is_not_trusted(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o700)
    os.chmod(shared, 0o777)
    ask = Asked(Path("/home/ada/.config/mcp-gateway/config.json"))
    environ = {"HOME": "/home/ada"}
    assert default_config_path(shared, ask, environ) == default_config_path(shared, ask, environ) == ask.answer
    assert ask.times == 2
    assert list(shared.iterdir()) == []
