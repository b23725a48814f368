"""file:PATH targets: creation, sizing, and refusing anything that is not their own file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ssdlab.errors import TargetError, UsageError
from ssdlab.targets import parse_target
from ssdlab.targets.file import FileTarget
from ssdlab.targets.sysinfo import SysRoot, block_facts
from ssdlab.units import GIB, MIB


def test_spec_parsing_default_and_size(tmp_path: Path) -> None:
    default = parse_target(f"file:{tmp_path}/a.dat")
    assert isinstance(default, FileTarget)
    assert default.kind == "file" and default.size_bytes == GIB
    sized = FileTarget.from_spec(f"file:{tmp_path}/b.dat?size=4m")
    assert sized.size_bytes == 4 * MIB
    assert sized.fio_filename == str(tmp_path / "b.dat")


@pytest.mark.parametrize("spec", ["file:", "file:?size=1g", "file:/tmp/x?bogus=1", "file:/tmp/x?size=lots"])
def test_bad_specs_are_one_line_usage_errors(spec: str) -> None:
    with pytest.raises(UsageError) as err:
        FileTarget.from_spec(spec)
    assert "\n" not in str(err.value)


def test_prepare_creates_allocated_file(tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/scratch.dat?size=8m")
    target.prepare()
    st = os.stat(target.path)
    assert st.st_size == 8 * MIB
    assert st.st_blocks * 512 >= 8 * MIB  # fallocated: real blocks, not a sparse file


def test_prepare_grows_but_never_shrinks(tmp_path: Path) -> None:
    path = tmp_path / "scratch.dat"
    FileTarget.from_spec(f"file:{path}?size=1m").prepare()  # ssdlab's own scratch file
    with path.open("r+b") as handle:
        handle.write(b"x" * 4096)
    FileTarget.from_spec(f"file:{path}?size=2m").prepare()
    assert path.stat().st_size == 2 * MIB
    assert path.read_bytes()[:4096] == b"x" * 4096  # existing data kept
    FileTarget.from_spec(f"file:{path}?size=1m").prepare()
    assert path.stat().st_size == 2 * MIB


def test_refuses_directory(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="is a directory"):
        FileTarget.from_spec(f"file:{tmp_path}").prepare()


def test_refuses_missing_directory(tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/nope/x.dat")
    with pytest.raises(TargetError, match="does not exist"):
        target.prepare()
    assert not (tmp_path / "nope").exists()


def test_refuses_device_node() -> None:
    with pytest.raises(TargetError, match="not a regular file"):
        FileTarget.from_spec("file:/dev/null").prepare()


def test_refuses_symlink_even_to_a_device(tmp_path: Path) -> None:
    link = tmp_path / "disk"
    link.symlink_to("/dev/null")
    with pytest.raises(TargetError, match="symlink") as err:
        FileTarget.from_spec(f"file:{link}").prepare()
    assert "\n" not in str(err.value)
    regular = tmp_path / "real.dat"
    regular.write_bytes(b"")
    other = tmp_path / "other"
    other.symlink_to(regular)
    with pytest.raises(TargetError, match="symlink"):
        FileTarget.from_spec(f"file:{other}?size=1m").prepare()
    assert regular.stat().st_size == 0  # the file behind the link was not touched


def test_info_describes_the_file_system(tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/i.dat?size=2m")
    target.prepare()
    info = target.info()
    assert info.kind == "file" and info.transport == "file"
    assert info.capacity_bytes == 2 * MIB
    assert info.model is not None and info.model.startswith("scratch file on ")
    assert info.safety.writable
    assert info.physical_block_size >= 512
    device = info.extra["backing_device"]
    expected = block_facts(SysRoot(), device).transport if device else None
    assert info.extra["backing_transport"] == expected  # what the plan's rates go by
    fstype = info.extra["fstype"]
    if fstype in ("ext4", "xfs", "btrfs", "tmpfs"):
        assert info.discard is True


def test_info_before_prepare_does_not_create(tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/later.dat")
    assert target.info().capacity_bytes == GIB
    assert not target.path.exists()
