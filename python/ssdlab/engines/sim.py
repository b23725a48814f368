"""The simulator engine: runs Workloads on a SimTarget's ssdsim Drive in virtual time."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from ssdlab.engines.base import ALL_FEATURES, Capabilities, ProgressUpdate, RunContext
from ssdlab.engines.sim_cache import SimCache, build_digest, fold, prep_key
from ssdlab.errors import USER_STOP, Cancelled, EngineError, StopCause, Stopped, os_error_text
from ssdlab.measurement import LatencyHistogram, Measurement, OpTotals, Series
from ssdlab.steps import Idle, Purge, ReplayTrace, SetWriteCache, Step, StepResult
from ssdlab.targets.base import Target
from ssdlab.targets.sim import SimTarget, simulator
from ssdlab.workload import Workload

if TYPE_CHECKING:
    from ssdlab import _ssdsim

# A preparation is stored only when simulating it took longer than restoring it would: at
# least this long, and at least RESTORE_FACTOR x the restore estimate. Restoring a tortured
# full-size default drive (sim:, 256 GB) from the cache takes 1.7 s on the 2-core lab machine
# (0.26 s to read its 123 MB entry cold, 1.43 s to restore it: bench/snapshot_cost.py prints the
# restore), 0.0066 s per GB of capacity; it was 6.0 s before snapshots were restored in place.
MIN_PREP_WALL_S = 1.0
RESTORE_S_PER_GB = 0.0066
RESTORE_FACTOR = 2.0

# A drive in memory takes about this much per byte of capacity (its page maps and block
# states): 252 MB for the 256 GB default drive, measured as resident memory after its fill.
MEMORY_PER_CAPACITY = 252e6 / 256e9

SERIES_KEYS = ("read_ios", "write_ios", "read_bytes", "write_bytes", "read_lat_sum_ns", "write_lat_sum_ns")


def job_dict(workload: Workload, capacity_bytes: int) -> _ssdsim.Job:
    """The simulator's job description: the workload with its span resolved."""
    return {
        "pattern": workload.pattern,
        "block_size_bytes": workload.block_size_bytes,
        "iodepth": workload.iodepth,
        "jobs": workload.jobs,
        "read_pct": workload.read_pct,
        "offset_bytes": workload.offset_bytes,
        "span_bytes": workload.resolve_span(capacity_bytes),
        "runtime_s": workload.runtime_s,
        "size_bytes": workload.size_bytes,
        "ramp_s": workload.ramp_s,
        "sync": workload.sync,
        "fsync_every": workload.fsync_every,
        "log_period_s": workload.log_period_s,
        "seed": workload.seed,
    }


def _totals(raw: _ssdsim.OpSummary) -> OpTotals:
    return OpTotals(
        ios=int(raw["ios"]), bytes=int(raw["bytes"]), lat_sum_ns=float(raw["lat_sum_ns"]),
        lat_min_ns=float(raw["lat_min_ns"]), lat_max_ns=float(raw["lat_max_ns"]),
        hist=LatencyHistogram.from_pairs((int(v), int(c)) for v, c in raw["lat_hist"]),
    )


def _floats(values: Sequence[Any]) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


# Every column of the series and telemetry tables is a list of numbers.
_Columns = Mapping[str, Sequence[float]]


def to_measurement(workload: Workload, result: _ssdsim.RunResult) -> Measurement:
    series_raw = cast(_Columns, result["series"])
    series = Series(
        period_s=workload.log_period_s, t_s=_floats(series_raw["t_s"]),
        **{key: _floats(series_raw[key]) for key in SERIES_KEYS},
    )
    telemetry = {key: _floats(values) for key, values in cast(_Columns, result["telemetry"]).items()}
    elapsed = float(result["elapsed_s"])
    host_cpu = result.get("host_cpu_s")  # a RAID-0: the host CPU the software striping took (one core)
    return Measurement(
        workload=workload, engine="sim", runtime_s=float(result["elapsed_s"]),
        read=_totals(result["read"]), write=_totals(result["write"]), trim=_totals(result["trim"]),
        series=series, telemetry=telemetry, interrupted=bool(result["interrupted"]),
        error=_error_text(result.get("error")),
        stopped_by=_stop_cause(result.get("error")) if result["interrupted"] else None,
        cpu_sys_pct=100.0 * host_cpu / elapsed if host_cpu is not None and elapsed > 0 else None,
    )


def _error_text(error: str | None) -> str | None:
    """The simulator names the Python exception that stopped it ("Class: message"); a Ctrl-C or
    a SIGTERM/SIGHUP (which the CLI turns into a Stopped) is said as the runner says it for fio."""
    name, _, message = (error or "").partition(": ")
    if name in ("KeyboardInterrupt", Cancelled.__name__):  # Cancelled: the run-ahead half, stopped with the run
        return USER_STOP
    if name == Stopped.__name__:
        return message
    return error


def _stop_cause(error: str | None) -> StopCause:
    """Why the simulator stopped early, from the exception it names (_error_text): a stop (Ctrl-C,
    the run-ahead half's Cancelled, a Stopped's signal) or an error raised in its progress callback.
    The simulator has no watch: it never stops for a device in use."""
    name = (error or "").partition(": ")[0]
    if name in ("KeyboardInterrupt", Cancelled.__name__):
        return "user"
    return "signal" if name == Stopped.__name__ else "error"


def _worth_storing(capacity_bytes: int, wall_s: float) -> bool:
    """Simulating what made a drive of this capacity took longer than restoring it is estimated to take."""
    restore_s = RESTORE_S_PER_GB * capacity_bytes / 1e9
    return wall_s >= max(MIN_PREP_WALL_S, RESTORE_FACTOR * restore_s)


def _entry_meta(sim: SimTarget, wall_s: float, **what: Any) -> dict[str, Any]:
    """A cache entry's description: the drive it holds and what made it."""
    return {"preset": sim.preset, "overrides": sim.options, "seed": sim.seed, "history_after": sim.history,
            "prep_wall_s": wall_s, **what}


class SimEngine:
    name = "sim"
    # The simulator models neither data compression nor fio's own steady-state detector.
    capabilities = Capabilities(
        steps={"sim": frozenset({"purge", "idle", "replay_trace"})},
        features=ALL_FEATURES - {"compressible data", "fio's steady-state detector"},
    )

    def __init__(self) -> None:
        SimCache.default()  # a bad cache setting is said before a run starts, not in its middle
        self._capacity: tuple[Target, int] | None = None  # the last target's, read once (capacity_bytes)

    def version(self) -> str:
        module = simulator()
        return f"ssdsim-{getattr(module, '__version__', 'dev')}"

    def job_text(self, target: Target, workload: Workload) -> str:
        return json.dumps(job_dict(workload, self.capacity_bytes(target)), indent=2)

    def _drive(self, target: Target) -> _ssdsim.Drive:
        return self._sim(target).drive()

    def capacity_bytes(self, target: Target) -> int:
        """The target's capacity, read from its drive once for the target, not at each measurement
        (target.info() builds all its facts for this one number). It cannot change in a run: every
        fact a sim target gives is its configuration's (preset, overrides, seed), and each drive the
        target is given in its place (a cached preparation, a resumed run's saved drive, a rebuild's
        fresh one) is of that same configuration; its write cache is set in the spec, not by a step."""
        known = self._capacity  # one read: the run-ahead simulates a twin target on another thread
        if known is None or known[0] is not target:
            known = self._capacity = (target, target.info().capacity_bytes)
        return known[1]

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        drive = self._drive(target)
        job = job_dict(workload, self.capacity_bytes(target))

        def on_progress(p: _ssdsim.Progress) -> None:
            ctx.progress(ProgressUpdate(
                label=workload.name, fraction=float(p["fraction"]),
                elapsed_s=float(p["job_elapsed_s"]),
                iops=float(p["read_iops"]) + float(p["write_iops"]),
                mb_s=float(p["read_mb_s"]) + float(p["write_mb_s"]),
                sim_time_s=float(p["sim_time_s"]),
                host_gb_written=float(p["host_bytes_written"]) / 1e9, temp_c=float(p["temp_c"]),
            ))

        try:
            result = drive.run(job, on_progress, 1.0)
        except ValueError as err:
            raise EngineError(f"simulator rejected workload {workload.name}: {err}") from None
        sim = self._sim(target)
        sim.history = fold(sim.history, workload.model_dump_json())
        return to_measurement(workload, result)

    # Saved drive state (docs/simulator.md, "Snapshots and resume"): the runner asks for a
    # checkpoint as each test starts (an in-memory copy, no compression) and, when a run
    # stops, for it as a compressed snapshot to keep in the bundle; `--resume` restores it
    # and simulates the stopped test's finished actions again to reach the same drive.
    def checkpoint(self, target: Target) -> None:
        sim = self._sim(target)
        spare, sim.spare = sim.spare, None
        if spare is not None and spare[0] == sim.history:
            sim.checkpoint = spare[1]
        elif sim.built():
            sim.checkpoint = sim.drive().copy()
        else:  # nothing ran yet: a fresh drive, built only if a stop asks for it (often a cached one comes instead)
            sim.checkpoint = sim.fresh_drive

    def saved_state(self, target: Target) -> bytes | None:
        copy = self._sim(target).checkpoint
        if copy is None:
            return None
        return (copy() if callable(copy) else copy).snapshot()

    def restore_state(self, target: Target, data: bytes) -> None:
        try:
            drive = simulator().Drive.restore(data)
        except ValueError as err:
            raise EngineError(f"the simulated drive saved in the bundle cannot be restored ({err})") from None
        self._sim(target).restore_drive(drive, fold("restored", hashlib.sha256(data).hexdigest()))

    # Rebuilding a drive (runner.RebuildsDrive): a resume without a usable saved drive simulates
    # what the run did again, on a fresh drive of the same configuration and seed.
    def reset_state(self, target: Target) -> None:
        """Give the target a fresh drive, as a new run has (what a failed rebuild did is dropped)."""
        sim = self._sim(target)
        sim.use_drive(sim.fresh_drive(), "fresh")
        sim.restored, sim.checkpoint, sim.spare = False, None, None

    def rebuilt_state(self, target: Target) -> None:
        """The drive was rebuilt to where the stopped run left it: it continues, as a restored one does."""
        self._sim(target).restored = True

    # Cache of prepared drives (engines/sim_cache.py): the runner asks for a key before a
    # test's own preparation, restores a hit, and stores what the preparation made otherwise.
    def prep_key(self, target: Target, actions: Sequence[str]) -> str:
        sim = self._sim(target)
        build = build_digest(str(getattr(simulator(), "__file__", "")))
        return prep_key(build, sim.preset, sim.options, sim.seed, sim.history, actions)

    def cached_prep(self, target: Target, key: str) -> list[dict[str, Any]] | None:
        hit = self._cached_drive(key)
        if hit is None:
            return None
        drive, meta = hit
        if not isinstance(meta.get("records"), list):  # an entry this version did not write whole
            return None
        self._sim(target).use_drive(drive, meta["history_after"])
        return list(meta["records"])

    def _cached_drive(self, key: str) -> tuple[_ssdsim.Drive, dict[str, Any]] | None:
        """A stored drive and its entry; a damaged entry is a miss (what made it runs again and replaces it)."""
        hit = SimCache.default().get(key)
        if hit is None:
            return None
        data, meta = hit
        if not isinstance(meta.get("history_after"), str):
            return None
        try:
            return simulator().Drive.restore(data), meta
        except ValueError:
            return None

    def store_prep(self, target: Target, key: str, records: Sequence[dict[str, Any]], wall_s: float,
                   ) -> str | None:
        """Keep the prepared drive when simulating the preparation took long enough to be worth it;
        why it could not be kept (a read-only or full cache folder), for the test's notes, else None.
        QA: a read-only cache stopped trim-validation ("Read-only file system: …/<key>.snap")."""
        if not _worth_storing(self.capacity_bytes(target), wall_s):
            return None
        meta = _entry_meta(self._sim(target), wall_s, actions=[r["name"] for r in records], records=list(records))
        cache = SimCache.default()
        try:
            cache.put(key, self._drive(target).snapshot(), meta)
        except OSError as err:
            return (f"the prepared simulated drive could not be kept in the cache {cache.path} "
                    f"({os_error_text(err)}): the next run simulates this preparation again")
        return None

    # Running ahead (runahead.py): the drive a later test of the run starts with, stored as the
    # run reaches that test, lets the next run of the same tests simulate them on a second core.
    def start_key(self, target: Target, before: Sequence[str]) -> str:
        return self.prep_key(target, ["tests before this one:", *before])

    def drive_history(self, target: Target) -> str:
        return self._sim(target).history

    def memory_bytes(self, target: Target) -> int:
        return int(MEMORY_PER_CAPACITY * self.capacity_bytes(target))

    def store_start(self, target: Target, key: str, tests: Sequence[str], wall_s: float,
                    unkept: Callable[[str], None]) -> threading.Thread | None:
        """Store the drive as it is now, compressed in the background, when reaching it took
        longer than restoring it would; the thread is returned to be joined before exiting. Why
        the drive could not be kept (a read-only or full cache folder) is told to `unkept`, from
        the thread: the run goes on, and the CLI says it (QA: the failure was silent)."""
        if not _worth_storing(self.capacity_bytes(target), wall_s):
            return None
        sim = self._sim(target)
        drive = self._drive(target).copy()
        sim.spare = (sim.history, drive)  # the test starting here checkpoints this very drive: one copy for both
        meta = _entry_meta(sim, wall_s, actions=list(tests), unit="tests")

        def store() -> None:
            cache = SimCache.default()
            try:
                cache.put(key, drive.snapshot(), meta)
            except OSError as err:  # no room for it: the next run simulates these tests again
                unkept(f"the simulated drive as {', '.join(tests)} left it could not be kept in the cache "
                       f"{cache.path} ({os_error_text(err)}): the next run of these tests runs them in turn, "
                       "not its second half ahead on a second core; this run's measurements are not affected")

        # Not a daemon: a run that stops gives the store up (RunAhead.close), but the interpreter
        # waits for it at exit, as it takes seconds at most. A daemon thread inside the simulator's
        # Rust code (the snapshot releases the GIL) when Python finalizes aborts the whole process
        # with SIGABRT on glibc as it takes the GIL back (PyO3 #4874; pyqwest #164 saw the same):
        # a closed-pipe stop once exited -6 instead of 141 here under load.
        thread = threading.Thread(target=store, name="ssdlab-store-drive", daemon=False)
        thread.start()
        return thread

    def cached_twin(self, target: Target, key: str) -> Target | None:
        """A second target like this one, with the stored drive and its history."""
        hit = self._cached_drive(key)
        if hit is None:
            return None
        drive, meta = hit
        twin = self._sim(target).unbuilt_twin()
        twin.restore_drive(drive, str(meta["history_after"]))
        return twin

    def has_cached(self, key: str) -> bool:
        return SimCache.default().contains(key)

    def _sim(self, target: Target) -> SimTarget:
        if not isinstance(target, SimTarget):
            raise EngineError(f"the simulator engine runs sim: targets only, not {target.spec}")
        return target

    def step(self, target: Target, step: Step, ctx: RunContext) -> StepResult:
        drive = self._drive(target)
        detail: dict[str, Any]
        if isinstance(step, Purge):
            if step.secure_erase:
                raise EngineError("the simulator has no secure erase; purge with TRIM instead")
            if step.span_bytes is None and step.offset_bytes == 0:
                detail = dict(drive.purge())
            else:
                capacity = self.capacity_bytes(target)
                span = step.span_bytes or capacity - step.offset_bytes
                detail = dict(drive.trim(step.offset_bytes, span))
        elif isinstance(step, Idle):
            detail = dict(drive.idle(step.seconds))
        elif isinstance(step, ReplayTrace):
            from ssdlab.trace.sim_step import replay_step

            detail = replay_step(drive, step, ctx)
        elif isinstance(step, SetWriteCache):
            raise EngineError("a simulated drive's write cache is set in the target: sim:PRESET?write_cache=0")
        else:
            raise EngineError(f"simulator: unknown step {step!r}")
        detail["state_after"] = dict(drive.state())
        sim = self._sim(target)
        sim.history = fold(sim.history, step.model_dump_json())
        return StepResult(step=step, elapsed_s=float(detail.get("elapsed_s", 0.0)), detail=detail)
