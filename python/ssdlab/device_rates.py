"""Write rates an earlier run measured on the device a target's data lands on, for estimates.

The planner times byte-limited work (fills, linear passes) at a rate it has to assume from the
transport; a device it cannot name (a virtio disk, USB, MMC) gets a slow fallback. Once a
finished run in the results library has written most of that same device sequentially, its
measured rate is the better figure, and `ssdlab plan` uses it and says so
(docs/architecture.md, "Estimates").

Only rates that say what a fill will do count: a sequential write of at least half the device
(a shorter one may finish inside an SLC cache, many times faster than a fill), and 4 KiB random
writes at a deep queue for at least a minute (a torture round or a sweep point). The same run's
4 KiB random I/O at queue depth 1 (qd-sweep's, as-ssd's, quick's RND4K Q1T1) gives the service
times, a read's and a write's apart, that pace small blocks at a shallow queue
(planning.AssumedRates.iops_at).
"""

from __future__ import annotations

import socket
import statistics
from collections.abc import Iterator

from ssdlab.bundle import Bundle, RunRecord
from ssdlab.errors import BundleError, SsdlabError
from ssdlab.library import Library
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.targets.base import MeasuredRates, TargetInfo

# Of the device's capacity: past any SLC cache. A cache that takes all free space holds one bit
# per cell against TLC's three, so even on an empty drive it is at most a third of the capacity.
FILL_MIN_FRACTION = 0.5
FILL_MIN_BLOCK_BYTES = 128 * 1024
RANDOM_BLOCK_BYTES = 4096
RANDOM_MIN_QUEUE = 16  # iodepth x jobs: a device-bound rate, not a latency-bound one
RANDOM_MIN_RUNTIME_S = 60.0
QD1_MIN_RUNTIME_S = 1.0  # thousands of I/Os at QD1: a mean a stall cannot move much
RUNS_LOOKED_AT = 20  # the library's newest runs; older ones rarely describe today's device better


def device_key(info: TargetInfo, hostname: str) -> str | None:
    """What names the device the target's data lands on, across target specs; None when the
    target has no such device (simulated, fake) or it cannot be told apart."""
    if info.kind == "file":
        device = info.extra.get("backing_device")
        return f"{hostname}:fs:{device}:{info.extra.get('fs_source')}" if device else None
    if info.kind != "block":
        return None
    if info.serial:  # a drive keeps its serial when it moves to another machine
        return f"drive:{info.model}:{info.serial}"
    if info.extra.get("wwid"):
        return f"drive:{info.extra['wwid']}"
    # A loop device is whatever file it is attached to at the time.
    return f"{hostname}:block:{info.path}:{info.extra.get('backing_file', '')}" if info.path else None


def with_measured_rates(info: TargetInfo, library: Library | None = None) -> TargetInfo:
    """The target's facts with the rates a finished run measured on its device, when one did."""
    rates = rates_for(info, library)
    return info if rates is None else info.model_copy(update={"measured_rates": rates})


def rates_for(info: TargetInfo, library: Library | None = None) -> MeasuredRates | None:
    """The rates a finished run measured on the target's device, or None.

    Only reads: a missing library is not created, and one that cannot be read leaves the
    estimates to the transport's guess (the library's own commands say what is wrong)."""
    key = device_key(info, socket.gethostname())
    library = library or Library()
    if key is None or not library.path.exists():
        return None
    try:
        return measured_rates(key, library)
    except (SsdlabError, OSError):
        return None


def measured_rates(key: str, library: Library) -> MeasuredRates | None:
    """Rates of the newest finished run on the device `key` names that measured a fill."""
    for run, bundle in _runs_on(key, library):
        rates = rates_in_run(run, bundle)
        if rates is not None:
            return rates
    return None


def _runs_on(key: str, library: Library) -> Iterator[tuple[RunRecord, Bundle]]:
    for entry in library.runs()[:RUNS_LOOKED_AT]:
        if entry.spec.startswith(("sim:", "fake:")):  # no device under them (device_key says None)
            continue
        bundle = Bundle(entry.bundle)
        try:
            run = bundle.load_run()
        except BundleError:  # moved or deleted since it was added: the library says so elsewhere
            continue
        if device_key(run.target, str(run.host.get("hostname", ""))) == key:
            yield run, bundle


def rates_in_run(run: RunRecord, bundle: Bundle) -> MeasuredRates | None:
    """The median fill rate and 4 KiB random write IOPS the run measured, or None without a fill."""
    device_bytes = device_capacity_bytes(run.target)
    if not device_bytes:
        return None
    fills: list[float] = []
    randoms: list[float] = []
    read_latencies_s: list[float] = []
    write_latencies_s: list[float] = []
    for record in run.tests:
        try:
            found = bundle.measurements(record).values()
        except BundleError:
            continue
        for m in found:
            if is_fill(m, device_bytes):
                fills.append(m.write.mb_s(m.runtime_s) * 1e6)
            elif is_deep_random_write(m):
                randoms.append(m.write.iops(m.runtime_s))
            elif is_qd1_random(m):  # each direction it did (a randrw has both)
                read_latencies_s += mean_latencies_s(m.read)
                write_latencies_s += mean_latencies_s(m.write)
    if not fills:
        return None
    return MeasuredRates(write_bytes_s=statistics.median(fills),
                         write_iops_4k=statistics.median(randoms) if randoms else None,
                         qd1_read_latency_s=statistics.median(read_latencies_s) if read_latencies_s else None,
                         qd1_write_latency_s=statistics.median(write_latencies_s) if write_latencies_s else None,
                         run_created_utc=run.created_utc, bundle=str(bundle.path))


def mean_latencies_s(totals: OpTotals) -> list[float]:
    """The mean latency of one direction of a measurement, as a list of one (none without I/O)."""
    return [totals.lat_sum_ns / totals.ios / 1e9] if totals.ios else []


def device_capacity_bytes(info: TargetInfo) -> int | None:
    """The size of the device a fill must half cover: for a scratch file, its file system's
    whole disk (a fill of a small file may fit the disk's SLC cache), unknown for older bundles."""
    if info.kind != "file":
        return info.capacity_bytes
    size = info.extra.get("backing_disk_bytes")
    return size if isinstance(size, int) else None


def _complete_write(m: Measurement) -> bool:
    w = m.workload
    return not m.interrupted and m.error is None and m.runtime_s > 0 and w.effective_read_pct() == 0


def is_qd1_random(m: Measurement) -> bool:
    """4 KiB random reads or writes, one at a time, complete and at least QD1_MIN_RUNTIME_S long."""
    w = m.workload
    return (not m.interrupted and m.error is None and m.runtime_s >= QD1_MIN_RUNTIME_S and m.read.ios + m.write.ios > 0
            and w.pattern in ("randread", "randwrite", "randrw") and w.block_size_bytes == RANDOM_BLOCK_BYTES
            and w.outstanding_ios == 1)


def is_fill(m: Measurement, device_bytes: int) -> bool:
    """A sequential write of large blocks over at least half the device."""
    w = m.workload
    return (_complete_write(m) and w.pattern == "write" and w.block_size_bytes >= FILL_MIN_BLOCK_BYTES
            and m.write.bytes >= FILL_MIN_FRACTION * device_bytes)


def is_deep_random_write(m: Measurement) -> bool:
    """4 KiB random writes at a deep queue for at least a minute."""
    w = m.workload
    return (_complete_write(m) and w.pattern == "randwrite" and w.block_size_bytes == RANDOM_BLOCK_BYTES
            and w.outstanding_ios >= RANDOM_MIN_QUEUE and m.runtime_s >= RANDOM_MIN_RUNTIME_S)
