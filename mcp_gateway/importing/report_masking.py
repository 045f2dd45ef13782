"""An import report's free text through the secret mask: the last step before a report leaves the service.

Entries are masked where they are built (`importing.masking.mask_json`), but free text carries values too:
a sign-in check's error names the url it asked (`user:password@` included), a launch check quotes the
command's output, a client's note may quote an argument. Each of them passes through the `SecretMask`
built from the secrets of the client's entries (`importing.masking.secrets_in`), which also masks what is
shaped like a credential in any url, so one policy covers every line `import` prints.
"""

from __future__ import annotations

from dataclasses import replace

from mcp_gateway.importing.reports import ImportReport
from mcp_gateway.masking import SecretMask


def masked_report(report: ImportReport, mask: SecretMask) -> ImportReport:
    """`report` with every free-text field masked; the entries in it are masked already."""

    def each(texts: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(mask.mask(text) for text in texts)

    def maybe(text: str | None) -> str | None:
        return None if text is None else mask.mask(text)

    servers = tuple(replace(s, reason=maybe(s.reason), notes=each(s.notes)) for s in report.servers)
    entry = report.client_entry
    entry = replace(
        entry, text=mask.mask(entry.text), start_problem=maybe(entry.start_problem), warnings=each(entry.warnings)
    )
    refreshed = tuple(replace(r, failure=maybe(r.failure)) for r in report.refreshed)
    return replace(
        report,
        servers=servers,
        notes=each(report.notes),
        client_entry=entry,
        refreshed=refreshed,
        write_failure=maybe(report.write_failure),
        contacted=each(report.contacted),
        not_contacted=each(report.not_contacted),
    )
