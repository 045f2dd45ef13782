"""Which command a client is given to start the gateway: by how the gateway is installed, or as asked."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

from importer_testing import CHECKOUT_INSTALL, INDEX_INSTALL

from mcp_gateway.importing.launch import Installation, gateway_launch, this_installation

REPOSITORY = Path(__file__).resolve().parents[3]
WORKSPACE = Path("/home/me/.mcp-gateway")
UVX_FOUND = "/home/me/.local/bin/uvx"


def no_uvx(_: str) -> str | None:
    return None


def uvx_found(_: str) -> str | None:
    return UVX_FOUND


def test_this_checkout_installed_in_its_venv_is_not_the_index_release() -> None:
    installation = this_installation()
    assert not installation.from_index
    assert installation.directory == REPOSITORY
    assert installation.script == Path(sysconfig.get_path("scripts")) / "mcp-gateway"
    assert installation.python == Path(sys.executable).absolute()
    assert not installation.in_uv_cache


def test_an_index_install_gets_uvx_and_a_gui_client_its_absolute_path() -> None:
    plan = gateway_launch(WORKSPACE, gui=True, client="Cursor", installation=INDEX_INSTALL, which=uvx_found)
    assert plan.launcher == "uvx"
    assert (plan.launch.command, plan.launch.args) == (UVX_FOUND, ("--from", "mcp-meta-gateway", "mcp-gateway"))
    assert plan.launch.env == {"MCP_GATEWAY_HOME": str(WORKSPACE)}
    plan = gateway_launch(WORKSPACE, gui=False, client="Codex CLI", installation=INDEX_INSTALL, which=uvx_found)
    assert plan.launch.command == "uvx"


def test_a_checkout_gets_its_own_script_or_its_python_when_it_has_no_script() -> None:
    plan = gateway_launch(WORKSPACE, gui=False, client="Codex CLI", installation=CHECKOUT_INSTALL, which=uvx_found)
    assert (plan.launcher, plan.launch.command, plan.launch.args) == ("path", str(CHECKOUT_INSTALL.script), ())
    scriptless = Installation(False, CHECKOUT_INSTALL.directory, None, CHECKOUT_INSTALL.python)
    plan = gateway_launch(WORKSPACE, gui=False, client="Codex CLI", installation=scriptless, which=uvx_found)
    assert (plan.launch.command, plan.launch.args) == (str(CHECKOUT_INSTALL.python), ("-m", "mcp_gateway"))


def test_a_gateway_run_by_uvx_from_a_checkout_is_started_by_uvx_from_that_checkout() -> None:
    cache = Path("/home/me/.cache/uv/archive-v0/Xy12/bin")
    from_checkout = Installation(False, Path("/src/mcp-gateway"), cache / "mcp-gateway", cache / "python")
    plan = gateway_launch(WORKSPACE, gui=False, client="Claude Code", installation=from_checkout, which=uvx_found)
    assert (plan.launcher, plan.launch.args) == ("uvx", ("--from", "/src/mcp-gateway", "mcp-gateway"))
    assert plan.why == "this gateway was run by uvx from /src/mcp-gateway"
    from_url = Installation(False, None, cache / "mcp-gateway", cache / "python")
    plan = gateway_launch(WORKSPACE, gui=False, client="Claude Code", installation=from_url, which=uvx_found)
    assert plan.launcher == "path"
    [warning] = plan.warnings
    assert warning.startswith("this gateway runs from uv's cache, which uv may clear")


def test_needed_variables_are_passed_on_once_each_in_order() -> None:
    plan = gateway_launch(
        WORKSPACE, gui=False, client="Codex CLI", installation=INDEX_INSTALL, needed=["B", "A", "B"], which=no_uvx
    )
    assert plan.launch.needed == ("B", "A")


def test_a_uv_tool_gets_its_own_script_whether_it_came_from_the_index_or_a_checkout() -> None:
    tool = Path("/home/me/.local/share/uv/tools/mcp-meta-gateway/bin")
    for from_index, directory in ((True, None), (False, Path("/src/mcp-gateway"))):
        installed = Installation(from_index, directory, tool / "mcp-gateway", tool / "python", uv_tool=True)
        plan = gateway_launch(WORKSPACE, gui=False, client="Claude Code", installation=installed, which=uvx_found)
        assert (plan.launcher, plan.launch.command, plan.launch.args) == ("path", str(tool / "mcp-gateway"), ())
        assert "uv tool" in plan.why
        assert plan.warnings == ()


def test_a_gateway_run_by_uvx_from_a_wheel_is_started_by_uvx_from_that_wheel_never_from_uvs_cache() -> None:
    cache = Path("/home/me/.cache/uv/archive-v0/Xy12/bin")
    wheel = "/src/mcp-gateway/dist/mcp_meta_gateway-0.1.0-py3-none-any.whl"
    from_wheel = Installation(False, None, cache / "mcp-gateway", cache / "python", source=wheel)
    plan = gateway_launch(WORKSPACE, gui=False, client="Claude Code", installation=from_wheel, which=uvx_found)
    assert (plan.launcher, plan.launch.command, plan.launch.args) == ("uvx", "uvx", ("--from", wheel, "mcp-gateway"))
    assert not any(str(cache) in word for word in (plan.launch.command, *plan.launch.args))
    [warning] = plan.warnings
    assert f"uv tool install {wheel}" in warning
