"""file:PATH targets: creation, sizing, and refusing anything that is not their own file."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

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



def free_bytes(path: Path) -> int:
    disk = os.statvfs(path)
    return disk.f_bavail * disk.f_frsize


@pytest.mark.root
def test_a_file_too_big_for_its_file_system_is_refused_before_a_block_is_taken(
        mounted_loop: tuple[str, Path], cli: Callable) -> None:
    """On a 64 MiB file system: plan and run say so (the target's notes), `run` refuses before
    its bundle exists, and a preparation takes nothing (a small file system, so a failure
    cannot fill the host's)."""
    _, mount_point = mounted_loop
    before = free_bytes(mount_point)
    spec = f"file:{mount_point}/big.dat?size=200m"
    too_big = FileTarget.from_spec(spec)
    (note,) = too_big.info().notes
    assert "too little to grow" in note and "smaller size=" in note
    refused = cli("run", "--test", "linear", "-t", spec, "-o", str(mount_point.parent / "bundle"))
    assert refused.code == 2 and "too little to grow" in refused.stderr.splitlines()[-1]
    assert refused.stderr.count("too little to grow") == 1  # QA: the note said it too, just before the error
    assert not (mount_point.parent / "bundle").exists()
    with pytest.raises(TargetError, match=r"cannot allocate .*too little to grow.*smaller size="):
        too_big.prepare()
    assert not too_big.path.exists() and free_bytes(mount_point) == before
    assert FileTarget.from_spec(f"file:{mount_point}/small.dat?size=2m").info().notes == ()


@pytest.mark.root
def test_an_allocation_that_fails_anyway_gives_its_blocks_back(mounted_loop: tuple[str, Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Free space can go between the check and the allocation (another writer): ext4 then keeps
    the blocks it allocated, so the target undoes them — a new file goes, a grown one shrinks back."""
    _, mount_point = mounted_loop
    grown = FileTarget.from_spec(f"file:{mount_point}/grown.dat?size=1m")
    grown.prepare()
    before = free_bytes(mount_point)
    monkeypatch.setattr(FileTarget, "_space_shortfall", lambda self: None)
    for spec in (f"file:{mount_point}/new.dat?size=200m", f"file:{mount_point}/grown.dat?size=200m"):
        with pytest.raises(TargetError, match="cannot allocate"):
            FileTarget.from_spec(spec).prepare()
    assert not (mount_point / "new.dat").exists()
    assert grown.path.stat().st_size == MIB
    assert free_bytes(mount_point) >= before - 64 * 1024  # a few metadata blocks at most


@pytest.mark.parametrize("path", ["/tmp/x\nfilename=/dev/loop0", "/tmp/${X}", "/tmp/$HOME.img", "/tmp/a\tb",
                                  "/tmp/a\x00b", "/tmp/a\u2028b"])
def test_a_path_fios_job_file_would_misread_is_refused(path: str) -> None:
    """QA: a newline in the path put a second filename= (a block device) in the fio job, and fio
    expanded ${X} in it; both wrote to /dev/loop0 without --destroy."""
    with pytest.raises(UsageError, match=r"^file target: the path holds .*; give a path without it$"):
        FileTarget.from_spec(f"file:{path}?size=32m")


def test_paths_with_spaces_brackets_colons_and_accents_still_work(tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/a b[1]:é.img?size=32m")
    assert target.fio_filename.endswith("a b[1]:é.img")


def test_two_runs_on_one_target_are_refused_not_mixed(tmp_path: Path, cli: Callable[..., Any]) -> None:
    """QA: a second `ssdlab run` on a file (or device) another run was measuring ran to its end,
    each run measuring the other's I/O; refused only if fio happened to hold it open for writing."""
    import fcntl

    from ssdlab.errors import TargetError
    from ssdlab.targets.base import TargetLocks

    scratch = tmp_path / "scratch.img"
    first, second = TargetLocks("file:x"), TargetLocks("file:x")
    first.take((scratch, tmp_path))  # a path not there yet is skipped; a directory node locks too
    with pytest.raises(TargetError, match=r"another ssdlab run is using .*; wait for it to end"):
        second.take((tmp_path,))
    first.close()
    second.take((tmp_path,))  # free again once the first run ends
    second.close()

    spec = f"file:{scratch}?size=32m"
    FileTarget.from_spec(spec).prepare()  # ssdlab's own scratch file (someone's would add a note on its size)
    with scratch.open("rb") as held:  # another run holds the target: as its runner does
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        refused = cli("run", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1", "-p", "size_bytes=16m",
                      "-t", spec, "-o", str(tmp_path / "two"), "--no-library", "--no-report", "--destroy",
                      f"--yes={scratch}")
    assert refused.code == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert f"another ssdlab run is using {scratch}" in refused.stderr
    assert not (tmp_path / "two").exists()  # a refused run leaves no empty bundle folder behind


def test_a_remote_file_is_never_looked_at_or_made_here(tmp_path: Path) -> None:
    """With --host, file:PATH is a path on the hosts: no local directory, ownership mark, free
    space, confirmation or lock applies, and nothing at PATH here is created or changed."""
    from ssdlab.engines.base import RunContext
    from ssdlab.engines.fio import FioEngine
    from ssdlab.engines.fio_steps import run_step
    from ssdlab.errors import EngineError
    from ssdlab.steps import Purge
    from ssdlab.targets.file import RemoteFileTarget
    from ssdlab.workload import Workload

    hosts = ("node1:8765",)
    elsewhere = RemoteFileTarget.from_spec("file:/no-such-dir-here/x.img?size=64t", hosts)
    info = elsewhere.info()  # no "directory does not exist", no free-space note for a 64 TiB file
    assert info.path == "/no-such-dir-here/x.img" and info.capacity_bytes == 64 << 40 and info.safety.writable
    assert "node1:8765" in (info.model or "") and info.extra["remote_hosts"] == ["node1:8765"]
    assert "not on this machine" in info.notes[0]
    theirs = tmp_path / "theirs.img"
    theirs.write_bytes(b"someone's data")
    target = RemoteFileTarget.from_spec(f"file:{theirs}?size=16m", hosts)
    assert target.confirmation_token() is None and target.write_refusal() is None
    assert target.exclusive_paths() == () and not target.keeps_state()
    target.authorize_writes(destroy=False, confirmed_serial=None)  # nothing of it is written here
    target.prepare()
    assert theirs.read_bytes() == b"someone's data" and not (tmp_path / "new.img").exists()
    workload = Workload(name="w", pattern="write", block_size_bytes=4096, runtime_s=1)
    with pytest.raises(TargetError, match="not on this machine"):  # no local engine or step can reach it
        FioEngine().job_text_for(target, workload, None, "libaio", None)
    with pytest.raises(EngineError, match="cannot purge"):
        run_step(target, Purge(), RunContext(tmp_path / "r", tmp_path), lambda depth: "libaio")
    assert theirs.read_bytes() == b"someone's data"
    assert replace(target, run_id="abc").for_host(1).fio_filename == f"{theirs}.ssdlab-abc-h1"
    for spec in ("file:x.img", "file:~/x.img", "file:/srv/", "file:/srv/${X}"):
        with pytest.raises(UsageError):
            RemoteFileTarget.from_spec(spec, hosts)


def test_an_existing_file_that_cannot_be_written_is_not_said_to_be_created(tmp_path: Path) -> None:
    """QA: an immutable (chattr +i) file gave "cannot create … (Operation not permitted)"; it exists."""
    import subprocess

    path = tmp_path / "imm.img"
    FileTarget.from_spec(f"file:{path}?size=1m").prepare()  # ssdlab's own file
    if os.geteuid() == 0:  # root writes through permission bits: only the immutable flag stops it
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("this file system has no immutable flag")
    else:
        path.chmod(0o444)
    try:
        with pytest.raises(TargetError) as err:
            FileTarget.from_spec(f"file:{path}?size=2m").prepare()
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=False)
    assert f"cannot open {path} for writing (" in str(err.value) and "create" not in str(err.value)
