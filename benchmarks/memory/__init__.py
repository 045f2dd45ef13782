"""Resident memory of the real gateway process serving big cached catalogs, and the processes it starts.

    python -m benchmarks.memory [--json] [--data DIR] [--rounds 3]

Each configuration runs in a fresh `mcp-gateway --home HOME` process on a fresh workspace whose cache.json
holds the catalog (`bench_workspace`), driven by the official SDK client: the empty config (no servers: the
gateway's own cost), catalog.json (2,266 tools) and catalog-xl.json (5,645 tools), from `../shared/bench-data`.
VmRSS (and RssAnon) and VmHWM (the peak so far) are read from /proc/<gateway pid>/status:
- idle: after connecting and one `tools/list`, once the gateway has gone quiet: it reads cache.json and runs
  its startup check in the background after answering `initialize`, so the reading waits (at least 2 s) until
  the gateway uses no CPU for half a second; the first search then confirms that nothing was still loading;
- after one `search_tools`, and after 50 (different public queries, default limit).
A bare `python -c "import mcp"` process is measured in the same run, for scale. The machine is shared and
noisy: the configurations take turns, each is run `--rounds` times, and the report gives the medians.

Processes: a search-only session must start none. Counted are the spawn-log entries (every catalog server
would start the fake fixture server, which logs its pid), every descendant of the gateway seen by sampling
/proc during the session, and every process still naming the workspace after it. Target: idle RSS <= 120 MB
with catalog-xl.json cached. Exits 1 when a target is missed.

One module per part: `readings` (memory from /proc, and when the gateway is quiet enough to read it),
`processes` (what the gateway started), `session` (one gateway run), `run` (every configuration, in turns),
`targets` (the medians and the targets), `report` (text and JSON) and `cli` (the command line).
"""
