"""The audit trail: one line per tool call, prompt get, resource read and refusal, in logs/audit.jsonl.

`record.py` is what a line holds (time, session, server, tool, argument shape, outcome, duration, result size;
values only with `auditValues`, masked), `trail.py` writes it off the event loop (private file, never through
a link, rotated by size, a failure never failing a call), `auditor.py` is what the service audits its calls
with, and `reading.py` reads the files back (`mcp-gateway audit`): filtered, and exported as JSONL or CSV.
"""

from mcp_gateway.audit.auditor import Auditor, ClientInfo
from mcp_gateway.audit.reading import (
    AuditFilter,
    as_csv,
    as_jsonl,
    checked_outcome,
    parse_since,
    read_audit,
)
from mcp_gateway.audit.record import AuditedCall, AuditSession, json_size, line_of, shape_of, values_of
from mcp_gateway.audit.trail import AUDIT_FILE, AuditTrail

__all__ = [
    "AUDIT_FILE",
    "AuditFilter",
    "AuditSession",
    "AuditTrail",
    "AuditedCall",
    "Auditor",
    "ClientInfo",
    "as_csv",
    "as_jsonl",
    "checked_outcome",
    "json_size",
    "line_of",
    "parse_since",
    "read_audit",
    "shape_of",
    "values_of",
]
