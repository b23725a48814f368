"""QA (stop 46): compare refused a file run whose quick region was cut to 256 MiB (the file's
size) beside a run asked for 256 MiB ("size: 1073741824 vs 268435456"): runs that measured one
size measured alike, whatever size was asked; runs that measured two sizes still differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ssdlab.compare import compare_bundles
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import SsdlabError
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

QUICK = {"runs": 1, "runtime_s": 1, "interval_s": 0, "warmup": False, "profile": "standard"}
QD = {"runtime_s": 1, "queue_depths": "1,2"}


def bundle(tmp_path: Path, name: str, spec: str, test: str, params: dict[str, Any]) -> Path:
    path = tmp_path / name
    done = run_entries(path, parse_target(spec), FakeEngine(), [SuiteEntry(name=test, test=test, params=params)])
    assert done.status == "complete"
    return path


def test_a_quick_region_cut_to_256_mib_compares_with_one_asked_for_256_mib(tmp_path: Path) -> None:
    cut = bundle(tmp_path, "cut", "fake:?capacity=256m", "quick", QUICK)  # size_bytes 1 GiB asked
    asked = bundle(tmp_path, "asked", "fake:?capacity=2g", "quick", {**QUICK, "size_bytes": "256m"})
    (test,) = compare_bundles([cut, asked]).shown
    assert test.name == "quick" and not test.flagged


def test_quick_regions_measured_at_two_sizes_still_differ(tmp_path: Path) -> None:
    cut = bundle(tmp_path, "cut", "fake:?capacity=256m", "quick", QUICK)
    larger = bundle(tmp_path, "larger", "fake:?capacity=2g", "quick", {**QUICK, "size_bytes": "512m"})
    with pytest.raises(SsdlabError, match="size: 268435456 vs 536870912"):
        compare_bundles([cut, larger])


def test_a_qd_sweep_region_cut_to_1_gib_compares_with_one_asked_for_1_gib(tmp_path: Path) -> None:
    cut = bundle(tmp_path, "cut", "fake:?capacity=2g", "qd-sweep", QD)  # 16 GiB asked, cut to half the target
    asked = bundle(tmp_path, "asked", "fake:?capacity=64g", "qd-sweep", {**QD, "span_bytes": "1g"})
    (test,) = compare_bundles([cut, asked]).shown
    assert test.name == "qd-sweep" and not test.flagged
