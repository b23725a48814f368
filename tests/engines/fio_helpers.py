"""Shared bits for the fio engine tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab.workload import Workload

FIO_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fio"


def workload(**fields: Any) -> Workload:
    base: dict[str, Any] = {"name": "job", "pattern": "randread", "block_size_bytes": 4096, "runtime_s": 1}
    return Workload(**{**base, **fields})


def fio_pids(marker: str) -> list[int]:
    """Pids of running fio processes whose command line contains `marker` (e.g. a raw directory)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline and "fio" in cmdline.split("\0")[0]:
                pids.append(int(entry.name))
    return pids
