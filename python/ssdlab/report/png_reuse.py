"""A chart's PNG carries the key of what drew it, so the next report of the same bundle keeps a
chart whose spec has not changed instead of drawing it again. Drawing a PNG is most of a report's
time: vl-convert takes ~1.3 s to start and ~0.2 s a chart (2026-11-29), and a report drawn again
(after a re-analysis, a library change that adds a ranking, or simply run twice) drew every chart
again. The key sits in a standard tEXt chunk right after the header, which every PNG reader skips.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any

SIGNATURE = b"\x89PNG\r\n\x1a\n"
KEYWORD = b"ssdlab-chart"  # the tEXt chunk's keyword (1-79 Latin-1 characters)
IHDR_END = len(SIGNATURE) + 4 + 4 + 13 + 4  # signature, then IHDR: length, type, 13 bytes of data, CRC
IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # the last chunk of every whole PNG
MAX_KEPT_BYTES = 32 * 1024 * 1024  # a chart is tens of KiB; anything far larger is not one of ours


def chart_key(spec: Any, *drawn_with: object) -> str:
    """What the PNG depends on: the spec as drawn, and what draws it (vl-convert and Vega-Lite
    versions, the scale)."""
    text = json.dumps([spec, [str(x) for x in drawn_with]], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")


def keyed(png: bytes, key: str) -> bytes:
    """`png` with the key in a tEXt chunk after its header (PNG requires IHDR first)."""
    if png[:len(SIGNATURE)] != SIGNATURE or png[12:16] != b"IHDR":
        return png  # not a PNG we can mark: drawn again next time, as before
    return png[:IHDR_END] + _chunk(b"tEXt", KEYWORD + b"\0" + key.encode("ascii")) + png[IHDR_END:]


def kept(path: Path, key: str) -> bytes | None:
    """The PNG at `path` when it is a whole one drawn from `key`, else None. A link at `path` is
    not followed (a planted one is never read), nor is anything but a regular file."""
    try:
        data = _regular_file_bytes(path)
    except OSError:  # gone, a link, unreadable: drawn again
        return None
    return data if data is not None and _key_of(data) == key and data.endswith(IEND) else None


def _regular_file_bytes(path: Path) -> bytes | None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_KEPT_BYTES:
            return None
        with open(fd, "rb", closefd=False) as handle:
            return handle.read(MAX_KEPT_BYTES + 1)
    finally:
        os.close(fd)


def _key_of(png: bytes) -> str | None:
    """The key in the tEXt chunk right after the header, as `keyed` puts it."""
    if png[:len(SIGNATURE)] != SIGNATURE:
        return None
    length = int.from_bytes(png[IHDR_END:IHDR_END + 4], "big")
    body = png[IHDR_END + 8:IHDR_END + 8 + length]
    if png[IHDR_END + 4:IHDR_END + 8] != b"tEXt" or not body.startswith(KEYWORD + b"\0"):
        return None
    return body[len(KEYWORD) + 1:].decode("latin-1")
