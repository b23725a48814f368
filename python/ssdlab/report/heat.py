"""Say when a test's figures include thermal throttling (report sections and comparisons;
bundle data only).

Outside the thermal test a throttled figure measures the drive's heat as much as the
workload, and that heat depends on what ran before. On the bare simulated SM951 the 25 % OP
consistency test's fresh IOPS are 67,342 alone and 101,065 inside the review suite: alone,
its own fill leaves the drive at its throttle point as the torture starts. With throttling
out of the way (`sim:?thermal.throttle_c=200,201,202`) the two fresh figures agree within 2 %
(bench/alone_vs_suite.py). Reviewers cool their drives for that reason; the report at least
says which figures were measured hot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ssdlab.measurement import HEAT_MARGIN_PCT, Measurement, heat_apart, heat_apart_printed, throttled_time_pct
from ssdlab.thresholds import keep_reading, side

MAX_LISTED = 4  # workloads named one by one; more are counted


def start_temp_c(found: Sequence[Measurement]) -> float | None:
    """The drive's temperature at the end of the first logged period of the first workload."""
    for m in found:
        temps = [v for v in m.telemetry.get("temp_c", ()) if not math.isnan(v)]
        if temps:
            return temps[0]
    return None


def heat_notes(found: Mapping[str, Measurement], names: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """One note naming the measured workloads that ran throttled (by their display names in
    `names`, report/cpu.workload_names; the id where it has none), with how much of their time."""
    shares = {name: m.throttled_share() for name, m in found.items()}
    hot = [((names or {}).get(name, name), share) for name, share in shares.items() if share]
    if not hot:
        return ()
    # "name: share" parted by " · ": display names hold commas of their own ("…, QD 3, 0 % reads")
    listed = "share of each workload's time: " + " · ".join(f"{name}: {100 * share:.0f} %" for name, share in hot)
    if len(hot) > MAX_LISTED:  # e.g. a torture's rounds
        low, high = min(s for _, s in hot), max(s for _, s in hot)
        listed = f"{len(hot)} of {len(found)} measured workloads, {100 * low:.0f} to {100 * high:.0f} % of their time"
    start = start_temp_c(list(found.values()))
    began = f"; the drive was at {start:.0f} °C as measuring began" if start is not None else ""
    return (f"Thermal throttling during measurement ({listed}{began}): these "
            "figures include the drive's heat, which depends on what ran before this test; the thermal test "
            "measures it.",)


def measured_throttled_pct(found: Mapping[str, Measurement]) -> float | None:
    """Percentage of the measured workloads' time that ran throttled, together (a long workload
    weighs by its length), or None when no telemetry can say."""
    return throttled_time_pct(found.values())


def heat_comparison_note(labels: Sequence[str], found: Sequence[Mapping[str, Measurement]]) -> str | None:
    """A note for a comparison whose drives ran throttled for shares of their measured time more
    than HEAT_MARGIN_PCT points apart: its differences are partly the drives' heat, which depends
    on cooling and on what ran before, not only their speed. None when the shares agree or fewer
    than two drives have telemetry that can say (real drives without a temperature sampler)."""
    known = [(label, pct) for label, f in zip(labels, found, strict=True)
             if (pct := measured_throttled_pct(f)) is not None]
    shares = heat_apart_printed(*(pct for _, pct in known))  # more than 10 points apart as printed, too
    if shares is None:
        return None
    listed = ", ".join(f"{label} {share} %" for (label, _), share in zip(known, shares, strict=True))
    return (f"heat differs — share of the measured time spent throttled: {listed}; the differences include "
            "the drives' heat (their cooling, what ran before), not only their speed")


def heat_ranking_note(title: str, labels: Sequence[str], found: Sequence[Mapping[str, Measurement]]) -> str | None:
    """For a ranking whose first drive is the one under review: the other drives whose share of
    the measured time spent throttled lies more than HEAT_MARGIN_PCT points from its own, whose
    places are then partly heat. None when none does or its own share is unknown."""
    mine = measured_throttled_pct(found[0]) if found else None
    if mine is None:
        return None
    far = [(label, pct) for label, f in zip(labels[1:], found[1:], strict=True)
           if (pct := measured_throttled_pct(f)) is not None and heat_apart(mine, pct)]
    if not far:
        return None
    # Each listed share more than 10 points from this drive's, as printed too.
    mine_text, *theirs = keep_reading([mine, *(pct for _, pct in far)],
                                      lambda v: [side(abs(p - v[0]), HEAT_MARGIN_PCT) for p in v[1:]])
    listed = ", ".join(f"{label} {share} %" for (label, _), share in zip(far, theirs, strict=True))
    return (f"{title}: heat differs — share of the measured time spent throttled: this drive {mine_text} %; {listed}; "
            "those places are partly the drives' heat (their cooling, what ran before), not only their speed")
