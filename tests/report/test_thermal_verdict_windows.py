"""A verdict is marked by the windows its outcome rests on (Verdict.windows), not by any short
window of its test: the thermal test's yes resting on its sequential phase was marked "figures
from too-short windows" when only its random phase was too short. A figure made of no measured
window (the TRIM command's time) is never marked as one's."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import Bundle, ShortWindows
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.engines.sim import SimEngine
from ssdlab.methods.thermal import phase_window
from ssdlab.report.contract import unreliable_metrics
from ssdlab.report.sections import build_section, marked_verdicts
from ssdlab.report.summary import summary_findings
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.verdicts import Verdict

MARK = "\N{DAGGER}"  # bundle.UNRELIABLE_MARK, spelt out


@pytest.fixture(scope="module")
def hot_short_random(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated drive in a hot case throttles from heat through its 20 s sequential phase; its
    random phase, half a second (under one period), is too short to trust and has no level."""
    path = tmp_path_factory.mktemp("thermal") / "b"
    entry = SuiteEntry(name="thermal", test="thermal", params={
        "seq_runtime_s": 20, "rnd_runtime_s": 0.5, "cooldown_s": None, "purge": False})
    run_entries(path, parse_target("sim:840evo-250?ambient_c=82"), SimEngine(), [entry])
    return path


def test_a_yes_resting_on_the_sequential_phase_is_not_marked_by_a_short_random_one(hot_short_random: Path) -> None:
    bundle = Bundle(hot_short_random)
    run = bundle.load_run()
    record = run.test("thermal")
    short = bundle.windows_too_short(record)
    assert short is not None and short.names == frozenset({phase_window("rnd")})
    (verdict,) = record.verdicts
    assert verdict.outcome == "yes" and verdict.windows == (phase_window("seq"),)
    section = build_section(bundle, record)
    assert MARK not in section.verdicts[0].summary and section.verdict_note is None  # was marked, with the note
    (found,) = [f for f in summary_findings(run, bundle) if f.key == "throttling"]
    assert MARK not in found.text and found.unreliable == ()
    # The random phase's own figures are still marked.
    assert "rnd_mean_mb_s" in unreliable_metrics(record, run.target, short)


def test_a_verdict_is_marked_by_the_windows_it_names_or_by_any_without_names() -> None:
    short = ShortWindows(frozenset({phase_window("rnd")}), "raise rnd_runtime_s")
    base = {"key": "k", "question": "q?", "outcome": "yes", "summary": "S", "rule": "r"}
    seq, rnd, named_none = (Verdict(**base, windows=(phase_window("seq"),)),
                            Verdict(**base, windows=(phase_window("seq"), phase_window("rnd"))), Verdict(**base))
    assert [v.summary for v in marked_verdicts((seq, rnd, named_none), short)] == ["S", f"S{MARK}", f"S{MARK}"]
    assert [v.summary for v in marked_verdicts((seq, rnd, named_none), None)] == ["S", "S", "S"]


def test_the_trim_commands_time_is_not_marked_by_a_short_write(tmp_path: Path) -> None:
    """trim_elapsed_s times the TRIM step, no measured write: its writes too short mark their rates,
    not it (it was marked with every figure of the test)."""
    entry = SuiteEntry(name="trim-validation", test="trim-validation", params={"seq_runtime_s": 1})
    path = tmp_path / "b"
    run_entries(path, parse_target("fake:?capacity=2g"), FakeEngine(FakeProfile(write_lat_us=100_000.0)), [entry])
    bundle = Bundle(path)
    run = bundle.load_run()
    record = run.test("trim-validation")
    marked = unreliable_metrics(record, run.target, bundle.windows_too_short(record))
    assert "clean_mb_s" in marked and isinstance(record.metrics.get("trim_elapsed_s"), float)
    assert "trim_elapsed_s" not in marked
