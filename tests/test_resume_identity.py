"""--resume continues only on the drive its bundle recorded (targets/identity.py).

QA: `ssdlab run --resume B` checked only --yes against the device now at the bundle's path: a loop
device re-attached to a half-size file at the same /dev/loopN resumed and finished "complete",
its "full-capacity" pass over half the drive it names; an edited run.json resumed the same way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from loop_helpers import MIB, attached_loop
from run_helpers import stopping
from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.engines.fio import FioEngine
from ssdlab.errors import Interrupted, SafetyError
from ssdlab.runner import Runner, new_record
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.fake import FakeTarget
from ssdlab.targets.identity import identity_changes
from ssdlab.units import GIB

SINGLE = SuiteEntry(name="c", test="consistency", params={"runtime_s": 10})
SPEC = "fake:?capacity=4g"
REPO = Path(__file__).resolve().parents[1]


def stopped_bundle(tmp_path: Path) -> tuple[Bundle, FakeEngine]:
    """A fake run stopped in its torture, as `ssdlab run` leaves one after Ctrl-C."""
    target, engine = parse_target(SPEC), stopping(FakeEngine, "torture")
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine).run(new_record(target, engine, None, [SINGLE], {}, {}))
    engine.ran.clear()
    return bundle, engine


def test_a_resume_on_a_drive_of_another_capacity_is_refused_before_anything_is_measured(tmp_path: Path) -> None:
    bundle, engine = stopped_bundle(tmp_path)
    before = bundle.run_file.read_bytes()
    other = FakeTarget(spec=SPEC, capacity_bytes=2 * GIB)  # the same target string, another drive there now
    for attempt in (Runner(bundle, other, engine).preflight, Runner(bundle, other, engine).run):
        with pytest.raises(SafetyError) as refused:
            attempt(bundle.load_run())
        text = str(refused.value)
        assert "\n" not in text
        assert "capacity 2,147,483,648 bytes now, 4,294,967,296 bytes in the bundle" in text, text
        assert "start a new run" in text and "another --out" in text
    assert engine.ran == [] and bundle.run_file.read_bytes() == before


def test_a_resume_on_the_same_drive_goes_on(tmp_path: Path) -> None:
    bundle, engine = stopped_bundle(tmp_path)
    done = Runner(bundle, parse_target(SPEC), engine).run(bundle.load_run())
    assert done.status == "complete" and engine.ran


def test_a_copied_bundle_whose_target_was_edited_is_refused_by_the_cli(
        cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: a copy of a bundle with its target string edited in run.json resumed on the other drive."""
    bundle, _ = stopped_bundle(tmp_path)
    data = json.loads(bundle.run_file.read_text())
    data["target"]["spec"] = "fake:?capacity=2g"
    bundle.run_file.write_text(json.dumps(data))
    before = bundle.run_file.read_bytes()
    result = cli("run", "--resume", str(bundle.path), "--no-library", "--no-report")
    assert result.code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in result.stderr, result.stderr
    assert "capacity 2,147,483,648 bytes now, 4,294,967,296 bytes in the bundle" in lines[0]
    assert bundle.run_file.read_bytes() == before


def info(**fields: Any) -> TargetInfo:
    base: dict[str, Any] = {"spec": "/dev/loop3", "kind": "block", "path": "/dev/loop3", "model": "loop device",
                            "serial": None, "capacity_bytes": GIB, "extra": {"backing_file": "/img/a.img"}}
    return TargetInfo(**{**base, **fields})


def test_what_says_which_drive_it_is_is_compared() -> None:
    was = info(serial="S1", firmware="1.0", extra={"backing_file": "/img/a.img", "wwid": "eui.1"})
    assert identity_changes(was, was) == []
    assert identity_changes(was, info(serial="S2", firmware="1.0", extra=was.extra)) == [
        "serial 'S2' now, 'S1' in the bundle"]
    assert identity_changes(was, info(serial="S1", extra={"backing_file": "/img/b.img", "wwid": "eui.1"})) == [
        "backing file '/img/b.img' now, '/img/a.img' in the bundle"]
    assert identity_changes(was, info(serial="S1", logical_block_size=4096, extra=was.extra)) == [
        "logical block size 4096 now, 512 in the bundle"]
    assert identity_changes(info(), info(kind="file")) == ["a file target now, a block target in the bundle"]


def test_what_a_drive_may_change_and_stay_itself_is_not_compared() -> None:
    """A firmware update, a cache switched, another slot or a /dev name given at boot: the same drive."""
    was = info(serial="S1", firmware="1.0", write_cache="write back", pcie_link_speed="8.0 GT/s")
    now = info(serial="S1", firmware="2.0", write_cache="write through", pcie_link_speed="2.5 GT/s",
               spec="/dev/loop5", path="/dev/loop5", extra={**was.extra, "kernel_name": "loop5"})
    assert identity_changes(was, now) == []
    # A fact the bundle did not record (an older ssdlab read less) does not refuse its resume.
    assert identity_changes(info(extra={}), info(serial="S9")) == []


def test_a_file_target_is_compared_by_its_path_and_the_drive_under_it() -> None:
    was = info(kind="file", spec="file:/a", path="/mnt/x/a", model="scratch file on ext4 (/dev/sda1)",
               extra={"fstype": "ext4", "backing_model": "Samsung SSD 870", "backing_disk_bytes": 500 * GIB})
    renamed = was.model_copy(update={"model": "scratch file on ext4 (/dev/sdb1)"})  # sda became sdb at boot
    assert identity_changes(was, renamed) == []
    moved = was.model_copy(update={"path": "/mnt/y/a", "extra": {**was.extra, "backing_model": "WD Blue"}})
    assert identity_changes(was, moved) == ["path '/mnt/y/a' now, '/mnt/x/a' in the bundle",
                                            "drive under the file 'WD Blue' now, 'Samsung SSD 870' in the bundle"]


def test_each_raid0_member_is_compared() -> None:
    members = [{"spec": "/dev/sdb", "model": "A", "serial": "S1", "capacity_bytes": GIB},
               {"spec": "/dev/sdc", "model": "A", "serial": "S2", "capacity_bytes": GIB}]
    was = info(serial="S1,S2", extra={"raid0_members": members, "chunk_kib": 512})
    swapped = [members[0], {**members[1], "serial": "S3"}]
    now = info(serial="S1,S3", extra={"raid0_members": swapped, "chunk_kib": 512})
    assert identity_changes(was, now) == ["serial 'S1,S3' now, 'S1,S2' in the bundle",
                                          "member 2 serial 'S3' now, 'S2' in the bundle"]


SIM = "sim:sm951-nvme-256?capacity_gib=16"


@pytest.mark.parametrize(("edited", "named"), [
    ("sim:sm951-nvme-256?capacity_gib=8", "capacity"),
    ("sim:sm951-nvme-256?capacity_gib=16&seed=2", "simulator seed 2 now, 1 in the bundle"),
])
def test_a_simulated_run_resumes_only_on_the_drive_its_target_string_made(
        tmp_path: Path, edited: str, named: str) -> None:
    """Checked before the saved drive is restored: the restored drive would be the bundle's own,
    but the test's history (a rebuild, a fresh drive) comes from the target string."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine

    target, engine, bundle = parse_target(SIM), SimEngine(), Bundle(tmp_path / "b")
    record = new_record(target, engine, None, [SuiteEntry(name="c", test="consistency")], {}, {})
    record = record.model_copy(update={"status": "interrupted"})
    assert identity_changes(record.target, parse_target(SIM).info()) == []  # a new process finds the same drive
    moved = parse_target(edited)
    with pytest.raises(SafetyError, match=named):
        Runner(bundle, moved, engine).run(record)
    assert not bundle.path.exists()


def ssdlab(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    return subprocess.run([sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


@pytest.mark.root
def test_a_loop_device_re_attached_to_another_file_is_not_resumed(tmp_path: Path) -> None:
    """The QA case: the bundle's /dev/loopN now backed by a half-size file (a reboot hands loop
    numbers out again). Refused before --yes is checked against the device now there."""
    with attached_loop(tmp_path / "first.img", 64 * MIB, direct_io=True) as device:
        target = parse_target(device)
        record = new_record(target, FioEngine(), None, [SuiteEntry(name="linear", test="linear")], {}, {})
    bundle = Bundle(tmp_path / "b")
    bundle.path.mkdir()
    bundle.write_run(record.model_copy(update={"status": "interrupted"}))
    before = bundle.run_file.read_bytes()
    name = Path(device).name
    second = tmp_path / "second.img"
    second.write_bytes(b"")
    os.truncate(second, 32 * MIB)
    attached = subprocess.run(["losetup", "--direct-io=on", device, str(second)], capture_output=True, text=True,
                              check=False)
    if attached.returncode != 0:
        pytest.skip(f"{device} was taken again before this test could re-attach it: {attached.stderr.strip()}")
    try:
        result = ssdlab("run", "--resume", str(bundle.path), "--no-library", "--no-report", "--destroy",
                        f"--yes={name}")
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
    lines = result.stderr.strip().splitlines()
    assert result.returncode != 0 and len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert "capacity 33,554,432 bytes now, 67,108,864 bytes in the bundle" in lines[0]
    assert f"backing file '{second}' now, '{tmp_path / 'first.img'}' in the bundle" in lines[0]
    assert bundle.run_file.read_bytes() == before
