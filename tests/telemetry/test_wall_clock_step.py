"""A wall-clock step during a run (NTP moving the clock by minutes) moves neither the sampler's rows
nor where fio's start lands on its clock.

The sampler stamps its rows and keeps its cadence on the monotonic clock; the wall clock is read only
at its start and stop, to put fio's wall-clock stamps onto it (Sampler.at_wall). fio 3.36+ gives its
job's start (json+ `job_start`), read before any step in the run. Older fio gives only the time it
wrote its output (`timestamp_ms`), read after the step: that stamp less the runtime in wall seconds
was a time of the clock after the step mapped through the reading before it, so every telemetry row
landed the step late (120 s) on fio's periods, and rows of the run's first two minutes were left
out as "before fio's start"."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

import ssdlab.engines.fio as fio_engine
from ssdlab.telemetry.sampler import DriveSource, Sampler
from ssdlab.telemetry.sources import Sample

STARTUP_S = 1.3  # the sampler's start to fio's
RUNTIME_S = 600.0
STEP_S = 120.0  # NTP moves the wall clock forward, 300 s into the run
WRITE_S = 0.02  # fio's output is written this long after its last I/O
EPOCH = 1_900_000_000.0  # the wall clock at the sampler's start


class Clocks:
    """A monotonic clock and a wall clock that steps by STEP_S once the monotonic one passes 300 s."""

    def __init__(self) -> None:
        self.t = 0.0
        self.stop_at = math.inf

    def mono(self) -> float:
        return 1000.0 + self.t

    def wall(self) -> float:
        return EPOCH + self.t + (STEP_S if self.t >= 300.0 else 0.0)

    def wait(self, seconds: float) -> bool:
        self.t += seconds
        return self.t > self.stop_at


def stepped_run(job_start: bool) -> tuple[Sampler, str]:
    """A sampler run around a fio run of RUNTIME_S begun STARTUP_S after it, the wall clock
    stepping in the middle; fio's json+ output as that fio writes it."""
    clocks = Clocks()
    sampler = Sampler(drive=None, proc_stat=Path("/nonexistent/stat"), clock=clocks.mono, wall_clock=clocks.wall)
    sampler.start()
    clocks.t = STARTUP_S
    fio_started = clocks.wall()
    clocks.t = STARTUP_S + RUNTIME_S + WRITE_S
    job: dict[str, object] = {"jobname": "thermal-seq"}
    if job_start:
        job["job_start"] = int(fio_started * 1000)
    output = json.dumps({"fio version": "fio-3.36" if job_start else "fio-3.33",
                         "timestamp_ms": int(clocks.wall() * 1000), "jobs": [job]})
    clocks.t += 0.05
    sampler._stop.set()  # no thread was started: stop() reads the clocks only
    sampler.stop()
    return sampler, output


@pytest.mark.parametrize("job_start", [True, False], ids=["fio-3.36-job_start", "fio-3.33-timestamp_ms"])
def test_fios_start_lands_where_it_was_on_the_samplers_clock(job_start: bool) -> None:
    """fio started STARTUP_S after the sampler, whatever the wall clock did during the run (was
    121.3 s from timestamp_ms: the step's 120 s late)."""
    sampler, output = stepped_run(job_start)
    start_s = fio_engine._fio_start_on(sampler, output, RUNTIME_S)
    assert start_s is not None
    late_s = WRITE_S + 0.001 if not job_start else 0.001  # timestamp_ms is late by fio's writing, and ms
    assert STARTUP_S - 0.001 <= start_s <= STARTUP_S + late_s


def test_the_samplers_rows_keep_their_cadence_through_a_wall_clock_step() -> None:
    """Rows at whole seconds from the start, each 30 ms read, on the monotonic clock, the wall clock
    stepping 120 s at 300 s: 600 rows, none moved; the sampler's own clock is the monotonic one."""
    clocks = Clocks()
    clocks.stop_at = 600.0

    def read() -> Sample:
        clocks.t += 0.03
        return {"temp_c": 40.0}

    sampler = Sampler(drive=DriveSource("test", read), proc_stat=Path("/nonexistent/stat"), clock=clocks.mono,
                      wall_clock=clocks.wall, wait=clocks.wait)
    sampler._t0 = clocks.mono()
    sampler._last_drive = {}  # a baseline: the loop reads none first
    sampler._loop()  # here, not on a thread: the fake clocks move only by the reads and waits
    rows = [t for t, _ in sampler.rows]
    assert rows == pytest.approx([k + 0.03 for k in range(1, 601)])
    assert Sampler(drive=None).clock is time.monotonic
