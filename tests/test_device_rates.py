"""Rates an earlier run measured on a device, for the planner's estimates (ssdlab.device_rates)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from run_helpers import stopping
from ssdlab.bundle import Bundle
from ssdlab.device_rates import device_key, rates_for, rates_in_run
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.errors import Interrupted
from ssdlab.library import Library, default_library_path
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo

# A consistency test whose fill covers the whole fake drive and whose torture runs 4 KiB QD32 for
# minutes: one fill rate and one deep random write rate.
CONSISTENCY = SuiteEntry(name="consistency", test="consistency",
                         params={"max_rounds": 6, "until_steady": False, "runtime_s": 480})


def info(kind: str, **fields: Any) -> TargetInfo:
    return TargetInfo(spec=f"{kind}:x", kind=kind, capacity_bytes=1 << 30, **fields)


@pytest.mark.parametrize(("target", "key"), [
    (info("file", extra={"backing_device": "vda", "fs_source": "/dev/vda"}), "host1:fs:vda:/dev/vda"),
    (info("block", model="Drive X", serial="S1", path="/dev/sdb"), "drive:Drive X:S1"),  # any host
    (info("block", path="/dev/vdb"), "host1:block:/dev/vdb:"),
    (info("block", path="/dev/sdc", extra={"wwid": "naa.5002538e"}), "drive:naa.5002538e"),
    (info("block", path="/dev/loop0", extra={"backing_file": "/srv/a.img"}), "host1:block:/dev/loop0:/srv/a.img"),
    (info("file", extra={"fs_source": "tmpfs"}), None),  # no device under the file system
    (info("sim"), None),
    (info("fake", serial="FAKE0001"), None),
])
def test_the_device_is_named_across_target_specs(target: TargetInfo, key: str | None) -> None:
    assert device_key(target, "host1") == key


def run_bundle(path: Path, entries: list[SuiteEntry], engine: Any = None, spec: str = "fake:?capacity=2g",
               ) -> tuple[Any, Bundle]:
    record = run_entries(path, parse_target(spec), engine or FakeEngine(), entries)
    return record, Bundle(path)


def test_a_fill_and_a_deep_random_write_give_the_rates(tmp_path: Path) -> None:
    profile = FakeProfile(seq_write_mb_s=700.0)
    record, bundle = run_bundle(tmp_path / "b", [CONSISTENCY], FakeEngine(profile=profile))
    rates = rates_in_run(record, bundle)
    assert rates is not None
    assert rates.write_bytes_s == pytest.approx(700e6, rel=1e-3)
    torture = bundle.measurements(record.tests[0])["torture"]
    assert rates.write_iops_4k == pytest.approx(torture.write.ios / torture.runtime_s)
    assert rates.bundle == str(bundle.path) and rates.run_created_utc == record.created_utc


def test_writes_that_do_not_fill_the_device_give_no_rate(tmp_path: Path) -> None:
    """The quick test writes 1 GiB: on a 64 GiB drive that may all land in an SLC cache."""
    record, bundle = run_bundle(tmp_path / "b", [SuiteEntry(name="quick", test="quick", params={"runs": 1})],
                                spec="fake:?capacity=64g")
    assert rates_in_run(record, bundle) is None


def test_an_interrupted_fill_gives_no_rate(tmp_path: Path) -> None:
    with pytest.raises(Interrupted):
        run_bundle(tmp_path / "b", [CONSISTENCY], stopping(FakeEngine, "fill-p1"))
    bundle = Bundle(tmp_path / "b")
    record = bundle.load_run()
    assert [m.name for m in record.tests[0].measurements] == ["fill-p1"]  # kept, but not a rate
    assert rates_in_run(record, bundle) is None


def test_no_library_means_no_rate_and_none_is_created(tmp_path: Path) -> None:
    target = info("block", path="/dev/vdb")
    assert rates_for(target) is None
    assert not default_library_path().exists()


def test_a_broken_library_leaves_the_estimates_to_the_transport(tmp_path: Path) -> None:
    broken = tmp_path / "library.sqlite"
    broken.write_bytes(b"not a database")
    assert rates_for(info("block", path="/dev/vdb"), Library(broken)) is None


@pytest.mark.root
@pytest.mark.fio
def test_plan_uses_the_rate_a_run_measured_on_the_same_file_system(mounted_loop: tuple[str, Path],
                                                                    cli: Callable) -> None:
    """A linear test of a 40 MiB file writes most of the 64 MiB device; the plan for another
    file on that file system then times its fills at the measured rate, and says so."""
    _, file_system = mounted_loop
    other = f"file:{file_system}/other.img?size=8m"
    before = cli("plan", "--test", "linear", "-t", other)
    assert before.code == 0 and "speed unknown" in before.stdout
    ran = cli("run", "--test", "linear", "-t", f"file:{file_system}/first.img?size=40m",
              "-o", str(file_system.parent / "bundle"), "--no-report")
    assert ran.code == 0, ran.stderr
    after = cli("plan", "--test", "linear", "-t", other)
    second_line = after.stdout.splitlines()[1]
    assert after.code == 0 and "measured on this device by the run of" in second_line
    assert str(file_system.parent / "bundle") in second_line
    stated = cli("plan", "--test", "linear", "-t", other, "--rate", "125MiB/s")
    assert stated.code == 0 and stated.stdout.splitlines()[1].startswith(
        "  durations of byte-limited work: 131 MB/s as given with --rate; ")  # given beats measured


def test_a_rate_given_with_rate_times_byte_limited_work(cli: Callable, tmp_path: Path) -> None:
    """A linear pass is bytes over rate: twice the rate, half the time; timed work stays as it is;
    IOPS left out come from the transport; a bad figure is one line, before anything runs."""
    target = f"file:{tmp_path}/x.img?size=10g"

    def total_s(*rate: str) -> float:
        done = cli("plan", "--test", "linear", "-t", target, *rate)
        assert done.code == 0, done.stderr
        found = re.search(r"^Total estimated duration: (?:(\d+)h)?(\d+)m(\d+)s$", done.stdout, re.MULTILINE)
        assert found is not None, done.stdout
        hours, minutes, seconds = found.groups()
        return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)

    slow, fast = total_s("--rate", "100MB/s"), total_s("--rate", "200MB/s")
    assert slow == pytest.approx(2 * 10 * 2**30 / 100e6, abs=3) and fast == pytest.approx(slow / 2, abs=3)
    said = cli("plan", "--test", "linear", "-t", target, "--rate", "1.5GB/s,90k").stdout.splitlines()[1]
    assert said == ("  durations of byte-limited work: 1,500 MB/s and 90,000 4 KiB IOPS as given with --rate; at queue "
                    "depth n, at most n I/Os per 100 µs for reads and per 100 µs for writes, a mix by its share of "
                    "reads (4 KiB QD1 random latency: both a typical SATA SSD's read latency, assumed for a transport "
                    "without its own (the slower of SATA's and NVMe's; no write cache assumed))")
    for bad in ("fast", "100", "0MB/s", "1GB/s,lots", "0.0000001MB/s", "500KB/s", "200GB/s", "1GB/s,0.5",
                "1GB/s,200m"):
        refused = cli("run", "--test", "linear", "-t", target, "--rate", bad, "-o", str(tmp_path / "b"))
        assert refused.code != 0 and refused.stderr.count("\n") == 1 and "give e.g. 520MB/s" in refused.stderr
        assert not (tmp_path / "b").exists() and not (tmp_path / "x.img").exists()
