"""Each host's figures of a run on several hosts (`run --host A --host B`), beside the total.

A --host run's figures are fio's aggregate of all its hosts ("All clients"): a workload's IOPS
and MB/s are the hosts' sum, its mean latency the mean over every host's I/Os, and each host
runs the workload at its queue depth on a file of its own, so a QD1 row of two hosts is two I/Os
in flight, not one drive at QD1. The bundle keeps each host's share in each measurement's engine
facts (engines/fio_multi.py: hostN = its address, hostN_iops, hostN_mb_s, and from ssdlab's 49th
stop hostN_mean_lat_us); this module lays them out as a table per test (report section, and
compare for each run that has more than one host) and says in a note what the totals are. A run
on one host, or on no host, gets neither: its figures are that drive's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.bundle import ShortWindows
from ssdlab.measurement import Measurement
from ssdlab.report.contract import mark, window_unreliable
from ssdlab.report.formatting import MISSING, format_in_unit
from ssdlab.report.types import Table
from ssdlab.units import is_number

HEADER = ("workload, host", "IOPS", "MB/s", "mean latency (µs)", "share of IOPS (%)")


@dataclass(frozen=True)
class HostFigures:
    """One host's share of a measured workload, as the bundle keeps it."""

    address: str  # HOST:PORT, as the user gave it
    iops: float | None
    mb_s: float | None
    mean_lat_us: float | None  # None in bundles from before ssdlab recorded it


def host_figures(m: Measurement) -> list[HostFigures]:
    """Each host's figures of a --host measurement, in --host order; none for any other run."""
    facts = m.engine_facts
    out = []
    index = 0
    while f"host{index}" in facts:
        out.append(HostFigures(address=str(facts[f"host{index}"]), iops=_number(facts.get(f"host{index}_iops")),
                               mb_s=_number(facts.get(f"host{index}_mb_s")),
                               mean_lat_us=_number(facts.get(f"host{index}_mean_lat_us"))))
        index += 1
    return out


def _number(value: object) -> float | None:
    return float(value) if is_number(value) and not isinstance(value, bool) else None


def host_count(found: Mapping[str, Measurement]) -> int:
    """How many hosts the run's workloads ran on (the most any of them did): 0 when not on --host."""
    return max((len(host_figures(m)) for m in found.values()), default=0)


def host_addresses(found: Mapping[str, Measurement]) -> list[str]:
    """The run's hosts, in --host order (those of its first workload that ran on the most)."""
    count = host_count(found)
    first = next((m for m in found.values() if len(host_figures(m)) == count), None)
    return [] if first is None else [h.address for h in host_figures(first)]


def queue_depths(found: Mapping[str, Measurement]) -> list[int]:
    """The queue depths (I/Os in flight, each host) of the workloads, lowest first."""
    return sorted({m.in_flight for m in found.values()})


def sum_note(found: Mapping[str, Measurement]) -> str | None:
    """What a total of a run on several hosts is, for the section's notes and compare's caption:
    the hosts' sum at each one's queue depth (QA: a two-host QD1 row of 20,563 IOPS at 96.2 µs read
    as one drive at QD1). None for a run on one host or none."""
    count = host_count(found)
    if count < 2:
        return None
    depths = queue_depths(found)
    lowest = depths[0] if depths else 1
    return (f"Every figure of this run is the sum of {count} hosts ({', '.join(host_addresses(found))}), each "
            f"running the workload at its own queue depth on a file of its own: a QD{lowest} row is the sum of "
            f"{count} hosts, each at QD{lowest} ({count * lowest} I/Os in flight in all), not one drive at "
            f"QD{lowest}; its mean latency is the mean over all hosts' I/Os. The per-host table gives each "
            "host's own figures.")


def hosts_table(key: str, found: Mapping[str, Measurement], names: Mapping[str, str] | None = None,
                short: ShortWindows | None = None, title: str = "Per host") -> Table | None:
    """Per measured workload, the total (fio's aggregate) and then each host's IOPS, MB/s and mean
    latency, and its share of the IOPS; workloads by their display names in `names`
    (cpu.workload_names), those of a window too short to trust (`short`) marked. None for a run on
    fewer than two hosts."""
    count = host_count(found)
    if count < 2:
        return None
    shown = names or {}
    rows: list[tuple[str, ...]] = []
    for name, m in found.items():
        hosts = host_figures(m)
        if not hosts:
            continue
        unreliable = window_unreliable(short, name)
        label = shown.get(name, name)
        total_iops = m.iops()
        rows.append((f"{label}: sum of {len(hosts)} hosts, each at QD{m.in_flight}",
                     *_cells(total_iops, m.mb_s(), m.mean_lat_us(), 100.0 if total_iops else None, unreliable)))
        for host in hosts:
            share = 100.0 * host.iops / total_iops if host.iops is not None and total_iops else None
            rows.append((f"{label}: {host.address}", *_cells(host.iops, host.mb_s, host.mean_lat_us, share,
                                                             unreliable)))
    caption = ("Each host's own figures (fio's client_stats for that host) under the run's total (fio's "
               "aggregate of all hosts, the figure the results tables give). Each host ran every workload at its "
               "queue depth on its own file, so a total is a sum over hosts: a QD1 total of "
               f"{count} hosts is {count} I/Os in flight. MB/s are decimal; latency is fio's total latency "
               "(submission to completion) per I/O; a dash: not recorded (bundles before ssdlab kept it).")
    return Table(key=f"{key}-hosts", title=title, header=HEADER, rows=tuple(rows), caption=caption,
                 collapsed=len(rows) > 12)


def _cells(iops: float | None, mb_s: float | None, lat_us: float | None, share_pct: float | None,
           unreliable: bool) -> tuple[str, ...]:
    cells = (format_in_unit("IOPS", iops), format_in_unit("MB/s", mb_s), format_in_unit("µs", lat_us),
             MISSING if share_pct is None else f"{share_pct:.1f}")
    return tuple(cell if cell == MISSING else mark(cell, unreliable) for cell in cells)


def hosts_tables(key: str, labels: Sequence[str], runs: Sequence[Mapping[str, Measurement]],
                 names: Mapping[str, str] | None = None,
                 short: Sequence[ShortWindows | None] = ()) -> list[Table]:
    """compare: a per-host table for each run that ran on more than one host, titled with its label."""
    out = []
    for index, (label, found) in enumerate(zip(labels, runs, strict=True)):
        table = hosts_table(f"{key}-{index}", found, names, short[index] if index < len(short) else None,
                            title=f"Per host: {label}")
        if table is not None:
            out.append(table)
    return out


def sum_notes(labels: Sequence[str], runs: Sequence[Mapping[str, Measurement]]) -> list[str]:
    """compare: what the figures of each run on several hosts are (sum_note), named by its label."""
    by_note: dict[str, list[str]] = {}  # runs on the same hosts said once, naming each
    for label, found in zip(labels, runs, strict=True):
        note = sum_note(found)
        if note is not None:
            by_note.setdefault(note, []).append(label)
    return [f"{' and '.join(named)}: {note}" for note, named in by_note.items()]
