"""A phase begun hot on a drive without a throttle indicator (fio on a SATA drive, or on an NVMe drive
without thermal-management counters, whose temperature is still sampled): it may have been
throttled from its first second, so its fastest level is no unthrottled peak, and it read 'No thermal
throttling … held its peak level throughout'. It has no verdict now, saying why; a phase begun cool,
or on a drive with an indicator, is judged as it was."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from test_thermal_levels import CACHE_ONLY, Piece, measurement

from ssdlab.bundle import Bundle
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement
from ssdlab.methods import get_test
from ssdlab.methods.base import TestResults
from ssdlab.methods.thermal import (
    LEVEL,
    RATED_MAX_C,
    ThermalParams,
    analyze_measurement,
    began_hot,
    hot_start_words,
    warning_temp_c,
)
from ssdlab.report.section_generic import measured
from ssdlab.report.section_thermal import phase_note
from ssdlab.report.sections import build_section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sysinfo import BlockFacts, apply_nvme
from ssdlab.verdicts import Verdict

TEST = get_test("thermal")
PARAMS = ThermalParams()
SATA = TargetInfo(spec="/dev/sdx", kind="block", capacity_bytes=10**12, transport="sata")


def nvme(wctemp_k: int) -> TargetInfo:
    """An NVMe drive whose `nvme id-ctrl` gives WCTEMP `wctemp_k`, recorded as sysinfo records it."""
    facts = BlockFacts(name="nvme9n1", disk="nvme9n1", transport="nvme", capacity_bytes=10**12)
    apply_nvme(facts, {"mn": "X", "wctemp": wctemp_k, "cctemp": wctemp_k + 10})
    return TargetInfo(spec="/dev/nvme9n1", kind="block", capacity_bytes=10**12, extra=dict(facts.extra))


def without_indicator(m: Measurement) -> Measurement:
    """The phase as fio and the sampler record it on a drive without thermal-management counters:
    its temperature, no throttle flag."""
    return m.model_copy(update={"telemetry": {k: v for k, v in m.telemetry.items() if k != LEVEL}})


def judged(target: TargetInfo, seq: Sequence[Piece], rnd: Sequence[Piece] = CACHE_ONLY,
           indicator: bool = False) -> tuple[dict[str, object], Verdict]:
    """The method's metrics and verdict of two phases on `target`, each without an indicator unless asked."""
    phases = {name: measurement(pieces) for name, pieces in (("thermal-seq", seq), ("thermal-rnd", rnd))}
    if not indicator:
        phases = {name: without_indicator(m) for name, m in phases.items()}
    metrics = TEST.analyze(PARAMS, target, TestResults(measurements=phases))
    (verdict,) = TEST.verdicts(PARAMS, metrics)
    return dict(metrics), verdict


# 320 MB/s throughout from 78 °C, no slowdown: throttled from its first second, or not, alike.
HOT_FLAT: list[Piece] = [(320, 200, 78, 84, False, False, 1.6)]
COOL_FLAT: list[Piece] = [(320, 200, 38, 52, False, False, 1.6)]
# A cache that runs out after 10 s, begun at 76 °C.
HOT_CACHE: list[Piece] = [(1500, 10, 76, 77, False, False, 5.0), (700, 190, 77, 80, False, True, 5.1)]


def test_a_phase_begun_above_the_rated_range_without_an_indicator_has_no_verdict() -> None:
    """Was 'No thermal throttling (garbage collection / cache: random write slowed after 10 s)'."""
    metrics, verdict = judged(SATA, HOT_FLAT)
    assert metrics["seq_start_temp_c"] == 78.0 and metrics["warning_temp_c"] is None
    assert metrics["seq_cause"] == "none" and metrics["seq_peak_indicator_pct"] is None  # the analysis is as it was
    assert verdict.outcome == "inconclusive"
    assert verdict.summary == ("No verdict: the sequential write phase began hot, on a drive without a throttle "
                               "indicator")
    assert verdict.because == (
        "sequential write began at 78.0 °C, at or above 70 °C, the top of the 0-70 °C range SSDs are commonly rated to "
        "run in (the drive gives no warning temperature), and the drive reports no throttle indicator, so a throttle "
        "from the start cannot be told from its data: sequential write held its peak level, 320 MB/s, throughout, "
        "which may itself be a throttled rate; start it cooler (a longer cooldown_s, more airflow) to tell")
    assert verdict.figures["seq_start_temp_c"] == 78.0 and "warning_temp_c" in verdict.figures


def test_a_slowdown_from_a_cache_after_a_hot_start_does_not_clear_the_peak() -> None:
    """A cache running out is a slowdown of its own; the peak before it may still be heat-throttled."""
    _, verdict = judged(SATA, CACHE_ONLY, HOT_CACHE)
    assert verdict.outcome == "inconclusive"
    assert verdict.summary.startswith("No verdict: the random write phase began hot")
    assert "random write's peak level, 1500 MB/s, may itself be a throttled rate (it slowed after 10 s, from " \
           "garbage collection / cache)" in verdict.because
    _, both = judged(SATA, HOT_FLAT, HOT_CACHE)
    assert both.summary.startswith("No verdict: the sequential write and random write phases began hot")
    assert "sequential write began at 78.0 °C and random write at 76.0 °C, at or above 70 °C" in both.because


def test_the_drives_own_warning_temperature_is_the_limit_where_it_gives_one() -> None:
    """WCTEMP 358 K (84.85 °C): 78 °C is under it, so the phase is judged (no throttling); 343 K
    (69.85 °C): over it. A drive's own threshold, not the rated range, where it gives one."""
    cool_for_it, verdict = judged(nvme(358), HOT_FLAT)
    assert cool_for_it["warning_temp_c"] == pytest.approx(84.85) and verdict.outcome == "no"
    _, hot = judged(nvme(343), HOT_FLAT)
    assert hot.outcome == "inconclusive"
    assert "began at 78.0 °C, at or above the drive's 69.85 °C (343 K) warning temperature, and the drive reports " \
           "no throttle indicator" in hot.because


@pytest.mark.parametrize(("reading_k", "hot"), [(343, True), (342, False)])
def test_a_drive_at_exactly_its_warning_temperature_reads_at_it(reading_k: int, hot: bool) -> None:
    """WCTEMP was recorded as whole kelvin less 273, a temperature read as kelvin less 273.15: held
    against each other so, a drive at its 343 K warning temperature read 0.15 °C under it. Both are
    kelvin less 273.15 now (units.kelvin_to_c)."""
    start = reading_k - 273.15  # as telemetry/sources.py reads `nvme smart-log`
    metrics, verdict = judged(nvme(343), [(320, 200, start, start + 6, False, False, 1.6)])
    assert began_hot(metrics, "seq") is hot
    assert verdict.outcome == ("inconclusive" if hot else "no")


def test_a_phase_begun_cool_or_with_an_indicator_is_judged_as_it_was() -> None:
    _, cool = judged(SATA, COOL_FLAT)
    assert cool.outcome == "no" and cool.summary.startswith("No thermal throttling")
    # The indicator off at the peak level says it was not throttled there, however hot it began.
    metrics, told = judged(SATA, HOT_FLAT, indicator=True)
    assert metrics["seq_peak_indicator_pct"] == 0.0 and not began_hot(metrics, "seq")
    assert told.outcome == "no" and told.summary.startswith("No thermal throttling")


def test_a_run_recorded_before_the_start_temperature_was_a_figure_keeps_its_verdict() -> None:
    metrics, verdict = judged(SATA, HOT_FLAT)
    old = {k: v for k, v in metrics.items() if "start_temp" not in k and k != "warning_temp_c"}
    assert TEST.verdicts(PARAMS, old)[0].outcome == "no" and verdict.outcome == "inconclusive"


def test_a_raid0_is_held_against_its_lowest_members_warning_temperature() -> None:
    members = [nvme(353).extra, nvme(343).extra]
    array = TargetInfo(spec="raid0:/dev/nvme8n1,/dev/nvme9n1", kind="block", capacity_bytes=2 * 10**12,
                       extra={"raid0_members": members})
    assert warning_temp_c(array) == pytest.approx(69.85)
    sata_member = TargetInfo(spec="raid0:x", kind="block", capacity_bytes=1, extra={"raid0_members": [members[0], {}]})
    assert warning_temp_c(sata_member) is None  # a member without one: the rated range
    assert warning_temp_c(nvme(0)) is None  # WCTEMP 0: none reported (the 950 PRO's)
    simulated = TargetInfo(spec="sim:raid0", kind="sim", capacity_bytes=1, extra={"raid0_members": ["950pro-512"]})
    assert warning_temp_c(simulated) is None


@pytest.fixture(scope="module")
def hot_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated 950 PRO in an 82 °C case, both phases recorded with its throttle level."""
    root = tmp_path_factory.mktemp("thermal-hot")
    entry = SuiteEntry(name="thermal", test="thermal",
                       params={"seq_runtime_s": 60, "rnd_runtime_s": 30, "cooldown_s": 30})
    run_entries(root / "b", parse_target("sim:950pro-512?ambient_c=82"), SimEngine(), [entry])
    record = Bundle(root / "b").load_run().test("thermal")
    assert record.verdicts[0].summary.startswith("Throttles from heat from the start")  # with its indicator
    return root / "b"


@pytest.fixture(scope="module")
def hot_sim(hot_bundle: Path) -> dict[str, Measurement]:
    """Its phases as a drive without thermal counters gives them: the throttle level left out."""
    bundle = Bundle(hot_bundle)
    return {name: without_indicator(m) for name, m in measured(bundle, bundle.load_run().test("thermal")).items()}


def test_a_simulated_drive_in_a_hot_case_without_its_indicator_has_no_verdict(hot_sim: dict[str, Measurement]) -> None:
    """Was 'No thermal throttling' (Sequential write: no throttling; Random write: no throttling)."""
    metrics = TEST.analyze(PARAMS, SATA, TestResults(measurements=hot_sim))
    assert metrics["seq_cause"] == metrics["rnd_cause"] == "none"
    (verdict,) = TEST.verdicts(PARAMS, metrics)
    assert verdict.outcome == "inconclusive"
    assert verdict.summary == ("No verdict: the sequential write and random write phases began hot, on a drive "
                               "without a throttle indicator")
    start = metrics["seq_start_temp_c"]
    assert isinstance(start, float) and start > RATED_MAX_C


def test_the_note_of_a_phase_begun_hot_says_it_has_no_verdict(hot_sim: dict[str, Measurement]) -> None:
    """The report's note read 'no throttling — it held its peak level throughout'."""
    metrics = TEST.analyze(PARAMS, SATA, TestResults(measurements=hot_sim))
    result = analyze_measurement(hot_sim["thermal-seq"])
    assert phase_note("seq", result) == "Sequential write: no throttling — it held its peak level throughout."
    note = phase_note("seq", result, hot_start_words(metrics, ("seq",), "it"))
    assert note.startswith("Sequential write: no verdict — it held its peak level throughout, but it began at ")
    assert note.endswith("and the drive reports no throttle indicator, so a throttle from the start cannot be told "
                         "from its data.")
    gc = analyze_measurement(without_indicator(measurement(HOT_CACHE)))
    assert phase_note("seq", gc, "it began hot").endswith(
        "; but it began hot: its peak level may itself be a throttled rate.")


def test_the_report_section_says_a_phase_begun_hot_has_no_verdict(
        hot_bundle: Path, hot_sim: dict[str, Measurement], monkeypatch: pytest.MonkeyPatch) -> None:
    """The section's notes come from the stored metrics and the series analysed again: here the
    bundle's series without the indicator, and the metrics they give on a SATA drive."""
    bundle = Bundle(hot_bundle)
    record = bundle.load_run().test("thermal")
    # As recorded, with the indicator: throttled from the start, as it was.
    recorded = build_section(bundle, record).notes
    assert any(n.startswith("Sequential write: thermal throttling from 0 s") for n in recorded), recorded
    metrics = TEST.analyze(PARAMS, SATA, TestResults(measurements=hot_sim))
    monkeypatch.setattr("ssdlab.report.section_thermal.measured", lambda *_: hot_sim)
    notes = build_section(bundle, record.model_copy(update={"metrics": metrics})).notes
    assert any(n.startswith("Sequential write: no verdict — it held its peak level throughout, but it began at ")
               for n in notes), notes
    assert not any("no throttling" in n for n in notes), notes


def test_the_bundle_keeps_the_drives_warning_temperature() -> None:
    """run.json's target keeps sysinfo's id-ctrl facts, so the limit a run was judged by stays with it."""
    assert warning_temp_c(TargetInfo.model_validate_json(nvme(343).model_dump_json())) == pytest.approx(69.85)
