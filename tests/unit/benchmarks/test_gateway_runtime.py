"""A benchmark's private runtime directory, as its gateways are told of it (`benchmarks.gateway_runtime`)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.gateway_processes import PRIVATE_DAEMON, SHARED_DAEMON, GatewayProcess
from benchmarks.gateway_runtime import SHARED, STANDALONE, Runtime, chosen_modes
from mcp_gateway.front.launch import STANDALONE_ENV
from mcp_gateway.front.rendezvous import RUNTIME_DIR_ENV

RUNTIME = Runtime(Path("/tmp/mgw-test"))


def test_a_shared_gateway_is_sent_to_the_runtime_and_never_told_to_stand_alone() -> None:
    env = RUNTIME.environment({STANDALONE_ENV: "1", "PATH": "/bin"}, SHARED)
    assert env == {RUNTIME_DIR_ENV: "/tmp/mgw-test/mcp-gateway", "PATH": "/bin"}


def test_a_standalone_gateway_meets_the_runtime_too_for_its_remembered_handshake() -> None:
    env = RUNTIME.environment({"PATH": "/bin"}, STANDALONE)
    assert env == {RUNTIME_DIR_ENV: "/tmp/mgw-test/mcp-gateway", STANDALONE_ENV: "1", "PATH": "/bin"}


def test_a_workspace_socket_is_named_by_the_gateway_inside_the_runtime() -> None:
    socket = RUNTIME.socket(Path("/tmp/some-workspace"))
    assert socket.parent == RUNTIME.directory
    assert socket.suffix == ".sock"
    assert RUNTIME.socket(Path("/tmp/other-workspace")) != socket


def test_only_daemons_whose_socket_lies_in_the_runtime_are_its_own() -> None:
    inside = str(RUNTIME.directory / "a.sock")
    assert RUNTIME.owns(GatewayProcess(SHARED_DAEMON, None, inside))
    assert RUNTIME.owns(GatewayProcess(PRIVATE_DAEMON, None, inside))
    assert not RUNTIME.owns(GatewayProcess(SHARED_DAEMON, None, "/run/user/0/mcp-gateway/a.sock"))
    assert not RUNTIME.owns(GatewayProcess(PRIVATE_DAEMON, None, None))


def test_modes_come_in_one_order_whatever_order_they_are_named_in() -> None:
    assert chosen_modes(["standalone", "shared"]) == (SHARED, STANDALONE)
    assert chosen_modes(["standalone"]) == (STANDALONE,)
