"""Facts about the machine doing the measuring, recorded in every bundle."""

from __future__ import annotations

import os
import platform
import socket
from pathlib import Path
from typing import Any

from ssdlab import __version__


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def meminfo_bytes(field: str) -> int | None:
    """A /proc/meminfo figure (MemTotal, MemAvailable, …) in bytes, or None where it cannot be read."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_bytes() -> int | None:
    return meminfo_bytes("MemTotal")


def host_facts(engine: str, engine_version: str) -> dict[str, Any]:
    return {
        "hostname": socket.gethostname(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_bytes": memory_bytes(),
        "python": platform.python_version(),
        "ssdlab_version": __version__,
        "engine": engine,
        "engine_version": engine_version,
    }
