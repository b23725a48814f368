"""compare's page gives each test's parameters as they applied, where a setting records what one
became, with what was asked beside it, and the runs' plan notes, as a run's report does (QA:
"Parameters: span 16 GiB" above two drives that both ran over 5.2 GiB, their region cut to fit)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ssdlab.compare import compare_bundles
from ssdlab.engines.fake import FakeEngine
from ssdlab.report.compare_page import comparison_section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

QD = SuiteEntry(name="qd-sweep", test="qd-sweep", params={"runtime_s": 1, "queue_depths": "1,2"})


def page_caption(tmp_path: Path, specs: Sequence[str], entry: SuiteEntry = QD) -> str:
    bundles = []
    for number, spec in enumerate(specs):
        path = tmp_path / f"b{number}"
        run_entries(path, parse_target(spec), FakeEngine(), [entry])
        bundles.append(path)
    c = compare_bundles(bundles)
    (t,) = c.shown
    return comparison_section(c, t).caption


def test_a_region_cut_alike_on_both_drives_is_given_as_it_ran(tmp_path: Path) -> None:
    caption = page_caption(tmp_path, ["fake:?capacity=4g", "fake:?capacity=4g&nvme=1"])
    assert "Parameters: span 2 GiB (16 GiB asked), queue depths 1,2," in caption, caption
    assert "span 16 GiB" not in caption
    assert "Plan notes: test region reduced from 16 GiB to 2 GiB (half of the 4.29 GB target)." in caption


def test_a_region_cut_unlike_on_two_drives_is_given_for_each(tmp_path: Path) -> None:
    caption = page_caption(tmp_path, ["fake:?capacity=4g", "fake:?capacity=8g"])
    assert "Parameters: span 2 GiB on " in caption and ", 4 GiB on " in caption and " (16 GiB asked)," in caption
    assert caption.count("Plan notes on ") == 2, caption
    assert "reduced from 16 GiB to 4 GiB (half of the 8.59 GB target)" in caption


def test_a_parameter_that_applied_as_asked_reads_as_before(tmp_path: Path) -> None:
    caption = page_caption(tmp_path, ["fake:?capacity=64g", "fake:?capacity=64g&nvme=1"])
    assert "Parameters: span 16 GiB, queue depths 1,2," in caption and "asked" not in caption, caption
    assert "Plan notes" not in caption


def test_a_parameter_left_to_the_method_says_what_it_became(tmp_path: Path) -> None:
    mixed = SuiteEntry(name="iometer-mixed", test="iometer-mixed", params={"runtime_s": 1})
    caption = page_caption(tmp_path, ["fake:?capacity=2g", "fake:?capacity=2g&nvme=1"], mixed)
    assert "span 2 GiB (auto)" in caption, caption


def test_parameters_the_runs_asked_differently_are_given_for_each_drive(tmp_path: Path) -> None:
    """QA, a comparison forced across methods: "op (%) 0 on A, 25 on B (0 asked)" of a B that asked
    25, and "span 1 GiB" of both where only A asked it (the reference run's parameters for all)."""
    trim = {"torture_runtime_s": 5, "seq_runtime_s": 1}
    paths = []
    for number, (spec, asked) in enumerate([("fake:?capacity=4g", {"span_bytes": "1g"}),
                                            ("fake:?capacity=4g&nvme=1", {"op_pct": 25, "reference": False})]):
        paths.append(tmp_path / f"b{number}")
        entry = SuiteEntry(name="trim-validation", test="trim-validation", params={**trim, **asked})
        run_entries(paths[-1], parse_target(spec), FakeEngine(), [entry])
    c = compare_bundles(paths, force=True)
    (t,) = c.shown
    caption = comparison_section(c, t).caption
    a, b = (drive.label for drive in c.drives)
    assert f"op (%) 0 on {a}, 25 on {b}," in caption, caption
    assert f"reference yes on {a}, no on {b}" in caption
    assert f"span 1 GiB on {a}, auto on {b}," in caption
