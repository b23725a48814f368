"""Shared bits for the fio engine tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab.workload import Workload

FIO_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fio"


def workload(**fields: Any) -> Workload:
    base: dict[str, Any] = {"name": "job", "pattern": "randread", "block_size_bytes": 4096, "runtime_s": 1}
    return Workload(**{**base, **fields})
