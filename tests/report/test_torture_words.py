"""The report's words about the random-write torture (consistency, WSAT) say what ran: its block
size, queue depth and jobs from the run's parameters, what a dot of its scatter stands for from
its periods, and both tortures in the summary when the run holds both. At the methods' defaults
the words are the ones the report always gave."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from pty_helpers import run_in_terminal
from ssdlab.analysis.consistency import RunSeries
from ssdlab.bundle import Bundle, RunRecord, TestRecord
from ssdlab.compare import compare_bundles
from ssdlab.report import render_report
from ssdlab.report.compare_figures import consistency_figures
from ssdlab.report.summary import summary_findings
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo
from ssdlab.verdicts import Verdict

SPEC = "sim:sm951-nvme-256?capacity_gib=2"
SHORT = {"runtime_s": 120, "steady_window_s": 40, "round_s": 10}
LOAD = {"block_size_bytes": 16384, "iodepth": 4}
# Rounds of 10.5 s end half-way through a second: each round's last period lasts 0.5 s.
ROUNDS = {"runtime_s": 120, "steady_window_s": 40, "round_s": 10.5, "until_steady": True, "iodepth": 8, "jobs": 2}


def sim_bundle(path: Path, *entries: SuiteEntry, spec: str = SPEC) -> Path:
    from ssdlab.engines.sim import SimEngine

    run_entries(path, parse_target(spec), SimEngine(), list(entries))
    return path


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    root = tmp_path_factory.mktemp("torture-words")
    return {
        "16k": sim_bundle(root / "16k", SuiteEntry(name="consistency", test="consistency", params={**SHORT, **LOAD}),
                          SuiteEntry(name="wsat", test="wsat", params={**SHORT, **LOAD})),
        "16k-950": sim_bundle(root / "16k-950", SuiteEntry(name="consistency", test="consistency",
                                                           params={**SHORT, **LOAD}),
                              spec="sim:950pro-256?capacity_gib=2"),
        "default": sim_bundle(root / "default", SuiteEntry(name="consistency", test="consistency", params=SHORT),
                              SuiteEntry(name="consistency-op25", test="consistency", params={**SHORT, "op_pct": 25})),
        "wsat": sim_bundle(root / "wsat", SuiteEntry(name="wsat", test="wsat", params=SHORT)),
        "rounds": sim_bundle(root / "rounds", SuiteEntry(name="consistency", test="consistency", params=ROUNDS),
                             SuiteEntry(name="wsat", test="wsat", params=ROUNDS)),
    }


def render(bundle: Path) -> str:
    return render_report(bundle).html.read_text(encoding="utf-8")


def page_text(bundle: Path) -> str:
    """The words of the bundle's HTML report, as a reader reads them: no scripts, styles or tags,
    entities decoded; each element's text on a line of its own."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", render(bundle), flags=re.S)
    return html.unescape(re.sub(r"\s*<[^>]+>\s*", "\n", page))


def test_a_16k_qd4_torture_is_named_as_it_ran_in_the_html_report(bundles: dict[str, Path]) -> None:
    """QA: a 16 KiB QD4 torture's scatter said "each dot is one second of 4 KiB random writes", its
    section "Performance consistency (4 KiB random write, steady state)", its summary title
    "4 KiB random write: fresh vs steady state"."""
    text = page_text(bundles["16k"])
    assert "Each dot is one second of 16 KiB random writes; the cliff is where the spare area ran out." in text
    assert "Performance consistency (16 KiB random write, steady state)" in text
    assert "16 KiB random write: fresh vs steady state (consistency)" in text
    assert "16 KiB random write: fresh vs steady state (WSAT)" in text
    assert "the default consistency run's 16 KiB QD4 random write on the just-filled drive" in text
    assert "the WSAT (write saturation) run's 16 KiB QD4 random write from the purged drive" in text
    assert "4 KiB random write" not in text and "QD32 random" not in text


def test_a_16k_qd4_torture_is_named_as_it_ran_in_the_terminal(bundles: dict[str, Path]) -> None:
    run = run_in_terminal("report", str(bundles["16k"]), columns=160)
    assert run.code == 0, run.screen
    assert "Performance consistency (16 KiB random write, steady state): verdicts" in run.screen
    assert "16 KiB random write: fresh vs steady state (consistency)" in run.screen
    assert "16 KiB random write: fresh vs steady state (WSAT)" in run.screen
    assert "4 KiB random write" not in run.screen


def test_a_run_with_both_tortures_sums_up_each(bundles: dict[str, Path]) -> None:
    """QA: a run holding the default consistency run and WSAT gave the consistency run's figures
    alone: WSAT's fall from the fresh drive and its cliff were in no finding. Each has its rows,
    each named for its test and linked to its section."""
    found = [f for f in summary_findings(Bundle(bundles["16k"]).load_run()) if f.measured]
    rows = {f.key: (f.title, f.section) for f in found}
    assert rows == {
        "fresh_vs_steady": ("16 KiB random write: fresh vs steady state (consistency)", "consistency"),
        "fresh_vs_steady-wsat": ("16 KiB random write: fresh vs steady state (WSAT)", "wsat"),
        "consistency": ("Consistency", "consistency"),
        "consistency-wsat": ("Write saturation (WSAT)", "wsat"),
    }
    ids = re.findall(r'<tr class="measured" id="([^"]+)"', render(bundles["16k"]))
    assert ids == ["finding-fresh-vs-steady", "finding-fresh-vs-steady-wsat", "finding-consistency",
                   "finding-consistency-wsat"]


def test_at_the_defaults_the_words_are_as_they_were(bundles: dict[str, Path]) -> None:
    text = page_text(bundles["default"])
    assert "Each dot is one second of 4 KiB random writes; the cliff is where the spare area ran out." in text
    assert "Performance consistency (4 KiB random write, steady state)" in text
    assert "\n4 KiB random write: fresh vs steady state\n" in text
    assert "the default consistency run's 4 KiB QD32 random write on the just-filled drive" in text
    assert "IOPS per second, whole run" in text
    assert "4 KiB random writes QD32, incompressible, over the full span for 120 s" in text
    spare = next(f for f in summary_findings(Bundle(bundles["default"]).load_run()) if f.key == "spare_area")
    assert re.match(r"(steady 4 KiB random write|4 KiB random write over the analysed windows) [\d,]+ IOPS → ",
                    spare.text), spare.text
    wsat = page_text(bundles["wsat"])
    assert "Each dot is one second; right: the same against data written." in wsat
    assert "\n4 KiB random write: fresh vs steady state\n" in wsat
    assert "the WSAT (write saturation) run's 4 KiB QD32 random write from the purged drive" in wsat
    assert "4 KiB random writes QD32 from the fresh drive for 120 s" in wsat


def test_a_dot_of_rounds_that_end_mid_second_is_no_second(bundles: dict[str, Path]) -> None:
    """Rounds of 10.5 s end in a half-second period each: "each dot is one second" was not so; and
    two jobs at QD8 each are not QD8."""
    text = page_text(bundles["rounds"])
    assert re.search(r"Each dot is one logging period of 4 KiB random writes \(1 s, but \d+ of the \d+ last 0\.5 s\); "
                     "the cliff is where the spare area ran out.", text)
    assert re.search(r"Each dot is one logging period \(1 s, but \d+ of the \d+ last 0\.5 s\); right: the same", text)
    assert "IOPS per period, whole run" in text and "IOPS per second" not in text
    assert "the default consistency run's 4 KiB random write at QD8 in each of 2 jobs on the just-filled drive" in text
    assert "4 KiB random writes QD8 in each of 2 jobs, incompressible" in text


def test_the_compare_scatter_names_the_block_size_of_its_runs(bundles: dict[str, Path]) -> None:
    def caption(*paths: Path, force: bool = False) -> str:
        c = compare_bundles(list(paths), force=force)
        t = next(t for t in c.tests if t.name == "consistency")
        return consistency_figures(c, t)[0].caption

    assert caption(bundles["16k"], bundles["16k-950"]).startswith(
        "Each dot is one second of 16 KiB random writes; right: the analysed window, zoomed.")
    unlike = caption(bundles["default"], bundles["16k-950"], force=True)
    assert re.match(r"Each dot is one second of random writes \(4 KiB on .+, 16 KiB on .+\); right:", unlike), unlike


# ---- without the simulator -----------------------------------------------------------


def series(lengths: list[float], period_s: float = 1.0) -> RunSeries:
    ends = [sum(lengths[:i + 1]) for i in range(len(lengths))]
    return RunSeries(period_s=period_s, t_s=tuple(ends), iops=tuple(1000.0 for _ in ends),
                     write_bytes=tuple(0.0 for _ in ends), durations_s=tuple(lengths))


def test_what_a_dot_is() -> None:
    from ssdlab.report.section_consistency import each_dot, iops_per_dot  # new with it: the other tests run on old code

    # The simulator's last period holds the commands completing just after the runtime: still a second.
    whole = series([1.0] * 9 + [1.000987])
    assert each_dot([whole], "4 KiB random writes") == "Each dot is one second of 4 KiB random writes"
    assert iops_per_dot([whole]) == "IOPS per second"
    assert each_dot([series([2.0] * 5, 2.0)]) == "Each dot is one 2 s period"
    rounds = series([*[1.0] * 10, 0.5] * 2)
    assert each_dot([rounds], "4 KiB random writes") == (
        "Each dot is one logging period of 4 KiB random writes (1 s, but 2 of the 22 last 0.5 s)")
    assert iops_per_dot([rounds]) == "IOPS per period"
    assert each_dot([series([1.0, 0.5, 1.0, 0.2])]) == (
        "Each dot is one logging period (1 s, but 2 of the 4 last 0.2 to 0.5 s)")


TARGET = TargetInfo(spec="fake:", kind="fake", model="Test drive", capacity_bytes=256 * 10**9, transport="fake-nvme")


def torture(name: str, test: str, params: dict[str, Any] | None = None) -> TestRecord:
    metrics = {"window_s": 400.0, "fresh_iops": 100_000.0, "window_iops_mean": 20_000.0, "window_iops_stddev": 1_000.0,
               "window_mean_stddev_ratio": 20.0, "window_cv_pct": 5.0, "op_pct": 0.0}
    steady = Verdict(key="steady_state", question="?", outcome="yes", summary="Steady state from 1200 s", rule="r")
    return TestRecord(name=name, test=test, params={"runtime_s": 3600.0, **(params or {})}, status="complete",
                      metrics=metrics, verdicts=(steady,))


def findings(*tests: TestRecord) -> dict[str, Any]:
    run = RunRecord(ssdlab_version="t", created_utc="2024-01-01T00:00:00Z", updated_utc="2024-01-01T00:00:00Z",
                    status="complete", target=TARGET, engine="fake", tests=tests)
    return {f.key: f for f in summary_findings(run)}


def test_a_torture_alone_keeps_its_rows_as_they_were() -> None:
    alone = findings(torture("wsat", "wsat"))
    assert [k for k, f in alone.items() if f.measured] == ["fresh_vs_steady", "consistency"]
    assert alone["fresh_vs_steady"].title == "4 KiB random write: fresh vs steady state"
    assert alone["consistency"].title == "Write saturation (WSAT)"


def test_nothing_ran_gives_the_rule_at_the_methods_defaults() -> None:
    rule = findings()["fresh_vs_steady"].rule
    assert rule == ("fresh = mean IOPS over the first 5 s of the 4 KiB QD32 random-write torture (consistency: on the "
                    "just-filled drive; WSAT: on the purged drive); steady = mean over the analysed window at its end; "
                    "ratio = steady / fresh")
    assert findings()["fresh_vs_steady"].title == "4 KiB random write: fresh vs steady state"


def test_a_consistency_run_with_no_fill_starts_on_the_purged_drive() -> None:
    rule = findings(torture("consistency", "consistency", {"fill_passes": 0}))["consistency"].rule
    assert "the default consistency run's 4 KiB QD32 random write on the purged drive, with no fill" in rule


@pytest.mark.parametrize(("passes", "said"), [
    (1, "Purge, sequential 128 KiB QD32 fill (1 pass), then 4 KiB random writes QD32, incompressible"),
    (2, "Purge, sequential 128 KiB QD32 fill (2 passes), then 4 KiB random writes QD32"),
    (0, "Purge, no fill, then 4 KiB random writes QD32"),  # it said "fill (0 pass)"
])
def test_the_caption_says_the_fill_that_ran(passes: int, said: str) -> None:
    from ssdlab.report.contract import record_view
    from ssdlab.report.section_consistency import consistency_caption

    view = record_view(torture("consistency", "consistency", {"fill_passes": passes}), TARGET)
    assert view is not None and consistency_caption(view).startswith(said)
