"""Work a long run's report does per figure: counted, not timed (an 8-hour run has 28,800 periods).

QA (scale): the report of an 8-hour consistency run printed every one of its 28,800 period lengths
on each caption that says what a dot is, and thinned its whole-run IOPS from 28,800 rows once per
chart drawing it. Neither figure changes with the fix; these tests count the work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ssdlab.analysis.consistency import RunSeries
from ssdlab.report import consistency_charts as charts
from ssdlab.report import section_consistency
from ssdlab.units import seconds_text

PERIODS = 28_800  # an 8-hour run at one-second periods


def _series(lengths: list[float]) -> RunSeries:
    ends = [float(i + 1) for i in range(len(lengths))]
    return RunSeries(period_s=1.0, t_s=tuple(ends), iops=tuple(1000.0 + i % 7 for i in range(len(lengths))),
                     write_bytes=tuple(4096.0 for _ in lengths), durations_s=tuple(lengths))


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls = [0]
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_dot_caption_prints_each_distinct_period_length_once(monkeypatch: pytest.MonkeyPatch) -> None:
    lengths = [1.0] * (PERIODS - 3) + [0.5, 1.0, 1.001]  # a round ending half-way, the simulator's last
    series = _series(lengths)
    calls = _counting(monkeypatch, section_consistency, "seconds_text")
    text = section_consistency.each_dot([series])
    assert calls[0] <= 10  # it printed all 28,800 lengths, twice each
    assert text == (f"Each dot is one logging period (1 s, but 1 of the {PERIODS} last 0.5 s)")
    assert section_consistency.iops_per_dot([series]) == "IOPS per period"
    assert seconds_text(1.001) == "1"  # why 1.001 s is no other length


def test_odd_lengths_keep_their_order_and_repeats() -> None:
    series = _series([1.0, 0.5, 1.0, 0.25, 0.5])
    _, odd, count = section_consistency._printed_periods([series])
    assert odd == [0.5, 0.25, 0.5] and count == 5


def test_a_long_run_is_thinned_once_per_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole-run scatter, its log-scale twin and the telemetry panels draw one set of rows."""
    series = _series([1.0] * PERIODS)
    times = tuple(float(i + 1) for i in range(PERIODS))
    run = charts.TortureRun("c", series, {"t_s": times, "free_blocks": tuple(100.0 for _ in times)}, {})
    calls = _counting(monkeypatch, charts, "thin_keeping_extremes")
    whole = charts.iops_rows(run)
    charts.iops_scatter(run)
    charts.iops_scatter(run, log_y=True)
    charts.iops_scatter(run, 400)
    charts.telemetry_panels(run)
    charts.side_by_side([run, run])
    # whole run, last 400 s, and each telemetry channel once, however many charts draw them (it was 12)
    assert calls[0] == 2 + len(charts.TELEMETRY)
    assert len(whole) <= charts.MAX_POINTS + 2 and charts.iops_rows(run) == whole
    assert charts.iops_rows(run) is not charts.iops_rows(run)  # a caller's list is its own


class _CountedRow(dict[str, Any]):
    """A row that counts how often a field is read."""

    reads = 0

    def __getitem__(self, key: str) -> Any:
        _CountedRow.reads += 1
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        _CountedRow.reads += 1
        return super().get(key, default)


def test_thinning_reads_each_value_once() -> None:
    """One read of each row's field per chunk scan (it read each three or four times: a list of
    the valued rows, then min and max each keyed by a lookup)."""
    from ssdlab.report.charts import thin_keeping_extremes

    rows = [_CountedRow(t_s=float(i), value=float((i * 7919) % 101)) for i in range(PERIODS)]
    _CountedRow.reads = 0
    thin_keeping_extremes(rows, "value", charts.MAX_POINTS)
    assert _CountedRow.reads <= PERIODS


def test_thinning_keeps_the_first_of_equal_extremes_and_skips_non_figures() -> None:
    from ssdlab.report.charts import _extremes

    nan, inf = float("nan"), float("inf")
    chunk = [{"v": nan}, {"v": 3.0}, {"v": 1.0}, {"v": None}, {"v": 1.0}, {"v": inf}, {"v": 3.0}, {"v": True}]
    assert _extremes(chunk, "v") == (2, 1)
    assert _extremes([{"v": nan}, {"x": 1.0}], "v") == ()
    assert _extremes([{"v": -inf}, {"v": 0}], "v") == (1, 1)
