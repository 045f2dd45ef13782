"""demo-notes: a small, real MCP server that keeps notes in a JSON file (for `mcp-gateway demo`).

The file lives in `$DEMO_NOTES_DIR` (the demo workspace), so the demo never writes anywhere else.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from pydantic import BaseModel

server = MCPServer("demo-notes", instructions="Notes with titles and tags, kept in a local file.")


class Note(BaseModel):
    id: int
    title: str
    text: str
    tags: list[str]
    created: float


def _path() -> Path:
    return Path(os.environ.get("DEMO_NOTES_DIR", ".")) / "notes.json"


def _load() -> list[Note]:
    try:
        return [Note.model_validate(item) for item in json.loads(_path().read_text())]
    except (OSError, ValueError):
        return []


def _save(notes: list[Note]) -> None:
    _path().write_text(json.dumps([note.model_dump() for note in notes], indent=1))


@server.tool()
def add_note(title: str, text: str, tags: list[str] | None = None) -> Note:
    """Create a note with a title, its text and optional tags. Returns the new note with its id."""
    notes = _load()
    note = Note(
        id=max((n.id for n in notes), default=0) + 1, title=title, text=text, tags=tags or [], created=time.time()
    )
    _save([*notes, note])
    return note


@server.tool()
def list_notes(tag: str | None = None) -> list[dict[str, Any]]:
    """List every note (id and title), or only the notes carrying a tag."""
    return [{"id": n.id, "title": n.title, "tags": n.tags} for n in _load() if tag is None or tag in n.tags]


@server.tool()
def search_notes(query: str) -> list[dict[str, Any]]:
    """Find notes whose title or text contains the query (case-insensitive)."""
    wanted = query.casefold()
    return [
        {"id": n.id, "title": n.title} for n in _load() if wanted in n.title.casefold() or wanted in n.text.casefold()
    ]


@server.tool()
def read_note(note_id: int) -> Note:
    """Read one note in full by its id."""
    for note in _load():
        if note.id == note_id:
            return note
    raise ValueError(f"there is no note {note_id}; call list_notes to see the ids")


@server.tool()
def tag_note(note_id: int, tags: list[str]) -> Note:
    """Add tags to an existing note."""
    notes = _load()
    for note in notes:
        if note.id == note_id:
            note.tags = sorted({*note.tags, *tags})
            _save(notes)
            return note
    raise ValueError(f"there is no note {note_id}; call list_notes to see the ids")


@server.tool()
def delete_note(note_id: int) -> str:
    """Delete a note permanently by its id."""
    notes = _load()
    kept = [note for note in notes if note.id != note_id]
    if len(kept) == len(notes):
        raise ValueError(f"there is no note {note_id}")
    _save(kept)
    return f"deleted note {note_id}"


if __name__ == "__main__":
    server.run()
