"""`ssdlab report --reanalyse`: every finished test's figures and verdicts derived again from the bundle's
measurements by this ssdlab's analysis (reanalysis.py), kept in the bundle and the library."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from run_helpers import short_overrides
from ssdlab.bundle import Bundle, how_it_ran, is_reanalysed_note
from ssdlab.effective import method_notes
from ssdlab.engines.fake import FakeEngine
from ssdlab.library import Library
from ssdlab.methods import REGISTRY, VARIANTS, get_entry, get_test
from ssdlab.reanalysis import Reanalysed, changed_figures, changed_verdicts, reanalyse
from ssdlab.runner import run_entries
from ssdlab.targets import parse_target
from ssdlab.verdicts import Verdict

FAKE = "fake:?capacity=2g"


@pytest.fixture(scope="module")
def every_method(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle of every method of the catalogue, run short on the fake drive."""
    path = tmp_path_factory.mktemp("every") / "bundle"
    entries = [get_entry(name) for name in sorted({*REGISTRY, *VARIANTS})]
    run_entries(path, parse_target(FAKE), FakeEngine(), entries, short_overrides(entries))
    return path


def _rewrite(path: Path, test: str, **changes: object) -> None:
    """The run's record with one test's stored figures or verdicts as an older analysis left them."""
    run_file = path / "run.json"
    data = json.loads(run_file.read_text())
    record = next(t for t in data["tests"] if t["name"] == test)
    for key, value in changes.items():
        if key == "drop":
            for name in value:  # type: ignore[attr-defined]
                del record["metrics"][name]
        else:
            record[key] = value if key != "metrics" else {**record["metrics"], **value}  # type: ignore[dict-item]
    run_file.write_text(json.dumps(data))


def test_every_method_derives_again_what_it_stored(every_method: Path) -> None:
    """Re-analysing a bundle this version made changes nothing: the same measurements, the same analysis."""
    before = Bundle(every_method).load_run()
    run, changes = reanalyse(Bundle(every_method))
    assert [c.said() for c in changes] == [f"{t.name}: unchanged" for t in before.tests]
    for old, new in zip(before.tests, run.tests, strict=True):
        assert (new.metrics, new.verdicts) == (old.metrics, old.verdicts), old.name
        assert new.notes[:-1] == old.notes and is_reanalysed_note(new.notes[-1])


def test_figures_and_verdicts_an_older_analysis_stored_are_replaced(tmp_path: Path, every_method: Path) -> None:
    path = tmp_path / "old"
    shutil.copytree(every_method, path)
    now = Bundle(path).load_run()
    linear = now.test("linear")
    verdict = linear.verdicts[0]
    other = "yes" if verdict.outcome != "yes" else "no"
    _rewrite(path, "mixed-random", metrics={"min_at_read_pct": 60, "avg_iops": 1.5, "gone_since": 3.0},
             drop=["min_iops"])
    _rewrite(path, "linear", verdicts=[{**verdict.model_dump(), "outcome": other}])
    run, changes = reanalyse(Bundle(path))
    said = {c.name: c for c in changes}
    assert said["mixed-random"].figures == ("avg_iops", "min_iops", "min_at_read_pct", "gone_since")
    assert said["linear"].verdicts == (f"{verdict.key}: {other} -> {verdict.outcome}",)
    assert run.test("mixed-random").metrics == now.test("mixed-random").metrics
    assert run.test("linear").verdicts == linear.verdicts
    assert all(said[t.name].said() == f"{t.name}: unchanged" for t in now.tests if t.name not in ("mixed-random",
                                                                                                 "linear"))


def test_a_test_that_cannot_be_derived_again_keeps_its_figures_and_says_why(tmp_path: Path) -> None:
    path = tmp_path / "b"
    entries = [get_entry("quick"), get_entry("mixed-random")]
    run_entries(path, parse_target(FAKE), FakeEngine(), entries, short_overrides(entries))
    _rewrite(path, "quick", params={"runs": 1, "no_such_param": 2}, metrics={"kept": 1.0})
    run_file = path / "run.json"
    data = json.loads(run_file.read_text())
    data["tests"][1]["status"] = "interrupted"
    run_file.write_text(json.dumps(data))
    run, changes = reanalyse(Bundle(path))
    assert changes[0].kept_because is not None and "no_such_param" in changes[0].kept_because
    assert run.test("quick").metrics["kept"] == 1.0
    assert changes[1].said() == "mixed-random: kept as recorded (it is interrupted, not complete)"
    assert run.tests[1] == Bundle(path).load_run().tests[1]


def test_a_method_changed_since_the_run_keeps_its_figures(tmp_path: Path, every_method: Path) -> None:
    """A parameter added since the run would be read at today's default (AS SSD's cool-down, QA: an older
    bundle re-analysed claimed `cooldown_s` 300 of a run that never idled), and a workload planned otherwise
    today measures something else: either keeps the recorded figures."""
    path = tmp_path / "changed"
    shutil.copytree(every_method, path)
    run_file = path / "run.json"
    data = json.loads(run_file.read_text())
    tests = {t["name"]: t for t in data["tests"]}
    del tests["as-ssd"]["params"]["cooldown_s"]
    tests["quick"]["params"]["runtime_s"] = 3.0  # measured at 2 s: today's plan of these params differs
    tests["thermal"]["steps"][-1]["step"]["seconds"] = 5.0  # a cool-down that idled otherwise
    run_file.write_text(json.dumps(data))
    run, changes = reanalyse(Bundle(path))
    said = {c.name: c.said() for c in changes}
    assert said["as-ssd"] == ("as-ssd: kept as recorded (its method has gained a parameter since the run "
                              "(cooldown_s): this ssdlab would derive the figures of another method; run the test "
                              "again)")
    assert said["quick"].startswith("quick: kept as recorded (its measured workload ")
    assert "is planned otherwise today" in said["quick"]
    assert said["thermal"].startswith("thermal: kept as recorded (its step cooldown-")
    assert "is planned otherwise today" in said["thermal"]
    assert run.test("as-ssd") == Bundle(path).load_run().test("as-ssd")
    assert said["mixed-random"] == "mixed-random: unchanged"


def test_an_analysis_that_fails_on_old_data_keeps_that_test_and_goes_on(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c"
    entries = [get_entry("quick"), get_entry("mixed-random")]
    run_entries(path, parse_target(FAKE), FakeEngine(), entries, short_overrides(entries))

    def failing(*args: object) -> None:
        raise KeyError("read_iops")

    monkeypatch.setattr(type(get_test("quick")), "analyze", failing)
    _run, changes = reanalyse(Bundle(path))
    assert [c.said() for c in changes] == [
        "quick: kept as recorded (this ssdlab's analysis failed on it: KeyError: 'read_iops')",
        "mixed-random: unchanged"]


def test_the_note_tells_how_it_ran_not_what_and_a_second_replaces_the_first(every_method: Path, tmp_path: Path) -> None:
    path = tmp_path / "twice"
    shutil.copytree(every_method, path)
    for _ in range(2):
        run, _changes = reanalyse(Bundle(path))
        Bundle(path).write_run(run)
    notes = Bundle(path).load_run().test("quick").notes
    assert sum(map(is_reanalysed_note, notes)) == 1
    assert how_it_ran(notes[-1]) and notes[-1] not in method_notes(notes)  # runs compare as before


def test_changed_figures_compare_values_as_figures() -> None:
    assert changed_figures({"a": 5, "b": float("nan"), "c": True}, {"a": 5.0, "b": float("nan"), "c": 1}) == ("c",)
    assert changed_figures({"a": 1.0, "x": 2}, {"a": 1.0000001, "y": 3}) == ("a", "y", "x")


def test_changed_verdicts_name_outcomes_words_arrivals_and_departures() -> None:
    def v(key: str, outcome: str, summary: str = "s") -> Verdict:
        return Verdict(key=key, question="q", outcome=outcome, summary=summary, rule="r")  # type: ignore[arg-type]

    old = (v("a", "no"), v("b", "yes"), v("c", "yes"))
    new = (v("a", "yes"), v("b", "yes", "other words"), v("d", "inconclusive"))
    assert changed_verdicts(old, new) == ("a: no -> yes", "b: reworded", "d: none -> inconclusive", "c: yes -> none")
    assert Reanalysed("t", verdicts=("a: no -> yes",)).said() == "t: verdict a: no -> yes"
    many = Reanalysed("t", figures=tuple(f"f{i}" for i in range(11)))
    assert many.said() == "t: 11 figures changed (f0, f1, f2, f3, f4, f5, f6, f7 and 3 more)"


def test_report_reanalyse_keeps_the_figures_in_the_bundle_and_the_library(cli: Callable[..., Any], tmp_path: Path,
                                                                          every_method: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cli"
    shutil.copytree(every_method, path)
    library = tmp_path / "lib.sqlite"
    monkeypatch.setenv("SSDLAB_LIBRARY", str(library))
    _rewrite(path, "mixed-random", metrics={"avg_iops": 1.5})
    Library(library).add(path)  # the library holds the older figure too
    done = cli("report", str(path), "--reanalyse", "-o", str(tmp_path / "r.html"))
    assert done.code == 0, done.stderr
    assert "reanalysed: mixed-random: 1 figure changed (avg_iops)" in done.stdout
    assert "reanalysed: quick: unchanged" in done.stdout
    assert "Results library: updated" in done.stdout
    stored = Bundle(path).load_run().test("mixed-random").metrics["avg_iops"]
    assert stored != 1.5
    exported = [r for r in Library(library).export_rows() if r["test"] == "mixed-random" and r["metric"] == "avg_iops"]
    assert [r["value"] for r in exported] == [stored]


def test_report_reanalyse_of_a_bundle_a_run_holds_is_refused_in_one_line(cli: Callable[..., Any], tmp_path: Path,
                                                                         every_method: Path) -> None:
    with Bundle(every_method).lock():
        done = cli("report", str(every_method), "--reanalyse", "-o", str(tmp_path / "r.html"))
    assert done.code == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "in use by another ssdlab run" in done.stderr and done.stderr.rstrip().endswith("then reanalyse")
    assert not (tmp_path / "r.html").exists()


def test_the_windows_too_short_to_trust_are_judged_again(tmp_path: Path) -> None:
    """A window an older rule did not flag is flagged (its note said again), and one it flagged that today's
    rule does not is cleared: as a run of this version records them."""
    from ssdlab.bundle import says_unreliable
    from ssdlab.engines.fake import FakeProfile
    from ssdlab.suites import SuiteEntry

    slow = FakeProfile(seq_read_mb_s=50 * 2**20 / 1e6)  # four quick windows too short (test_bundle_too_short.py)
    quick = SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2, "profile": "nvme"})
    path = tmp_path / "short"
    run_entries(path, parse_target("fake:?capacity=16g"), FakeEngine(profile=slow), [quick])
    flagged = Bundle(path).load_run().test("quick")
    assert flagged.too_short is not None and len(flagged.too_short.windows) == 4
    _rewrite(path, "quick", too_short=None, notes=[n for n in flagged.notes if not says_unreliable(n)])
    run, changes = reanalyse(Bundle(path))
    assert changes[0].said() == "quick: windows too short to trust 0 -> 4"
    again = run.test("quick")
    assert again.too_short == flagged.too_short
    assert [n for n in again.notes if says_unreliable(n)] == [n for n in flagged.notes if says_unreliable(n)]
    Bundle(path).write_run(run)
    _rewrite(path, "quick", too_short={"windows": ["seq1m_q8t1-write-r1"], "advice": "raise runtime_s"})
    _run, changes = reanalyse(Bundle(path))
    assert changes[0].said() == "quick: windows too short to trust 1 -> 4"
