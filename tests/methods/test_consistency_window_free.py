"""The cliff is judged on a window after the drive's free space was written (methods/consistency.py,
window_before_free_s): an analysed window reaching back into the fresh plateau mixes the fresh rate
into the "steady" mean, and a drive that falls to 70 % of fresh read as "No cliff: holds 81 %"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ssdlab.analysis.consistency import RunSeries, consistency_metrics
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.measurement import Measurement, Series
from ssdlab.methods import get_test
from ssdlab.methods.base import TestResults
from ssdlab.methods.consistency import (
    TortureParams,
    cliff_verdict,
    steady_verdict,
    torture_verdicts,
    window_before_free_s,
)
from ssdlab.report.section_consistency import consistency_section, spare_unknown_note
from ssdlab.report.types import Section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.units import seconds_text
from ssdlab.workload import Workload

BS = 4096
FRESH, STEADY = 100_000.0, 70_000.0
PLATEAU_S = 23  # seconds at the fresh rate before the free space is written


def _metrics(runtime_s: int, window_s: float, round_s: float = 5.0) -> dict[str, Any]:
    """A drive at 100K IOPS until it has written its free space (23 s of it), then at 70K: a cliff."""
    iops = [FRESH] * PLATEAU_S + [STEADY] * (runtime_s - PLATEAU_S)
    series = RunSeries(period_s=1.0, t_s=tuple(float(i + 1) for i in range(runtime_s)), iops=tuple(iops),
                       write_bytes=tuple(v * BS for v in iops))
    return consistency_metrics(series, window_s, round_s, BS, free_bytes=PLATEAU_S * FRESH * BS)


def _verdicts(runtime_s: int, window_s: float, **params: Any) -> dict[str, Any]:
    p = TortureParams(runtime_s=runtime_s, steady_window_s=window_s, round_s=5.0, **params)
    return {v.key: v for v in torture_verdicts(p, _metrics(runtime_s, window_s))}


def test_a_window_reaching_into_the_fresh_plateau_judges_no_cliff() -> None:
    m = _metrics(60, 60.0)
    assert m["free_space_written_s"] == 23.0 and m["steady_attained"] is True
    assert m["time_to_steady_s"] >= 23.0  # the rule's own window waits for the free space
    assert m["window_fresh_pct"] > 80  # the whole run's mean: 23 s fresh in it
    assert window_before_free_s(m) == 23.0
    verdicts = _verdicts(60, 60.0)
    assert verdicts["steady_state"].outcome == "yes"
    cliff = verdicts["cliff"]
    # Before: "No cliff: holds 82 % of its fresh rate", of a drive that fell to 70 %.
    assert cliff.outcome == "inconclusive", cliff.summary
    assert "before the free space was written" in cliff.summary
    assert "holds 23 s before the torture had written the drive's 9.4 GB of free space" in cliff.because
    assert "give steady_window_s of at most 37 or runtime_s of at least 83" in cliff.because


@pytest.mark.parametrize(("runtime_s", "window_s"), [(60, 37.0), (83, 60.0)])
def test_the_advised_window_or_runtime_judges_the_cliff(runtime_s: int, window_s: float) -> None:
    m = _metrics(runtime_s, window_s)
    assert window_before_free_s(m) == 0.0
    cliff = _verdicts(runtime_s, window_s)["cliff"]
    assert cliff.outcome == "yes" and cliff.summary == "Falls to 70 % of its fresh rate"


def test_one_period_before_the_free_space_is_written_is_before() -> None:
    """The window, as the rule's rounds, begins once the free space is written: a period short of it
    (the 23rd second, which wrote its last bytes) is in the plateau."""
    m = _metrics(60, 38.0)
    assert window_before_free_s(m) == 1.0
    assert _verdicts(60, 38.0)["cliff"].outcome == "inconclusive"


def test_an_early_stop_is_not_told_to_run_longer() -> None:
    """until_steady ends at its steady window whatever runtime_s says: only the window can shrink."""
    cliff = _verdicts(60, 60.0, until_steady=True)["cliff"]
    assert cliff.outcome == "inconclusive" and "runtime_s" not in cliff.because
    assert cliff.because.endswith("give steady_window_s of at most 37")


def test_a_bundle_without_the_figures_is_judged_as_before() -> None:
    m = _metrics(60, 60.0)
    old = {k: v for k, v in m.items() if k != "free_space_written_s"}
    assert window_before_free_s(old) is None
    p = TortureParams(runtime_s=60, steady_window_s=60.0, round_s=5.0)
    assert cliff_verdict(old, steady_verdict(p, old), p).outcome == "no"


def test_wsat_places_no_cliff_its_verdict_did_not_judge() -> None:
    """WsatTest.analyze places the cliff exactly where the cliff verdict judges one: not in a window
    that began before the free space was written (the purged 2 GiB fake's 2.3 GB: 6 s at 100K IOPS)."""
    runtime_s = 60
    iops = [FRESH] * 6 + [30_000.0] * (runtime_s - 6)
    series = Series(t_s=tuple(float(i + 1) for i in range(runtime_s)), read_ios=(0.0,) * runtime_s,
                    write_ios=tuple(iops), read_bytes=(0.0,) * runtime_s, write_bytes=tuple(v * BS for v in iops),
                    read_lat_sum_ns=(0.0,) * runtime_s, write_lat_sum_ns=tuple(v * 1e5 for v in iops))
    w = Workload(name="torture", pattern="randwrite", block_size_bytes=BS, runtime_s=runtime_s)
    results = TestResults(measurements={"torture": Measurement(workload=w, engine="t", runtime_s=float(runtime_s),
                                                                series=series)})
    test = get_test("wsat")

    def analysed(window_s: float) -> tuple[dict[str, Any], str]:
        params = test.parse_params({"runtime_s": runtime_s, "steady_window_s": window_s, "round_s": 5})
        m = dict(test.analyze(params, parse_target("fake:?capacity=2g").info(), results))
        return m, {v.key: v for v in test.verdicts(params, m)}["cliff"].outcome

    m, cliff = analysed(60.0)
    assert m["free_space_written_s"] == 6.0 and m["window_fresh_pct"] < 80 and m["steady_attained"] is True
    # Before: the cliff judged (it is one, but at 37 % of fresh, not 30 %) and placed.
    assert cliff == "inconclusive" and m["cliff_gb_written"] is None
    m, cliff = analysed(50.0)
    assert cliff == "yes" and isinstance(m["cliff_gb_written"], float)


def _sim(tmp_path: Path, test: str, **params: Any) -> tuple[dict[str, Any], dict[str, str]]:
    from ssdlab.engines.sim import SimEngine

    # Half the drive spare: 23 s at the fresh 101K IOPS before the free space is written, then ~70 %.
    target = parse_target("sim:sm951-nvme-256?capacity_gib=16&op=100")
    entry = SuiteEntry(name=test, test=test, params={"round_s": 5, **params})
    done = run_entries(tmp_path, target, SimEngine(), [entry])
    assert done.status == "complete"
    record = done.tests[0]
    return dict(record.metrics), {v.key: v.outcome for v in record.verdicts}


def _section(tmp_path: Path) -> Section:
    bundle = Bundle(tmp_path)
    return consistency_section(bundle, bundle.load_run().tests[0])


def test_on_the_simulator_a_window_from_the_start_judges_no_cliff(tmp_path: Path) -> None:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    # Before: "No cliff: holds 81 % of its fresh rate" (window mean 81,636 of 101,065 fresh).
    m, outcomes = _sim(tmp_path / "whole", "consistency", runtime_s=60, steady_window_s=60)
    assert m["free_space_written_s"] > 20 and m["window_fresh_pct"] > 80
    assert outcomes == {"steady_state": "yes", "cliff": "inconclusive"}
    # The report says so in one sentence, and does not title the window "Steady state".
    section = _section(tmp_path / "whole")
    said = [n for n in section.notes if n.startswith("The analysed window began ")]
    assert said == [f"The analysed window began {seconds_text(m['free_space_written_s'])} s before the torture had "
                    f"written the drive's free space (by {seconds_text(m['free_space_written_s'])} s), so its "
                    "figures mix the fresh drive with its steady state and the cliff is not judged."]
    assert section.tables[0].title == "Last 60 s (not steady state: it began before the free space was written)"
    # The window after the free space: the fall the drive makes (69 %).
    m, outcomes = _sim(tmp_path / "after", "consistency", runtime_s=60, steady_window_s=37)
    assert m["window_fresh_pct"] < 75 and outcomes == {"steady_state": "yes", "cliff": "yes"}
    section = _section(tmp_path / "after")
    assert section.tables[0].title == "Steady state (last 37 s)"
    assert not [n for n in section.notes if n.startswith("The analysed window began ")]



# A drive whose NAND is not known (a real one; here the fake): the guard waits only for the least
# free space a drive has (7.37 % spare), and a drive with more is still on its fresh plateau after it.
REAL = "fake:?capacity=64g"


def _real(per_s: list[float], window_s: float, **params: Any) -> tuple[dict[str, Any], Any]:
    n = len(per_s)
    series = Series(t_s=tuple(float(i + 1) for i in range(n)), read_ios=(0.0,) * n, write_ios=tuple(per_s),
                    read_bytes=(0.0,) * n, write_bytes=tuple(v * BS for v in per_s), read_lat_sum_ns=(0.0,) * n,
                    write_lat_sum_ns=tuple(v * 1e5 for v in per_s))
    w = Workload(name="torture", pattern="randwrite", block_size_bytes=BS, runtime_s=n)
    results = TestResults(measurements={"torture": Measurement(workload=w, engine="t", runtime_s=float(n),
                                                                series=series)})
    test = get_test("consistency")
    p = test.parse_params({"runtime_s": n, "steady_window_s": window_s, "round_s": 10, **params})
    m = dict(test.analyze(p, parse_target(REAL).info(), results))
    return m, {v.key: v for v in test.verdicts(p, m)}["cliff"]


def test_no_fall_on_a_drive_whose_spare_area_is_not_known_is_not_no_cliff() -> None:
    # A drive with 37.4 % spare: 50K IOPS (0.2 GB/s) for the 25.7 GB of free space over its filled
    # 68.7 GB (125 s), then 10K. The guard waits for 5.1 GB (25 s): 100 s show only the plateau.
    m, cliff = _real([50_000.0] * 100, 50.0)
    assert m["steady_attained"] is True and m["window_fresh_pct"] == 100.0
    assert m["spare_written_pct"] == pytest.approx(100 * (50 * 50_000 * BS / (64 * 2**30)), abs=0.01)  # 14.9
    # Before: "No cliff: holds 100 % of its fresh rate".
    assert cliff.outcome == "inconclusive", cliff.summary
    assert cliff.summary == "Cliff not judged: no fall yet, and the drive's spare area is not known"
    assert "written the free space of a drive with up to 14.9 % spare area, and drives keep up to 37.4 %" \
        in cliff.because
    need = int(cliff.because.rsplit("runtime_s of at least ", 1)[1])
    assert need == 176
    record = TestRecord(name="consistency", test="consistency", metrics=m, verdicts=(cliff,))
    assert spare_unknown_note(record) == (
        "This drive's spare area is not known: before the analysed window the torture had written the free space "
        "of a drive with up to 14.9 % spare area, and one with more (drives keep up to 37.4 %) may still fall, so "
        "the cliff is not judged.")
    # Given that runtime, the drive above falls inside it, and the window shows it.
    fall = [50_000.0] * 125 + [10_000.0] * (need - 125)
    m, cliff = _real(fall, 50.0)
    assert cliff.outcome == "yes"


def test_no_fall_after_the_most_spare_area_is_no_cliff() -> None:
    m, cliff = _real([50_000.0] * 200, 50.0)
    assert m["spare_written_pct"] > 37.4 and cliff.outcome == "no"


def test_an_early_stop_is_told_to_run_without_it() -> None:
    m, _ = _real([50_000.0] * 100, 50.0)
    p = TortureParams(runtime_s=100, steady_window_s=50.0, round_s=10.0, until_steady=True, max_rounds=10)
    cliff = cliff_verdict(m, steady_verdict(p, m), p)
    assert cliff.outcome == "inconclusive" and cliff.because.endswith("runtime_s of at least 176 without until_steady")


def test_on_the_simulator_the_spare_area_it_knows_is_its_own(tmp_path: Path) -> None:
    """The simulator's raw NAND is known: the guard is its own free space, and nothing is assumed. With
    its NAND hidden, as a real 845DC PRO's is, the same run's plateau read as no cliff before."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine

    target = parse_target("sim:845dcpro-400?capacity_gib=16")
    info = target.info()
    entry = SuiteEntry(name="consistency", test="consistency",
                       params={"runtime_s": 16, "round_s": 2, "steady_window_s": 10})
    done = run_entries(tmp_path, target, SimEngine(), [entry])
    record = done.tests[0]
    # Known: its 6.4 GB of free space take 18 s at the fresh 91,761 IOPS: never written, not judged.
    assert record.metrics["spare_written_pct"] is None
    assert {v.key: v.outcome for v in record.verdicts} == {"steady_state": "inconclusive", "cliff": "inconclusive"}
    hidden = info.model_copy(update={"extra": {k: v for k, v in info.extra.items() if k != "raw_bytes"}})
    test = get_test("consistency")
    params = test.parse_params(record.params)
    results = TestResults(measurements=Bundle(tmp_path).measurements(record))
    m = dict(test.analyze(params, hidden, results))
    outcomes = {v.key: v.outcome for v in test.verdicts(params, m)}
    assert m["window_fresh_pct"] > 95 and m["spare_written_pct"] < 37.4
    assert outcomes == {"steady_state": "yes", "cliff": "inconclusive"}  # before: "no"
