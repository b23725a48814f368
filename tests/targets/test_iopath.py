"""Targets whose direct I/O is answered from memory say so: info, plan, run, bundle, report."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from loop_helpers import attached_loop
from ssdlab.bundle import Bundle
from ssdlab.targets.iopath import device_warning, file_warning
from ssdlab.targets.sysinfo import SysRoot


def fake_sys(tmp_path: Path, disk: str, files: dict[str, str]) -> SysRoot:
    base = tmp_path / "sys" / "class" / "block" / disk
    for rel, text in files.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text + "\n")
    base.mkdir(parents=True, exist_ok=True)
    return SysRoot(sys=tmp_path / "sys")


@pytest.mark.parametrize(("disk", "files", "expected"), [
    ("loop5", {"loop/dio": "0", "loop/backing_file": "/var/tmp/a.img"}, "losetup --direct-io=on /dev/loop5"),
    ("loop5", {"loop/dio": "1"}, None),
    ("loop5", {}, None),  # not attached, or a kernel without the attribute: nothing to go by
    ("zram0", {"size": "1024"}, "RAM disk"),
    ("ram0", {}, "RAM disk"),
    ("nvme0n1", {"queue/rotational": "0"}, None),
])
def test_device_warnings(tmp_path: Path, disk: str, files: dict[str, str], expected: str | None) -> None:
    warning = device_warning(fake_sys(tmp_path, disk, files), disk)
    assert (warning is None) if expected is None else (expected in (warning or ""))


@pytest.mark.parametrize(("fstype", "expected"), [
    ("tmpfs", "lives in memory"), ("ramfs", "lives in memory"), ("nfs4", "may cache"), ("fuse.sshfs", "may cache"),
    ("overlay", "overlayfs"), ("ext4", None), ("xfs", None), (None, None),
])
def test_file_system_warnings(tmp_path: Path, fstype: str | None, expected: str | None) -> None:
    warning = file_warning(SysRoot(sys=tmp_path), fstype, None)
    assert (warning is None) if expected is None else (expected in (warning or ""))


def test_a_file_on_a_page_cache_loop_device_is_warned(tmp_path: Path) -> None:
    root = fake_sys(tmp_path, "loop2", {"loop/dio": "0"})
    assert "file system is on loop2, where direct I/O is off" in (file_warning(root, "ext4", "loop2") or "")


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[Callable[[bool], str]]:
    numbers = iter(range(1 << 16))
    with ExitStack() as stack:
        def attach(direct_io: bool) -> str:
            image = tmp_path / f"img{next(numbers)}.bin"
            return stack.enter_context(attached_loop(image, direct_io=direct_io))

        yield attach


@pytest.mark.root
def test_info_on_a_loop_device_with_direct_io_off_warns(loop_device: Callable[[bool], str], cli: Callable) -> None:
    plain = loop_device(False)  # the losetup default
    result = cli("info", plain)
    assert result.code == 0 and "NOT A DRIVE" in result.stdout
    facts = json.loads(cli("info", plain, "--json").stdout)
    assert "page cache" in facts["io_warning"] and f"losetup --direct-io=on {plain}" in facts["io_warning"]
    plan = cli("plan", plain, "--test", "linear-read")
    assert "warning:" in plan.stdout and "page cache" in plan.stdout
    direct = loop_device(True)
    assert "reaches the drive" in cli("info", direct).stdout


@pytest.mark.root
@pytest.mark.fio
def test_a_run_on_it_records_the_warning_in_the_bundle_and_the_report(
    loop_device: Callable[[bool], str], cli: Callable, tmp_path: Path,
) -> None:
    device = loop_device(False)
    out = tmp_path / "bundle"
    result = cli("run", device, "--test", "linear-read", "-p", "span_bytes=16m", "--out", str(out))
    assert result.code == 0, result.stderr
    assert "warning:" in result.stderr and "page cache" in result.stderr
    record = Bundle(out).load_run()
    assert record.target.io_warning and "losetup --direct-io=on" in record.target.io_warning
    assert "These figures are not a drive&#39;s" in (out / "report.html").read_text()
