"""The config file written when there is none: every setting at its default and no servers.

Writing the defaults out (rather than an empty object) shows a user what can be tuned. The file is
created 0600 inside a 0700 directory because the servers added to it later carry tokens. Creation is
exclusive and never through a link, so neither a file another process wrote meanwhile nor a file a
dangling link points to is ever written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcp_gateway.config.models import Settings
from mcp_gateway.errors import ConfigError
from mcp_gateway.paths import ensure_private_dir
from mcp_gateway.workspace_files import create_exclusive

CONFIG_VERSION = 1
JSON_INDENT = 2


def default_config_text() -> str:
    settings = {
        key: int(value) if isinstance(value, float) and value.is_integer() else value
        for key, value in Settings().model_dump(mode="json", by_alias=True).items()
    }
    document = {"version": CONFIG_VERSION, "settings": settings, "mcpServers": {}}
    return json.dumps(document, indent=JSON_INDENT, ensure_ascii=False) + "\n"


def write_default_config(path: Path) -> bool:
    """Create `path` (and its directory) with the template unless something, a link included, is there;
    whether it was created.

    Raises:
        ConfigError: the file or its directory cannot be created.
    """
    try:
        ensure_private_dir(path.parent)
        fd = create_exclusive(path)
    except FileExistsError:
        return False
    except OSError as exc:
        raise _cannot_create(path, exc) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(default_config_text())
    except OSError as exc:
        path.unlink(missing_ok=True)  # a half-written template would fail to parse on the next start
        raise _cannot_create(path, exc) from exc
    return True


def _cannot_create(path: Path, exc: OSError) -> ConfigError:
    reason = exc.strerror or type(exc).__name__
    return ConfigError(f"{path}: cannot create the config file ({reason}); check the directory's permissions")
