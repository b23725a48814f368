"""Drive preparation and regions shared by the methods (docs/methods/README.md).

Purge, sequential fill, test regions and random-torture rounds are built here once so
every method prepares a drive the same way. Over-provisioning is a
shorter span: the whole device is purged, then only the first (100 - op_pct) % is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean

from ssdlab.analysis.steady_state import first_round_after, pts_steady_state
from ssdlab.errors import UsageError
from ssdlab.measurement import Measurement
from ssdlab.methods.base import DriveState, Measure
from ssdlab.targets.base import TargetInfo
from ssdlab.units import GIB, KIB, MIB, decimal_capacity, format_size, human_size
from ssdlab.workload import Workload

FILL_BLOCK_BYTES = 128 * KIB
FILL_IODEPTH = 32
# Spans are cut to whole MiB so every block size up to 1 MiB divides them exactly.
SPAN_ALIGN_BYTES = MIB


def usable_span_bytes(info: TargetInfo, op_pct: float, span_bytes: int | None) -> int:
    """Bytes the test may touch: capacity less the OP share, capped by an explicit span."""
    span = int(info.capacity_bytes * (100.0 - op_pct) / 100.0)
    if span_bytes is not None:
        span = min(span, span_bytes)
    span -= span % SPAN_ALIGN_BYTES
    if span <= 0:
        raise UsageError(f"{info.spec}: the span left (op_pct={op_pct:g}, span_bytes={span_bytes}) is smaller than "
                         "1 MiB, the smallest region a method uses")
    return span


def span_notes(info: TargetInfo, op_pct: float, span: int, asked_bytes: int | None = None) -> tuple[str, ...]:
    """What the plan says of the span: less than the whole target, and a span_bytes asked for that
    the target could not hold (QA: `span_bytes=100g` on an 11 GB drive was cut in silence)."""
    cut = span_cut_notes(span, asked_bytes)
    if op_pct <= 0 and span >= info.capacity_bytes - SPAN_ALIGN_BYTES:
        return cut
    share = 100.0 * span / info.capacity_bytes
    return (*cut, f"span limited to {human_size(span)} ({share:.1f} % of capacity; op_pct={op_pct:g})")


def span_cut_notes(span: int, asked_bytes: int | None) -> tuple[str, ...]:
    """A span_bytes asked for that the target could not hold, as the plan says it (QA: `span_bytes=1g`
    on a 64 MiB target ran mixed-seq and iometer-mixed over 64 MiB in silence)."""
    if asked_bytes is None or asked_bytes <= span + SPAN_ALIGN_BYTES:
        return ()
    return (f"span_bytes={format_size(asked_bytes)} is more than the target holds: span cut to {human_size(span)}",)


def fill_actions(span: int, passes: int, prefix: str = "fill", seed: int = 1) -> list[Measure]:
    """Sequential 128 KiB QD32 fill of the span, one Measure per pass (PTS WIPC is 2 passes)."""
    return [fill_action(span, f"{prefix}-p{number}", seed + number) for number in range(1, passes + 1)]


def fill_recipe(passes: int) -> str:
    """How `fill_actions` writes, for DriveState.recipe: states match only when made alike."""
    return f"purge, {passes} x {size_label(FILL_BLOCK_BYTES)} sequential write QD{FILL_IODEPTH}"


def filled_state(span_bytes: int, op_pct: float, passes: int) -> DriveState:
    """Purged, then the span written sequentially `passes` times (clean when passes is 0)."""
    if passes == 0:
        return DriveState(kind="clean", span_bytes=span_bytes, op_pct=op_pct, recipe="purge")
    return DriveState(kind="filled", span_bytes=span_bytes, op_pct=op_pct, recipe=fill_recipe(passes))


def size_label(size_bytes: int) -> str:
    """4096 -> '4k', 131072 -> '128k', 1048576 -> '1m', 512 -> '512b' (metric-name safe)."""
    for suffix, factor in (("g", GIB), ("m", MIB), ("k", KIB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor}{suffix}"
    return f"{size_bytes}b"


# How a plan note that a region or length was cut to fit the target starts: what the cut size, as
# measured, says (a size setting, MethodTest.measured_sizes), so compare sets it aside there.
SIZE_CUT_NOTES = ("test region reduced ", "test length reduced ")


def fit_region(wanted_bytes: int, info: TargetInfo, what: str) -> tuple[int, tuple[str, ...]]:
    """The method's region, or half the target when the target is too small for it.

    Half, not all: these methods measure a region on a drive that is mostly empty, and a
    region as large as the drive would measure a full drive instead.
    """
    room = info.capacity_bytes // 2
    if wanted_bytes <= room:
        return wanted_bytes, ()
    region = room - room % SPAN_ALIGN_BYTES
    if region <= 0:
        raise UsageError(f"{info.spec}: too small for {what} (needs at least 2 MiB)")
    # In the table's words (QA: "reduced from 16GiB to 4608MiB (half of the 9.66 GB target)" beside
    # "Test region 4.5 GiB").
    note = (
        f"{what} reduced from {human_size(wanted_bytes)} to {human_size(region)} "
        f"(half of the {decimal_capacity(info.capacity_bytes)} target)"
    )
    return region, (note,)


def whole_span(info: TargetInfo, span_bytes: int | None) -> int:
    """The whole target (or the given span), cut to whole MiB so every block size fits."""
    return usable_span_bytes(info, 0.0, span_bytes)


def fill_action(span_bytes: int, name: str = "fill", seed: int = 1, block_bytes: int = FILL_BLOCK_BYTES,
                iodepth: int = FILL_IODEPTH, offset_bytes: int = 0) -> Measure:
    """Write the region once, sequentially (128 KiB QD32 unless a method says otherwise), so
    later reads hit written data and later writes meet a used drive."""
    return Measure(role="precondition", workload=Workload(
        name=name, pattern="write", block_size_bytes=block_bytes, iodepth=iodepth,
        offset_bytes=offset_bytes, span_bytes=span_bytes, size_bytes=span_bytes, seed=seed,
    ))


def round_name(prefix: str, number: int) -> str:
    return f"{prefix}-r{number:03d}"


def round_count(runtime_s: float, round_s: float, max_rounds: int | None) -> int:
    rounds = max(1, int(-(-runtime_s // round_s)))  # ceil: the last round may be short
    return rounds if max_rounds is None else min(rounds, max_rounds)


def round_runtimes_s(runtime_s: float, round_s: float, rounds: int) -> list[float]:
    """Round lengths adding up to runtime_s (the last round takes the remainder)."""
    lengths = [round_s] * rounds
    remainder = runtime_s - round_s * (rounds - 1)
    lengths[-1] = min(round_s, remainder) if remainder > 0 else round_s
    return lengths


def rounds_words(lengths_s: Sequence[float]) -> str:
    """Round lengths as the plan's steps run them: '45 x 80 s', '1 x 30 s', '1 x 80 s + 20 s'.
    QA: a runtime that is not whole rounds was written "at most 1 x 80 s" for a 30 s round, and
    "at most 2 x 80 s" for rounds of 80 s and 20 s."""
    *whole, last = lengths_s
    if all(length == last for length in whole):
        return f"{len(lengths_s)} x {last:g} s"
    return f"{len(whole)} x {whole[0]:g} s + {last:g} s"


def done_rounds(done: Mapping[str, Measurement], prefix: str) -> list[Measurement]:
    """Rounds of one group already measured, in order (names sort by round number)."""
    marker = f"{prefix}-r"
    return [done[name] for name in sorted(done) if name.startswith(marker)]


def rounds_steady(rounds: Sequence[Measurement], window_rounds: int, after_bytes: int = 0) -> bool:
    """Whether the round means so far already meet the PTS rule (the early stop), with no
    window beginning before the rounds have written `after_bytes`."""
    means = [m.iops() for m in rounds]
    first = first_round_after([m.write.bytes for m in rounds], after_bytes)
    return pts_steady_state(means, window_rounds, max_rounds=None, first_start=first).steady


# Drives are sold in GB (10^9 B) and built of NAND in GiB (2^30 B): a drive with N GiB of
# NAND sold as N GB keeps 7.37 % spare, and drives sold smaller (240, 250 GB) keep more, so
# this ratio is the least raw NAND a drive can have per user byte.
RAW_PER_USER_BYTE = GIB / 1e9


def free_space_bytes(info: TargetInfo, valid_bytes: int) -> int:
    """NAND holding no valid data once `valid_bytes` are on the drive: what random writes fill
    before garbage collection must run. The simulator's raw NAND where known, else the least a
    drive can have (RAW_PER_USER_BYTE), so on a real drive it is a lower bound."""
    raw = info.extra.get("raw_bytes")
    raw_bytes = raw if isinstance(raw, int) and raw > 0 else int(info.capacity_bytes * RAW_PER_USER_BYTE)
    return max(0, raw_bytes - valid_bytes)


def mean_iops(measurements: Sequence[Measurement]) -> float:
    return fmean(m.iops() for m in measurements) if measurements else float("nan")
