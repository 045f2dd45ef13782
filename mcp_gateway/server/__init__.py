"""The MCP server: the gateway daemon (`daemon`), which serves every client session a front brings it, each as
one run of the SDK's `Server` over the service's `Gateway` with the four meta-tools (`app`, `handlers`).

What the daemon knows of its sessions and shows to `status` is `mcp_gateway.daemon`."""

from mcp_gateway.server.daemon import run_daemon_command

__all__ = ["run_daemon_command"]
