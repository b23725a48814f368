"""A full disk where the bundle is: fio exits 0 with an empty JSON file and says nothing, so the
cause must lead the line (engines/fio_parse.results_unwritten), not "fio wrote no JSON results"."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ssdlab.engines import fio_parse
from ssdlab.engines.fio import FioEngine
from ssdlab.errors import EngineError
from ssdlab.workload import Workload

FULL, NO_JSON = "No space left on device in", "fio wrote no JSON results"


@pytest.mark.parametrize(("free", "leads"), [(0, FULL), (4096, FULL), (10 << 20, NO_JSON), (None, NO_JSON)])
def test_no_json_on_a_full_disk_says_the_disk_is_full_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            free: int | None, leads: str) -> None:
    """QA: a full --out folder failed with "fio wrote no JSON results; …", ENOSPC far behind in the line."""
    monkeypatch.setattr(fio_parse, "free_bytes", lambda folder: free)
    ctx: Any = SimpleNamespace(raw_dir=tmp_path)
    workload = Workload(name="w", pattern="write", block_size_bytes=4096, runtime_s=1.0)
    with pytest.raises(EngineError) as failed:
        FioEngine()._measurement(workload, ctx, "", {})
    text = str(failed.value)
    assert text.startswith(leads) and "\n" not in text, text
    if free is not None and free < fio_parse.ROOM_FOR_RESULTS_BYTES:
        assert f"in {tmp_path}" in text and "fio wrote no JSON results" in text and "free space on that disk" in text


def test_the_free_space_of_a_real_folder_is_read(tmp_path: Path) -> None:
    free = fio_parse.free_bytes(tmp_path)
    assert free is not None and free >= 0
    assert fio_parse.free_bytes(tmp_path / "no such folder") is None
