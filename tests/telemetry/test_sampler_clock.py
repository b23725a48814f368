"""The telemetry sampler's clock against fio's: where its rows land on the series' periods.

- fio's series count from its job's start, which comes after the sampler's by fio's start-up; the
  engine puts the rows on fio's clock from json+ `job_start` (fio 3.36+) or `timestamp_ms` less the
  runtime (older fio), and leaves out rows from before fio's start. A fake fio here starts up for
  1.3 s, then logs 2.346 s of a recorded run, and says when its clock started.
- The sampler reads at whole multiples of its period from its start, not a period after each read
  returned (which drifted: 195 rows in 200 s), and skips the ticks a slow read covered.
- The first row's throttle flag is judged against a baseline reading (drive_source's probe, or one
  the thread takes), not left unjudged.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

import ssdlab.engines.fio as fio_engine
import ssdlab.telemetry.sampler as sampler_module
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import FioEngine
from ssdlab.measurement import Measurement, Series
from ssdlab.targets import parse_target
from ssdlab.telemetry.sampler import DriveSource, Sampler, drive_source, with_telemetry
from ssdlab.telemetry.sources import Sample
from ssdlab.workload import Workload

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "fio" / "randread-int"
NVME = (Path(__file__).resolve().parents[1] / "fixtures" / "telemetry" / "nvme-smart-log-throttling.json").read_text()
STARTUP_S = 1.3  # the fake fio's start-up: longer than a sampler period, so a row falls before it
RUNTIME_S = 2.346  # the recorded run's json+ runtime (ms 2346)


def fake_fio(tmp_path: Path, job_start: bool) -> Path:
    """A fio 3.33 (json+ without job_start) or 3.36+ (with it) that starts up for STARTUP_S, runs
    RUNTIME_S, then writes the recorded run's logs and output, stamped with its own wall clock; it
    leaves its clock's start (wall s) in `epoch` beside them, the truth the test checks against."""
    script = tmp_path / "fio"
    script.write_text(f"""#!{sys.executable}
import json, pathlib, re, shutil, sys, time
if "--version" in sys.argv:
    print("fio-3.33")
    sys.exit(0)
out = pathlib.Path(next(a for a in sys.argv if a.startswith("--output=")).split("=", 1)[1])
prefix = re.search(r"write_iops_log=(\\S+)", pathlib.Path(sys.argv[-1]).read_text()).group(1)
time.sleep({STARTUP_S})
epoch = time.time()
pathlib.Path("epoch").write_text(repr(epoch))
time.sleep({RUNTIME_S})
for kind in ("iops", "bw", "lat"):
    shutil.copy("{RECORDED}/randread-int_" + kind + ".1.log", prefix + "_" + kind + ".1.log")
time.sleep(0.02)  # writing its logs and results
text = pathlib.Path("{RECORDED}/randread-int.json").read_text()
data = json.loads(text[text.index("{{"):])
data["timestamp_ms"] = int(time.time() * 1000)
if {job_start}:
    data["jobs"][0]["job_start"] = int(epoch * 1000)
out.write_text(json.dumps(data))
""")
    script.chmod(0o755)
    return script


class WallReader:
    """A drive whose 'temperature' is the wall-clock time it was read at: a row's value says when
    it was read, to compare with the t_s it is stamped at on fio's clock."""

    def read(self) -> Sample:
        return {"temp_c": time.time()}


@pytest.mark.parametrize("job_start", [True, False], ids=["fio-3.36-job_start", "fio-3.33-timestamp_ms"])
def test_the_rows_are_put_on_fios_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, job_start: bool) -> None:
    """Each row's t_s is when it was read, counted from fio's start (the sampler's clock starts
    STARTUP_S and more before it: every row was that late on the series); the row read while fio
    was still starting up stands for none of the run and is left out."""
    monkeypatch.setattr(fio_engine, "telemetry_sampler", lambda kind, spec, run=None, facts=None: Sampler(
        drive=DriveSource("wall clock", WallReader().read)))
    raw = tmp_path / "raw"
    engine = FioEngine(binary=str(fake_fio(tmp_path, job_start)), ioengine="psync")
    target = parse_target(f"file:{tmp_path / 'scratch'}?size=4m")
    w = Workload(name="r", pattern="randread", block_size_bytes=4096, runtime_s=RUNTIME_S)
    m = engine.measure(target, w, RunContext(raw_dir=raw, bundle_dir=tmp_path))
    epoch = float((raw / "epoch").read_text())
    t_s, read_at = m.telemetry["t_s"], [wall - epoch for wall in m.telemetry["temp_c"]]
    assert m.series.t_s[-1] == RUNTIME_S and len(t_s) >= 2
    assert all(t > 0 for t in t_s)  # the row read at the sampler's first second, in fio's start-up: gone
    # job_start is fio's clock's start to the ms; timestamp_ms less the runtime is late by what fio
    # does after its last I/O (20 ms in the fake, about that for real fio's averaged logs); both
    # with room for a busy machine's scheduling
    tolerance_s = 0.01 if job_start else 0.15
    assert max(abs(t - at) for t, at in zip(t_s, read_at, strict=True)) < tolerance_s  # was STARTUP_S and more


def test_fios_start_from_its_output() -> None:
    """job_start when fio gives it; else the output's time less the runtime; None without either."""
    out = {"fio version": "fio-3.36", "timestamp_ms": 1_000_005_000, "jobs": [{"job_start": 1_000_001_234}]}
    assert fio_engine.fio_start_wall_s(json.dumps(out), 3.7) == 1_000_001.234
    old = {"fio version": "fio-3.33", "timestamp_ms": 1_000_005_000, "jobs": [{"jobname": "j"}]}
    assert fio_engine.fio_start_wall_s("fio: note\n" + json.dumps(old), 3.7) == pytest.approx(1_000_001.3)
    assert fio_engine.fio_start_wall_s(json.dumps({"jobs": [{"job_start": 0}]}), 1.0) is None
    assert fio_engine.fio_start_wall_s("", 1.0) is None


def test_rows_outside_the_run_stand_for_none_of_it() -> None:
    """On the measurement's clock: rows read before its start are left out (the first kept one
    stands for the time from the start), and rows after one read at or past its end (the one
    read just after the end stands for the run's last moments)."""
    channels = {"t_s": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0), "temp_c": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)}
    on_clock = sampler_module.on_measurement_clock
    assert on_clock(channels, 2.25, 2.5) == {"t_s": (0.75, 1.75, 2.75), "temp_c": (3.0, 4.0, 5.0)}
    assert on_clock(channels, 9.0, 2.0) == {}
    sampler = Sampler(drive=None)
    sampler.rows = [(float(t), {"temp_c": float(t)}) for t in range(1, 7)]
    ones = (1.0, 1.0, 1.0)
    series = Series(t_s=(1.0, 2.0, 3.0), read_ios=ones, read_bytes=ones, write_ios=ones, write_bytes=ones,
                    read_lat_sum_ns=ones, write_lat_sum_ns=ones)
    m = Measurement(workload=Workload(name="w", pattern="read", block_size_bytes=4096, runtime_s=3),
                    engine="fio", runtime_s=3.0, series=series)
    assert with_telemetry(m, sampler, 1.5).telemetry["t_s"] == (0.5, 1.5, 2.5, 3.5)
    assert with_telemetry(m, sampler).telemetry["t_s"] == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)  # no start: as sampled


class FakeTime:
    """The sampler's clock, moved by the drive's reads and by the sampler's waits."""

    def __init__(self) -> None:
        self.t = 0.0
        self.stop_at = math.inf

    def clock(self) -> float:
        return self.t

    def wait(self, seconds: float) -> bool:
        self.t += seconds
        return self.t > self.stop_at


def cadence(read_s: list[float], seconds: float) -> list[float]:
    """The rows' t_s of a sampler run for `seconds` on a fake clock, its reads taking `read_s`
    in turn (the last for all after)."""
    fake = FakeTime()
    fake.stop_at = seconds
    reads = iter(read_s)
    last = [read_s[-1]]

    def read() -> Sample:
        fake.t += next(reads, last[0])
        return {"temp_c": 40.0}

    sampler = Sampler(drive=DriveSource("test", read), proc_stat=Path("/nonexistent/stat"), clock=fake.clock,
                      wait=fake.wait)
    sampler._last_drive = {}  # a baseline: the loop reads none first
    sampler._loop()  # here, not on a thread: the fake clock moves only by the reads and waits
    return [t for t, _ in sampler.rows]


def test_the_sampler_reads_on_whole_seconds_from_its_start() -> None:
    """200 s, each read taking 30 ms: a row at each whole second plus the read (a second after
    each read returned gave 195 rows, sliding 30 ms a second against fio's periods)."""
    rows = cadence([0.03], 200.0)
    assert len(rows) == 200
    assert rows == pytest.approx([k + 0.03 for k in range(1, 201)])


def test_a_read_that_overruns_skips_the_ticks_it_covered() -> None:
    """A 1.5-s read at the third second: the next row is at the fifth, not straight after it."""
    rows = cadence([0.03, 0.03, 1.5, 0.03], 6.0)
    assert rows == pytest.approx([1.03, 2.03, 4.5, 5.03, 6.03])


def test_the_thread_reads_at_its_whole_seconds_on_real_clocks() -> None:
    """Real clocks and the thread's own wait: each read begins at the whole second it waited for,
    never before (a wait may end a little early: the clock is read again), and the next read does
    not wait a period after a read returned (that made 1.25, 2.5, 3.75). Where the rows land to the
    ms is checked on the fake clock (test_the_sampler_reads_on_whole_seconds_from_its_start): rows
    asked to be within 0.12 s of 1.25, 2.25, 3.25 here were 1.44, 2.61, 3.44 on a machine that ran
    the thread 0.4 s late (a loaded CI machine's scheduler)."""
    began: list[float] = []

    def slow_read() -> Sample:
        began.append(sampler.clock() - sampler._t0)
        time.sleep(0.25)
        return {"temp_c": 40.0}

    sampler = Sampler(drive=DriveSource("slow", slow_read), proc_stat=Path("/nonexistent/stat"))
    sampler.start()
    deadline = time.monotonic() + 60
    while len(sampler.rows) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    sampler.stop()
    rows = [t for t, _ in sampler.rows]
    assert len(rows) >= 3
    tick = 1  # the loop's rule: the next whole second, or the one after a read that overran it
    for k, row in enumerate(rows):
        assert began[k + 1] >= tick * sampler.period_s  # began[0]: the baseline read (no probe)
        assert row >= began[k + 1] + 0.25  # stamped as its read returned
        tick = max(tick + 1, math.floor(row / sampler.period_s) + 1)
    # A period after each read returned, no read would begin sooner than that; on the ticks, each
    # does (0.75 s after), unless the machine held the thread back 0.25 s at every tick.
    assert any(began[k + 1] < rows[k - 1] + sampler.period_s for k in range(1, len(rows)))


def test_stop_in_the_middle_of_a_wait_returns_at_once() -> None:
    """Ctrl-C during a run: stop() ends the thread's wait for its next reading, not at its end
    (a 60-s period here: a return before half of it is not the wait's end, however loaded the machine)."""
    read = threading.Event()

    def reading() -> Sample:
        read.set()
        return {"temp_c": 40.0}

    sampler = Sampler(drive=DriveSource("once", reading), proc_stat=Path("/nonexistent/stat"), period_s=60.0)
    sampler.start()
    assert read.wait(30)  # the baseline read: the thread then waits for its first whole period
    asked = time.monotonic()
    sampler.stop()
    assert time.monotonic() - asked < 30
    assert sampler._thread is not None and not sampler._thread.is_alive()
    assert sampler.rows == []


def counting(samples: list[Sample]) -> tuple[DriveSource, list[int]]:
    calls = [0]

    def read() -> Sample:
        calls[0] += 1
        return dict(samples[min(calls[0], len(samples)) - 1])

    return DriveSource("counters", read), calls


def first_row(sampler: Sampler) -> Sample:
    sampler.start()
    deadline = time.monotonic() + 3.0
    while not sampler.rows and time.monotonic() < deadline:
        time.sleep(0.05)
    sampler.stop()
    assert sampler.rows
    return sampler.rows[0][1]


def test_the_first_row_is_judged_against_a_baseline() -> None:
    """A drive that spent a second in thermal management before the first row: that row is
    flagged (it had no flag: no counters before it to compare with)."""
    source, calls = counting([{"thm_temp1_total_s": 10.0}, {"thm_temp1_total_s": 11.0}])
    assert first_row(Sampler(drive=source, proc_stat=Path("/nonexistent/stat")))["throttle_active"] == 1.0
    assert calls[0] >= 2  # the baseline, then the row


def test_drive_sources_probe_is_the_baseline() -> None:
    """drive_source reads the drive once to find it; that reading is the baseline, so the drive
    answers no second log-page command before the first row (its `nvme id-ctrl`, an Identify
    command read once as the source is found, gives no answer here: its counters are taken as an
    indicator, as without one)."""
    later = json.loads(NVME)
    later["thm_temp1_total_time"] += 1
    outputs = iter([NVME, json.dumps(later)])
    calls = threading.Semaphore(0)

    def run(argv: Sequence[str]) -> str | None:
        if "smart-log" not in argv:
            return None
        calls.release()
        return next(outputs, None)

    source, note = drive_source("/dev/nvme0n1", run)
    assert source is not None and note is None and source.probe is not None
    row = first_row(Sampler(drive=source, proc_stat=Path("/nonexistent/stat")))
    assert row["throttle_active"] == 1.0
    assert [calls.acquire(blocking=False) for _ in range(3)] == [True, True, False]  # the probe and the row
