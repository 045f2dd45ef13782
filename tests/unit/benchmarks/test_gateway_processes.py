"""Which process of the gateway is which, from command lines as /proc gives them (`benchmarks.gateway_processes`)."""

from __future__ import annotations

from benchmarks.gateway_processes import (
    FRONT,
    PRIVATE_DAEMON,
    SHARED_DAEMON,
    GatewayProcess,
    describe,
    gateway_arguments,
    option,
)

PYTHON = "/repo/.venv/bin/python3"
SCRIPT = "/repo/.venv/bin/mcp-gateway"
SOCKET = "/tmp/mgw-x/mcp-gateway/0123.sock"


def test_a_front_started_by_its_console_script_through_a_shebang() -> None:
    argv = [PYTHON, SCRIPT, "--home", "/w", ""]  # /proc's NUL-terminated form ends in an empty argument
    assert describe(argv) == GatewayProcess(FRONT, "/w", None)


def test_a_front_with_no_home_and_one_asked_to_serve_standalone() -> None:
    assert describe([SCRIPT]) == GatewayProcess(FRONT, None, None)
    assert describe([PYTHON, SCRIPT, "serve", "--standalone"]) == GatewayProcess(FRONT, None, None)


def test_the_shared_daemon_names_its_socket() -> None:
    argv = [PYTHON, "-m", "mcp_gateway", "--home", "/w", "daemon", "--socket", SOCKET, ""]
    assert describe(argv) == GatewayProcess(SHARED_DAEMON, "/w", SOCKET)


def test_a_private_daemon_names_the_socket_it_remembers_its_handshake_beside() -> None:
    argv = [PYTHON, "-m", "mcp_gateway", "daemon", "--connection", "6", "--remember", SOCKET]
    assert describe(argv) == GatewayProcess(PRIVATE_DAEMON, None, SOCKET)
    assert describe([PYTHON, "-m", "mcp_gateway", "daemon", "--connection", "6"]) == GatewayProcess(
        PRIVATE_DAEMON, None, None
    )


def test_interpreter_options_before_the_module_are_skipped() -> None:
    argv = [PYTHON, "-X", "importtime", "-u", "-m", "mcp_gateway", "--home", "/w"]
    assert gateway_arguments(argv) == ["--home", "/w"]
    assert describe(argv) == GatewayProcess(FRONT, "/w", None)


def test_other_commands_and_other_programs_are_no_gateway_process() -> None:
    assert describe([PYTHON, SCRIPT, "--home", "/w", "refresh"]) is None
    assert describe([PYTHON, "-m", "mcp_gateway.demo.toolbox"]) is None  # the demo's servers are modules too
    assert describe([PYTHON, "/repo/fixtures/fake_mcp_server.py"]) is None
    assert describe([PYTHON, "-c", "import mcp_gateway"]) is None
    assert describe([]) is None


def test_an_option_is_read_in_either_spelling() -> None:
    assert option(["--home", "/a", "daemon"], "--home") == "/a"
    assert option(["--home=/b"], "--home") == "/b"
    assert option(["--home"], "--home") is None
    assert option(["daemon"], "--socket") is None
