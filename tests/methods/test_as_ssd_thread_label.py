"""AS SSD's many-thread run is labelled with the jobs that ran (QA: '4K-64Thrd' with threads=4)."""

from __future__ import annotations

from ssdlab.methods.synthetic import AsSsdParams, AsSsdTest, as_ssd_specs, threads_label
from ssdlab.targets.base import TargetInfo


def target() -> TargetInfo:
    return TargetInfo(spec="fake:", kind="fake", capacity_bytes=2**31, model="fake")


def test_the_metric_labels_name_the_jobs_that_ran() -> None:
    specs = AsSsdTest().metric_specs(AsSsdParams(threads=4), target())
    labels = {spec.name: spec.label for spec in specs}
    assert labels["rnd4k_64t_read_mb_s"].startswith("4K-4Thrd read")
    assert labels["rnd4k_64t_write_mb_s"].startswith("4K-4Thrd write")
    assert not any("64Thrd" in label for label in labels.values())
    assert labels["rnd4k_read_mb_s"].startswith("4K read")  # the single-job run keeps its name


def test_as_ssds_own_count_reads_as_before() -> None:
    assert threads_label() == threads_label(64) == "4K-64Thrd"
    default = {spec.name: spec.label for spec in as_ssd_specs()}
    assert default["rnd4k_64t_read_mb_s"].startswith("4K-64Thrd read")
    assert {s.name for s in as_ssd_specs(4)} == set(default)  # same metrics: bundles still line up
