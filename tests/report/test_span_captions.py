"""Captions say the span, region and load the run measured, not the method's defaults or the whole drive.

QA: `ssdlab run -t sim:840evo-250 --test linear --test mixed-seq -p span_bytes=8g` read "the drive was covered
from the first to the last LBA" and "over the whole drive, written beforehand", beside the plan's note that
the passes covered 8.59 of 250.06 GB; the Iometer figure said "over the whole written drive" of a span, the
AS SSD section "a 1 GiB test region" whatever size_bytes was, and the sweeps' sections "4 KiB random I/O at
QD3" whatever block size the run used."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import Bundle, RunRecord
from ssdlab.engines.sim import SimEngine
from ssdlab.report import section_linear, section_sweeps, section_synthetic
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

DRIVE = "sim:840evo-250?capacity_gib=16"
SHORT = {"runtime_s": 0.5}


def run(root: Path, span: str | None) -> tuple[Bundle, RunRecord]:
    extra = {} if span is None else {"span_bytes": span}
    entries = [
        SuiteEntry(name="linear", test="linear", params={"log_period_s": 0.5, **extra}),
        SuiteEntry(name="mixed-seq", test="mixed-seq", params={**SHORT, "read_pcts": "100,0", **extra}),
        SuiteEntry(name="iometer-mixed", test="iometer-mixed", params={**SHORT, **extra}),
        SuiteEntry(name="as-ssd", test="as-ssd", params={"size_bytes": "256m", "runtime_s": 0.5, "threads": 4,
                                                         "access_runtime_s": 0.5, "fill": False,
                                                         "cooldown_s": "none"}),
        SuiteEntry(name="mixed-random", test="mixed-random", params={**SHORT, "read_pcts": "0,100",
                                                                     "block_size_bytes": "8k", "iodepth": 4,
                                                                     "span_bytes": "1g"}),
    ]
    run_entries(root, parse_target(DRIVE), SimEngine(), entries)
    bundle = Bundle(root)
    return bundle, bundle.load_run()


@pytest.fixture(scope="module")
def cut(tmp_path_factory: pytest.TempPathFactory) -> tuple[Bundle, RunRecord]:
    return run(tmp_path_factory.mktemp("span") / "b", "2g")


def test_a_span_short_of_the_drive_is_not_said_to_be_the_whole_drive(cut: tuple[Bundle, RunRecord]) -> None:
    bundle, record = cut
    [linear] = section_linear.figures(bundle, record.test("linear"))
    assert "first to the last LBA" not in linear.caption
    assert "drive's first 2.15 GB (of 17.22 GB) were covered from its first LBA" in linear.caption
    [mixed] = section_sweeps.figures(bundle, record.test("mixed-seq"))
    assert "whole drive" not in mixed.caption and "over the drive's first 2 GiB, written beforehand" in mixed.caption
    section = section_sweeps.sweep_section(bundle, record.test("mixed-seq"))
    assert "whole" not in section.caption and "over the written span" in section.caption
    [iometer] = section_synthetic.figures(bundle, record.test("iometer-mixed"))
    assert "whole" not in iometer.caption and "over a 2 GiB span of the written drive:" in iometer.caption


def test_the_sections_say_the_region_and_load_the_run_used(cut: tuple[Bundle, RunRecord]) -> None:
    bundle, record = cut
    as_ssd = section_synthetic.as_ssd_section(bundle, record.test("as-ssd"))
    assert as_ssd.caption.startswith("AS SSD Benchmark's procedure on a 256 MiB test region")
    random = section_sweeps.sweep_section(bundle, record.test("mixed-random")).caption
    assert random.startswith("8 KiB random I/O at QD4 on a test region written after a purge, the share of reads "
                             "at 0, 100 % in turn.")


def test_the_whole_drive_is_still_said_so(tmp_path: Path) -> None:
    bundle, record = run(tmp_path / "b", None)
    [linear] = section_linear.figures(bundle, record.test("linear"))
    assert "drive was covered from the first to the last LBA" in linear.caption
    [mixed] = section_sweeps.figures(bundle, record.test("mixed-seq"))
    assert "over the whole drive, written beforehand" in mixed.caption
    assert "over the whole written drive" in section_sweeps.sweep_section(bundle, record.test("mixed-seq")).caption
    [iometer] = section_synthetic.figures(bundle, record.test("iometer-mixed"))
    assert "over the whole written drive:" in iometer.caption
    assert section_synthetic.as_ssd_section(bundle, record.test("as-ssd")).caption.startswith(
        "AS SSD Benchmark's procedure on a 256 MiB test region")
    assert section_sweeps.sweep_section(bundle, record.test("mixed-random")).caption.startswith("8 KiB random I/O")
