"""QA (stop 46): `-p queue_depths=1,4,32` gave each curve a "score (mean of QD 1, 2, 4)", empty,
naming a QD 2 the run never measured. The score is the mean of QD 1, 2 and 4, or none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from catalog_helpers import BIG, run_fake

from ssdlab.bundle import Bundle
from ssdlab.methods import get_test
from ssdlab.report.contract import method_view
from ssdlab.report.section_sweeps import qd_figures
from ssdlab.targets import parse_target


def labels(params: dict[str, str]) -> list[str]:
    test = get_test("qd-sweep")
    return [spec.label for spec in test.metric_specs(test.parse_params(params), parse_target(BIG).info())]


def test_no_score_names_a_depth_that_was_not_swept(tmp_path: Path) -> None:
    assert not [label for label in labels({"queue_depths": "1,4,32"}) if re.search(r"QD [\d, ]*\b2\b", label)]
    metrics = run_fake(tmp_path, "qd-sweep", {"queue_depths": "1,4,32", "runtime_s": 1})
    assert "rnd4k_read_qd4_iops" in metrics and not [name for name in metrics if "score" in name]
    bundle = Bundle(tmp_path / "qd-sweep")
    view = method_view(bundle, bundle.load_run().test("qd-sweep"))
    assert view is not None
    captions = [figure.caption for figure in qd_figures(view)]
    assert not [caption for caption in captions if "QD2" in caption or "score" in caption.lower()]


def test_a_sweep_of_qd_1_2_and_4_keeps_its_score(tmp_path: Path) -> None:
    assert [label for label in labels({"queue_depths": "1,2,4,8"}) if "score" in label] == [
        f"{curve}: score (mean of QD 1, 2, 4)" for curve in (
            "4 KiB random read", "4 KiB random read", "128 KiB sequential read", "128 KiB sequential read",
            "4 KiB random write", "4 KiB random write", "128 KiB sequential write", "128 KiB sequential write")]
    metrics = run_fake(tmp_path, "qd-sweep", {"queue_depths": "1,2,4", "runtime_s": 1})
    assert metrics["rnd4k_read_score_iops"] == pytest.approx((12_500 + 25_000 + 50_000) / 3)
