"""The simulator engine end to end through the Python side (the Rust core has its own tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.engines.base import ProgressUpdate, RunContext
from ssdlab.errors import Cancelled, Stopped, UsageError
from ssdlab.steps import Idle, Purge
from ssdlab.units import GIB, KIB, MIB
from ssdlab.workload import Workload

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")

from ssdlab._ssdsim import Drive
from ssdlab.engines import sim as sim_engine
from ssdlab.engines.sim import SimEngine
from ssdlab.targets import parse_target
from ssdlab.targets.sim import SimTarget

SMALL = "sim:sm951-nvme-256?capacity_gib=2"


def _ctx(tmp_path: Path, seen: list[ProgressUpdate] | None = None) -> RunContext:
    def progress(update: ProgressUpdate) -> None:
        if seen is not None:
            seen.append(update)

    return RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path, progress=progress)


def test_default_target_identity() -> None:
    info = parse_target("sim:").info()
    assert info.kind == "sim"
    assert info.transport == "sim-nvme" and info.is_nvme
    assert info.extra["preset"] == "sm951-nvme-256"
    assert 240e9 < info.capacity_bytes < 260e9


def test_bad_preset_and_option_are_one_line() -> None:
    with pytest.raises(UsageError) as err:
        parse_target("sim:no-such-drive")
    assert "\n" not in str(err.value) and "sm951-nvme-256" in str(err.value)
    with pytest.raises(UsageError) as err:
        parse_target("sim:sm951-nvme-256?colour=red")
    assert "\n" not in str(err.value) and "colour" in str(err.value)


def test_random_read_measurement_is_consistent(tmp_path: Path) -> None:
    target = parse_target(SMALL)
    engine = SimEngine()
    fill = Workload(name="fill", pattern="write", block_size_bytes=128 * KIB, iodepth=32, size_bytes=GIB)
    engine.measure(target, fill, _ctx(tmp_path))
    seen: list[ProgressUpdate] = []
    w = Workload(name="rr", pattern="randread", block_size_bytes=4 * KIB, iodepth=32, runtime_s=3, span_bytes=GIB)
    m = engine.measure(target, w, _ctx(tmp_path, seen))
    assert m.engine == "sim" and not m.interrupted
    assert m.runtime_s == pytest.approx(3.0, rel=0.01)
    assert m.write.ios == 0 and m.read.bytes == m.read.ios * 4 * KIB
    assert len(m.series) == 3
    assert sum(m.series.read_ios) == m.read.ios
    assert m.read.hist.count == m.read.ios
    # Little's law: 32 outstanding = IOPS x mean latency.
    assert m.iops() * m.mean_lat_us() / 1e6 == pytest.approx(32, rel=0.05)
    assert seen and seen[-1].sim_time_s is not None
    assert set(m.telemetry) >= {"t_s", "temp_c", "wa", "free_blocks"}


def test_steps_purge_and_idle(tmp_path: Path) -> None:
    target = parse_target(SMALL)
    engine = SimEngine()
    w = Workload(name="w", pattern="write", block_size_bytes=MIB, iodepth=8, size_bytes=256 * MIB)
    engine.measure(target, w, _ctx(tmp_path))
    purged = engine.step(target, Purge(), _ctx(tmp_path))
    assert purged.detail["state_after"]["valid_pages"] == 0  # type: ignore[index]
    idle = engine.step(target, Idle(seconds=5), _ctx(tmp_path))
    assert idle.elapsed_s == pytest.approx(5.0)


@pytest.mark.parametrize(("stop_with", "said"), [
    (KeyboardInterrupt(), "interrupted by the user"),
    (Stopped(15), "terminated (SIGTERM)"),  # the CLI's SIGTERM handler raises this: name the signal
    (Cancelled(), "interrupted by the user"),  # QA: the run-ahead half stopped with the run said "Cancelled"
])
def test_interrupt_returns_partial_measurement(tmp_path: Path, stop_with: BaseException, said: str) -> None:
    target = parse_target(SMALL)

    def stop(update: ProgressUpdate) -> None:
        if update.elapsed_s >= 2:
            raise stop_with

    ctx = RunContext(raw_dir=tmp_path, bundle_dir=tmp_path, progress=stop)
    w = Workload(name="rw", pattern="randwrite", block_size_bytes=4 * KIB, iodepth=32, runtime_s=60)
    m = SimEngine().measure(target, w, ctx)
    assert m.interrupted and m.error == said  # not Python's class name
    assert 0 < m.runtime_s < 60 and m.write.ios > 0


def test_determinism(tmp_path: Path) -> None:
    w = Workload(name="rw", pattern="randwrite", block_size_bytes=4 * KIB, iodepth=8, runtime_s=2, seed=7)
    a = SimEngine().measure(parse_target(SMALL), w, _ctx(tmp_path))
    b = SimEngine().measure(parse_target(SMALL), w, _ctx(tmp_path))
    assert a.write == b.write and a.series == b.series


@pytest.fixture
def stores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drives are stored as a run would store them (tests store none by wall time: conftest)."""
    monkeypatch.setattr(sim_engine, "MIN_PREP_WALL_S", 0.0)


def test_the_split_store_and_the_next_checkpoint_share_one_copy_of_the_drive(tmp_path: Path, stores: None) -> None:
    """At a run-ahead split the store and the starting test's checkpoint are the same drive:
    one copy of a large simulated drive, not two (each is the drive's full size in memory)."""
    target, engine = parse_target(SMALL), SimEngine()
    assert isinstance(target, SimTarget)
    w = Workload(name="w", pattern="write", block_size_bytes=MIB, iodepth=8, size_bytes=256 * MIB)
    engine.measure(target, w, _ctx(tmp_path))
    storing = engine.store_start(target, "split", ["t"], wall_s=1e6, unkept=pytest.fail)
    assert storing is not None and target.spare is not None
    stored = target.spare[1]
    engine.checkpoint(target)
    assert target.checkpoint is stored and target.spare is None
    storing.join()
    # Anything run in between makes the stored copy stale: the checkpoint is the drive as it is now.
    storing = engine.store_start(target, "split-2", ["t"], wall_s=1e6, unkept=pytest.fail)
    assert storing is not None and target.spare is not None
    stored = target.spare[1]
    engine.step(target, Idle(seconds=1), _ctx(tmp_path))
    engine.checkpoint(target)
    assert target.checkpoint is not stored and target.spare is None
    saved = engine.saved_state(target)
    assert saved is not None and Drive.restore(saved).state() == target.drive().state()
    storing.join()


def test_a_checkpoint_before_anything_ran_builds_no_drive_until_a_stop_asks_for_it(tmp_path: Path) -> None:
    """A run's first test takes its checkpoint of a drive nothing has run on: building the drive
    and copying it (the default preset: twice its third of a second and its mapping tables) was
    thrown away when the cache of prepared drives gave the test its drive. A stop still saves the
    fresh drive, the same as the one the run would have built."""
    target, engine = parse_target(SMALL), SimEngine()
    assert isinstance(target, SimTarget)
    engine.checkpoint(target)
    assert not target.built()
    saved = engine.saved_state(target)
    assert saved is not None and not target.built()
    assert saved == SimTarget.from_spec(SMALL).drive().snapshot()
    w = Workload(name="w", pattern="write", block_size_bytes=MIB, iodepth=8, size_bytes=64 * MIB)
    engine.measure(target, w, _ctx(tmp_path))  # the drive the test runs on is built when first used
    assert target.built() and engine.saved_state(target) == saved  # the checkpoint stays the start


def test_a_drive_being_stored_is_waited_for_at_exit(tmp_path: Path, stores: None) -> None:
    """The store runs in the simulator's Rust code with the GIL released: a daemon thread there when
    Python finalizes aborts the process (SIGABRT; PyO3 0.23 lets glibc's pthread_exit unwind Rust
    frames). A closed-pipe stop exited -6 once under load. The thread is no daemon, so exit waits."""
    target, engine = parse_target(SMALL), SimEngine()
    w = Workload(name="w", pattern="write", block_size_bytes=MIB, iodepth=8, size_bytes=64 * MIB)
    engine.measure(target, w, _ctx(tmp_path))
    storing = engine.store_start(target, "exit", ["t"], wall_s=1e6, unkept=pytest.fail)
    assert storing is not None and not storing.daemon
    storing.join()


def test_the_engine_reads_the_targets_facts_once_not_at_each_measurement(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """engines/sim.py read target.info() (every fact of the drive) for its capacity at each
    measurement, trim and store; a sim target's capacity is its configuration's, fixed for the run."""
    target = parse_target(SMALL)
    assert isinstance(target, SimTarget)
    calls: list[int] = []
    real = SimTarget.info

    def counted(self: SimTarget) -> object:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(SimTarget, "info", counted)
    engine = SimEngine()
    w = Workload(name="w", pattern="randwrite", block_size_bytes=4 * KIB, iodepth=4, runtime_s=0.2, span_bytes=GIB)
    for _ in range(3):
        engine.measure(target, w, _ctx(tmp_path))
    engine.step(target, Purge(offset_bytes=0, span_bytes=64 * MIB), _ctx(tmp_path))
    assert len(calls) == 1
    other = parse_target(SMALL)  # another target: its own capacity, read once too
    engine.measure(other, w, _ctx(tmp_path))
    assert len(calls) == 2
