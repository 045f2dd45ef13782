"""demo-toolbox: a small, real MCP server of everyday utilities (for `mcp-gateway demo`).

Unit conversions, the time in a time zone, text statistics, and a generated PNG badge (so the demo can
show an image passing through the gateway unchanged). Standard library only, no network.
"""

from __future__ import annotations

import struct
import zlib
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcp.server import MCPServer
from mcp.server.mcpserver.utilities.types import Image

server = MCPServer("demo-toolbox", instructions="Everyday utilities: units, time zones, text, images.")

TemperatureUnit = Literal["C", "F", "K"]
LengthUnit = Literal["mm", "cm", "m", "km", "in", "ft", "yd", "mi"]
_METRES = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "yd": 0.9144, "mi": 1609.344}
SENTENCE_ENDS = ".!?\u3002\uff01\uff1f"
"""Latin and CJK full stops, exclamation and question marks."""
_COLOURS = {"green": (46, 160, 67), "red": (207, 34, 46), "blue": (9, 105, 218), "grey": (110, 119, 129)}


@server.tool()
def convert_temperature(value: float, from_unit: TemperatureUnit, to_unit: TemperatureUnit) -> float:
    """Convert a temperature between Celsius (C), Fahrenheit (F) and Kelvin (K)."""
    celsius = {"C": value, "F": (value - 32) * 5 / 9, "K": value - 273.15}[from_unit]
    return round({"C": celsius, "F": celsius * 9 / 5 + 32, "K": celsius + 273.15}[to_unit], 4)


@server.tool()
def convert_length(value: float, from_unit: LengthUnit, to_unit: LengthUnit) -> float:
    """Convert a length or distance between metric and imperial units (mm, cm, m, km, in, ft, yd, mi)."""
    return round(value * _METRES[from_unit] / _METRES[to_unit], 6)


@server.tool()
def current_time(timezone: str = "UTC") -> str:
    """The current date and time in an IANA time zone such as Europe/Paris or Asia/Shanghai."""
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"unknown time zone {timezone!r}; use an IANA name such as Europe/Paris") from error
    return datetime.now(zone).isoformat(timespec="seconds")


@server.tool()
def text_stats(text: str) -> dict[str, int]:
    """Count the characters, words, lines and sentences of a text."""
    sentences = sum(text.count(mark) for mark in SENTENCE_ENDS)
    return {"characters": len(text), "words": len(text.split()), "lines": text.count("\n") + 1, "sentences": sentences}


@server.tool()
def make_badge(color: Literal["green", "red", "blue", "grey"] = "green", width: int = 48, height: int = 16) -> Image:
    """Draw a plain coloured badge as a PNG image."""
    width, height = max(1, min(width, 512)), max(1, min(height, 512))
    return Image(data=_png(width, height, _COLOURS[color]), format="png")


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    row = b"\x00" + bytes(rgb) * width
    raw = zlib.compress(row * height)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


if __name__ == "__main__":
    server.run()
