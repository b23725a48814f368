"""A report made while its run is still going (QA): it said the test "stopped", titled the
workloads "Measured before the test stopped" and advised `ssdlab run --resume`, which the run's
lock then refused. A run still going is said to be running, its figures so far; a run that reads
"running" with nobody holding its lock was stopped without saving its status, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_bundles import make_interrupted_bundle

from ssdlab.bundle import RUN_FILE, BundleLock
from ssdlab.report import render_report


def as_running(path: Path) -> Path:
    """The interrupted bundle as a run still at its first test reads (or one killed there)."""
    run = json.loads((path / RUN_FILE).read_text(encoding="utf-8"))
    run["status"] = "running"
    run["tests"][0]["status"] = "running"
    (path / RUN_FILE).write_text(json.dumps(run), encoding="utf-8")
    return path


@pytest.mark.parametrize("live", [True, False])
def test_a_running_test_is_said_as_its_run_is(tmp_path: Path, live: bool) -> None:
    bundle = as_running(make_interrupted_bundle(tmp_path / "bundle"))
    if live:
        with BundleLock(bundle):  # another run (here: this process) is using the bundle
            html = render_report(bundle, tmp_path / "r.html").html.read_text(encoding="utf-8")
    else:
        html = render_report(bundle, tmp_path / "r.html").html.read_text(encoding="utf-8")
    said = {
        True: ("This run is still running", "measured so far; make the report again once it ends.",
               "Still running: this test was running as the report was made",
               "Measured so far (the test is still running)", "The workloads this test has run so far"),
        False: ("This run stopped without saving its status", f"resume with `ssdlab run --resume {bundle}`",
                "Incomplete: the run stopped while this test was running", "Measured before the test stopped",
                "The workloads this test ran before it stopped"),
    }
    for text in said[live]:
        assert text in html, text
    for text in said[not live]:
        assert text not in html, text


def test_a_test_stopped_before_it_measured_anything_says_so(tmp_path: Path) -> None:
    """QA: 'what it measured before that is shown', with nothing shown."""
    bundle = make_interrupted_bundle(tmp_path / "bundle", measures_before_stop=0)
    html = render_report(bundle, tmp_path / "r.html").html.read_text(encoding="utf-8")
    assert "This test was interrupted" in html and "it had measured nothing." in html
    assert "what it measured before that is shown" not in html


@pytest.mark.parametrize(("measures", "live", "said"), [
    (0, True, "Still running: this test was running as the report was made; it had measured nothing yet."),
    (0, False, "Incomplete: the run stopped while this test was running; it had measured nothing."),
    (5, True, "Not started yet: the run is still going."),
    (5, False, "Not run: the run stopped before this test started."),
])
def test_a_test_with_nothing_shown_and_a_test_not_started_are_said_as_their_run_is(
        tmp_path: Path, measures: int, live: bool, said: str) -> None:
    """QA, a live report: "what it had measured is shown" above nothing, and "Not run: the run stopped
    before this test started" of the next test while the run went on."""
    bundle = as_running(make_interrupted_bundle(tmp_path / "bundle", measures_before_stop=measures))
    if live:
        with BundleLock(bundle):
            html = render_report(bundle, tmp_path / "r.html").html.read_text(encoding="utf-8")
    else:
        html = render_report(bundle, tmp_path / "r.html").html.read_text(encoding="utf-8")
    assert said in html
