"""A tool's questions to its caller (elicitation, sampling), from the server that asks to the client that
answers; below the service and `downstream`, importing neither.

- `routing.py`: on one downstream connection, which call a handshake-era server's question belongs to and who
  answers it (`Askers`, an `Asker` per call), with the call's deadline paused while a person answers.
- `relay.py`: `QuestionRelay`, `execute_tool` with its questions relayed across both protocol eras (a modern
  server's `input_required`, a handshake-era server's requests, held calls for a modern client).

The server door's side, how a client session is asked, is `server/asking.py`.
"""

from mcp_gateway.questions.relay import HELD_STATE_PREFIX, MAX_INPUT_ROUNDS, Nobody, QuestionRelay, unanswerable
from mcp_gateway.questions.routing import Answer, Askers, Asking, CallDeadline

__all__ = [
    "HELD_STATE_PREFIX",
    "MAX_INPUT_ROUNDS",
    "Answer",
    "Askers",
    "Asking",
    "CallDeadline",
    "Nobody",
    "QuestionRelay",
    "unanswerable",
]
