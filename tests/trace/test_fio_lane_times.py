"""Issue and completion times of a fio replay, from its per-lane latency logs (trace.fio_replay).

QA (2026-11-28, a captured fio run replayed on a loop device): fio logs each completion in whole
ms, and every I/O that completed within the same ms was taken to complete at that ms. A lane runs
at iodepth 1, so its I/Os never overlap; taken that way, ten 70 µs writes of one ms overlapped and
the replay's busy time was a quarter of the sum of fio's own latencies (5.25 ms for 21.1 ms): its
data rate read 826.6 MB/s for 205 MB/s."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ssdlab.trace.fio_replay import lat_rows, lat_times_ns
from ssdlab.trace.metrics import BusyClock


def _log(path: Path, rows: list[tuple[int, int, int, int]]) -> Path:
    path.write_text("".join(f"{ms}, {lat}, {ddir}, {bs}, 0\n" for ms, lat, ddir, bs in rows))
    return path


def test_a_lanes_ios_within_one_ms_do_not_overlap(tmp_path: Path) -> None:
    log = _log(tmp_path / "replay_lat.1.log", [(0, 70_000, 1, 4096)] * 10)
    issue, done = lat_times_ns(lat_rows([log]))
    assert (done - issue == 70_000).all()
    assert (issue[1:] >= done[:-1]).all()  # iodepth 1: each after the one before completed
    busy = BusyClock()
    busy.add(issue, done)
    assert busy.total_ns == 10 * 70_000


def test_two_lanes_overlap_each_other_but_not_themselves(tmp_path: Path) -> None:
    one = _log(tmp_path / "replay_lat.1.log", [(0, 300_000, 1, 4096), (0, 300_000, 0, 4096), (2, 100_000, 1, 4096)])
    two = _log(tmp_path / "replay_lat.2.log", [(0, 500_000, 0, 4096)])
    rows = lat_rows([one, two])
    assert rows[:, 4].tolist() == [0, 0, 0, 1]
    issue, done = lat_times_ns(rows)
    # lane 1: 0-0.3 ms, 0.3-0.6 ms, then its ms (2) allows 1.9-2.0 ms; lane 2: 0-0.5 ms
    assert issue.tolist() == [0, 300_000, 1_900_000, 0]
    assert done.tolist() == [300_000, 600_000, 2_000_000, 500_000]


def test_a_lane_pushed_past_its_ms_stays_within_it() -> None:
    """A completion is in [ms, ms + 1): taking the earliest consistent times keeps it there."""
    rows = np.array([[0, 900_000, 1, 4096, 0], [1, 900_000, 1, 4096, 0]], dtype=np.int64)
    issue, done = lat_times_ns(rows)
    assert done.tolist() == [900_000, 1_800_000] and issue.tolist() == [0, 900_000]
