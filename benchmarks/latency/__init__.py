"""Latency of the gateway against the same work done without it, each pair measured in the same run.

    python -m benchmarks.latency [--repeat N] [--calls N] [--queries N] [--pairs P ...]
                                 [--other-gateway PROGRAM] [--json]

The gateway is what a user's machine runs: a session front (the `mcp-gateway` a client starts) and the
workspace's shared daemon behind it, with standalone (a front and a private daemon) beside it where that
helps. Every gateway of a run meets its daemons in a runtime directory of the run's own, each stopped before
the run ends. The machine is shared and noisy, so every gateway figure has its baseline measured in the same
run, interleaved with it (rotating blocks or alternating repeats), and compared by median:
1. warm `execute_tool` (server already running) through the shared daemon and standalone vs the same
   `tools/call` straight to the server, for the fake fixture server's `echo` and server-everything's `echo`
   (trivial echoes) and the fake `sleep` of 10 ms: `--calls` each (default 200) in rotating blocks of 10 after
   a warm-up, with two hop baselines in the same blocks: the gateway's own `tools/list` and a plain SDK
   server's `tools/list` (the demo toolbox, directly). Targets, through the shared daemon: gateway <= 1.3x
   direct; a trivial echo adds <= 1.0 ms (issue 25). CPU time per request of the answering processes (the
   front and its daemon, or the server) comes from /proc/PID/stat.
2. cold `execute_tool` (a fresh session with no daemon running and a valid cache, so nothing runs yet; its own
   start, up to a first `search_tools` answered, is not timed) vs spawn + initialize + call of the server
   directly: `--repeat` each (default 10).
3. start to an answered `tools/list`, every subject in one rotation, `--repeat` each: the smallest Python
   SDK server (`benchmarks/minimal_sdk_server.py`), the gateway on an empty config, on the demo workspace and
   on the 2,266-tool catalog.json workspace (caches valid), each with its daemon running (target: <= 0.25x
   the minimal server, issue 25), with none running (the front starts it) and standalone (targets: <= 1.0x),
   and both demo servers spawned in parallel, each initialized and listed. Each gateway's `initialize` and its
   first `search_tools` (sent right after `tools/list`) are timed too. `--other-gateway PROGRAM` adds another
   gateway program (a checkout of main) on the same workspaces, in a runtime of its own, to the rotation.
4. `search_tools` round trips at 2,266 and 5,645 cached tools (bench-data catalogs served from cache, no
   server started) through the shared daemon over `--queries` fixed queries from queries.jsonl, interleaved
   with trivial requests on the same connection (`tools/list`; `list_tools` of the smallest server, a
   tools/call like search); the time to an answered `initialize` and the first search, sent right after it,
   are reported apart.
5. start-up imports (`python -X importtime`, median of 3 runs): the console script's entry module, the
   SDK alone, and the real serve path (a front and its shared daemon, both traced) cut where tools/list, a
   first search and a first call are answered, per process; the start to the first search split by who
   caused each import, and the heaviest packages, each marked whether the first search needs it and whether
   `import mcp` would import it anyway.

Needs the npm peer server-everything (`npm install --prefix tests/e2e/peers --no-audit --no-fund
--ignore-scripts`). About four minutes with the defaults; `--pairs` measures only some. Exits 1 when a
target (warm, start-up) is missed, 2 when the benchmark could not run.

One module per part: `sampling` (series and their statistics), `subjects` (the tools called both ways
and the connections to them), `warm`, `cold`, `startup`, `search_round_trips` (the pairs 1 to 4),
`importtime_tree`, `traced_gateway` and `imports` (5), `run` (all of them in one scratch folder),
`failure` (why a run could not measure), `report` (text and JSON) and `cli` (the command line).
"""
