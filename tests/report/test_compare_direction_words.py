"""compare says which way each difference goes (QA: "+63 %" of a latency, which is worse, and
"+63 %" of IOPS, which is better, read alike): a word that needs no colour, so a piped terminal
and a page printed in black and white still carry it; metrics with no better way stay unmarked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import TestRecord
from ssdlab.compare import metric_rows
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.methods.metrics import IOPS, MetricSpec, metric_set
from ssdlab.report.compare_page import DIRECTION_NOTE, row_cells
from ssdlab.report.page import is_numeric_cell
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

SPECS = metric_set([MetricSpec("mean_latency_us", "Mean latency", "µs", better="lower"),
                    MetricSpec("iops", "IOPS", IOPS, better="higher"),
                    MetricSpec("iodepth", "Queue depth", kind="setting"),
                    MetricSpec("jobs", "Jobs", "")])


def cells(name: str, *values: float) -> tuple[str, ...]:
    records = [TestRecord(name="t", test="quick", metrics={name: v}) for v in values]
    (row,) = metric_rows(records, SPECS)
    return row_cells(row, (True,) * len(values))


def test_a_latency_increase_is_worse() -> None:
    assert cells("mean_latency_us", 100.0, 163.0)[-1] == "+63.0 % worse"
    assert cells("mean_latency_us", 100.0, 50.0)[-1] == "-50.0 % better"


def test_an_iops_increase_is_better() -> None:
    assert cells("iops", 1000.0, 1630.0)[-1] == "+63.0 % better"
    assert cells("iops", 1000.0, 500.0)[-1] == "-50.0 % worse"


def test_no_difference_is_the_same() -> None:
    assert cells("iops", 1000.0, 1000.0)[-1] == "±0.0 % same"


def test_unranked_metrics_are_unmarked() -> None:
    assert cells("iodepth", 8, 32)[-1] == ""  # a setting: no difference at all
    unranked = cells("jobs", 4.0, 8.0)[-1]
    assert not any(word in unranked for word in ("better", "worse", "same"))


def test_a_marked_difference_stays_a_right_aligned_figure() -> None:
    assert is_numeric_cell("+63.0 % worse") and is_numeric_cell("-1.0 pp better\N{DAGGER}")


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("directions")
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2})
    out = []
    for name, profile in (("base", FakeProfile()), ("faster", FakeProfile(seq_read_mb_s=3000))):
        run_entries(root / name, parse_target("fake:?capacity=2g"), FakeEngine(profile=profile), [entry], suite="quick")
        out.append(root / name)
    return out[0], out[1]


def test_piped_output_carries_the_words_and_the_caption_says_what_they_mean(
        pair: tuple[Path, Path], cli: Callable[..., Any], tmp_path: Path) -> None:
    result = cli("compare", *map(str, pair), "-o", str(tmp_path / "cmp.html"))  # captured: a pipe, no colour
    assert result.code == 0, result.stderr
    assert "\x1b[" not in result.stdout
    assert "+50.0 % better" in result.stdout
    assert " ".join(DIRECTION_NOTE.split()) in " ".join(result.stdout.replace("│", " ").split())
    html = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert '<td class="num">+50.0 % better</td>' in html and "better / worse: the drive" in html
