"""Soak test of the gateway's downstream pool: many concurrent calls of every kind, then count what went wrong.

    python -m benchmarks.soak --seconds 60 [--servers 4] [--concurrency 16] [--seed 1]
                              [--sessions N | --standalone] [--json] [--keep]

Builds a throw-away workspace with K fake stdio servers (`fixtures/fake_mcp_server.py`; some spawn a
grandchild, some ignore EOF and SIGTERM), runs `mcp-gateway refresh`, then starts the real gateway as a user's
machine runs it, `--sessions` N session fronts (1 by default) sharing the workspace's daemon, in a runtime
directory of the soak's own (or with `--standalone` one front and its private daemon), and drives them with the
official SDK client. C workers keep calling `execute_tool` for
the whole run, each call a random kind (seeded): fast echo, slow sleep, failing tool, crashing server,
cancelled by the client, timed out by the gateway, big result. One server at a time rests, so the short
`idleTimeout` reaps servers during the run as well.

Measured and reported:
- calls made, calls/s, results by kind and outcome, latency per kind;
- lost results: calls whose await never returned within requestTimeout + 30 s (must be 0);
- unexpected results: wrong content, a result for another call, an exception, an outcome the kind cannot
  have (a lost connection only counts as expected when a crash of that server overlapped the call);
- the daemon's RSS after warm-up, at each tenth and at the end, the fronts' at the end, the CPU time of the
  daemon and the fronts during the run, downstream spawns and idle stops;
- leaked processes after the clients disconnect: every spawned server, and every member of its process
  group, the fronts and the daemon, still alive ~10 s later (the shared daemon's grace is 1 s; must be 0).
  Leftovers are SIGKILLed, so a soak never leaves any behind.
Exits 1 when anything was lost, leaked or unexpected.

One module per part: `workspace` (the fake servers and their config), `plan` (the options and the calls
drawn from them), `outcomes` (what one call's result was), `judging` (which outcomes a kind can explain),
`driver` (the workers and the client session), `leaks` (processes that outlived the session), `run` (one
soak from refresh to leak check), `report` (text and JSON) and `cli` (the command line).
"""
