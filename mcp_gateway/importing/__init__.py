"""Importing: the servers a person already has in an AI client's config, brought into the gateway, the client
pointed at the gateway, and that undone.

`ImportService` is the one door (the command line renders its reports): read the client's file
(`clients`, one table-driven description per client format), ask each remote server that sends no
credentials whether it needs a sign-in (`sign_in`), merge into the gateway's `config.json` without
overwriting what a person made (`merge`), choose and check the command the client will start the gateway
with (`launch`), then back the client file up and rewrite it (`backups`); and walk those backups back
(`restoring`). Reports hold no secret (`reports`).
"""

from mcp_gateway.importing.backups import (
    BackupChoice,
    KeptVersion,
    RestoreRequest,
    WalkEnded,
    write_atomically,
)
from mcp_gateway.importing.clients import (
    CLIENTS,
    Edit,
    JsonNode,
    Where,
    apply_edits,
    replace_value,
    splice_members,
)
from mcp_gateway.importing.launch import check_launch, this_installation
from mcp_gateway.importing.merge import parse_config_text
from mcp_gateway.importing.reports import AskingForSignIns, ClientEntry, ImportReport, ImportRequest
from mcp_gateway.importing.service import Clock, ImportService, Launching, system_clock
from mcp_gateway.importing.sign_in import Probe, http_status, needs_login

__all__ = [
    "CLIENTS",
    "AskingForSignIns",
    "BackupChoice",
    "ClientEntry",
    "Clock",
    "Edit",
    "ImportReport",
    "ImportRequest",
    "ImportService",
    "JsonNode",
    "KeptVersion",
    "Launching",
    "Probe",
    "RestoreRequest",
    "WalkEnded",
    "Where",
    "apply_edits",
    "check_launch",
    "http_status",
    "needs_login",
    "parse_config_text",
    "replace_value",
    "splice_members",
    "system_clock",
    "this_installation",
    "write_atomically",
]
