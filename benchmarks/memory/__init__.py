"""Resident memory of what a user's machine holds for a gateway session serving big cached catalogs: its front
and its daemon (the workspace's shared one, as a user has it, and standalone's private one beside it), and
every process the session starts.

    python -m benchmarks.memory [--json] [--data DIR] [--rounds 3] [--modes shared standalone]

Each configuration runs as a fresh session (`mcp-gateway --home HOME`, driven by the official SDK client) on a
fresh workspace whose cache.json holds the catalog (`bench_workspace`), in a runtime directory of its own, so
its shared daemon starts cold for it, as for a user's first session: the empty config (no servers: the
gateway's own cost), catalog.json (2,266 tools) and catalog-xl.json (5,645 tools), from `../shared/bench-data`.
VmRSS (and RssAnon) and VmHWM (the peak so far) are read from /proc/<pid>/status of the front (the process the
client started: the standard library and the pipe to the daemon) and of the daemon (the catalog, the index, the
pool), and added up: that is what the machine holds for the session; each further session of the workspace
adds one front (standalone: a front and a daemon). Read:
- idle: after connecting and one `tools/list`, once the session has gone quiet: the daemon reads cache.json and
  runs its startup check in the background after the front answered `initialize`, so the reading waits (at
  least 2 s) until front and daemon together use no CPU for half a second; the first search then confirms that
  nothing was still loading;
- after one `search_tools`, and after 50 (different public queries, default limit).
A bare `python -c "import mcp"` process is measured in the same run, for scale. The machine is shared and
noisy: the configurations and modes take turns, each is run `--rounds` times, and the report gives medians.

Processes: a search-only session must start none. Counted are the spawn-log entries (every catalog server
would start the fake fixture server, which logs its pid), every descendant of the front or the daemon other
than the daemon, seen by sampling /proc during the session, and every process still naming the workspace once
the session ended and the shared daemon's grace (1 s in these workspaces) passed. Target: front + daemon idle
<= 120 MB with catalog-xl.json cached, in each mode. Exits 1 when a target is missed.

One module per part: `readings` (memory from /proc, and when the session is quiet enough to read it),
`processes` (what the session started), `session` (one session), `run` (every configuration and mode, in
turns), `targets` (the medians and the targets), `report` (text and JSON) and `cli` (the command line).
"""
