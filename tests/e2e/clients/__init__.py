"""The real AI client CLIs, driven end to end against a model API on 127.0.0.1 that plays a script.

- `conversation`: what a model request means, whatever the wire (tools offered, tool results sent back)
  and what the model answers (a tool call or a final text);
- `script`: the scripted model's turns, each decided from the tool result the client sent back;
- `wire`: what the mock hands a wire module and gets back; `anthropic_wire`, `chat_wire`,
  `responses_wire` and `gemini_wire` read and answer each client's own protocol, streaming included;
- `mock_api`: the HTTP server that records every request and answers it on the client's wire, plus a
  proxy that refuses everything else, so a client stays offline and says what it tried to reach;
- `places`: a session's scratch HOME, project and gateway workspace, and the environment a client gets;
- `clis`: how each CLI is installed, configured in that HOME, pointed at the mock and run;
- `sessions`: the user's servers in the client's config, the real `mcp-gateway import
  --write-client-config`, the CLI run to its exit, and nothing left running;
- `tour`: the scripted sessions the tests and `benchmarks.client_context` run.
"""
