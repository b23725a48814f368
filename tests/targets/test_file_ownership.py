"""A file: target never overwrites a file ssdlab did not create, and never writes one in use."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from loop_helpers import attached_loop
from ssdlab.errors import SafetyError
from ssdlab.targets.file import FileTarget

QUICK = ["--test", "quick", "-p", "runs=1", "-p", "runtime_s=1", "--no-report", "--engine", "fake"]


def someones_file(tmp_path: Path, size: int = 4 << 20) -> Path:
    path = tmp_path / "thesis.img"
    path.write_bytes(b"precious" * (size // 8))
    return path


def test_a_file_ssdlab_did_not_create_needs_destroy_and_its_path(tmp_path: Path, cli: Callable) -> None:
    path = someones_file(tmp_path)
    before = path.read_bytes()
    spec = f"file:{path}?size=4m"
    for extra, needle in (([], "--destroy --yes="), (["--destroy"], "confirm with --yes="),
                          (["--destroy", "--yes=other.img"], "does not match")):
        result = cli("run", spec, *QUICK, "--out", str(tmp_path / f"b{len(extra)}"), *extra)
        assert result.code == 3 and needle in result.stderr and "Traceback" not in result.stderr
        assert not (tmp_path / f"b{len(extra)}").exists()  # refused before anything was written
    assert path.read_bytes() == before
    done = cli("run", spec, *QUICK, "--out", str(tmp_path / "ok"), "--destroy", f"--yes={path}")
    assert done.code == 0, done.stderr
    # QA: one confirmation made the file ssdlab's for good (marked), and later runs wrote it unasked.
    assert not FileTarget.from_spec(spec).owned()
    again = cli("run", spec, *QUICK, "--out", str(tmp_path / "again"))
    assert again.code == 3 and "--destroy --yes=" in again.stderr
    assert "run needs --destroy" in cli("plan", "--test", "quick", "-t", spec).stdout


def test_a_file_ssdlab_creates_is_its_own(tmp_path: Path, cli: Callable) -> None:
    spec = f"file:{tmp_path / 'new.img'}?size=4m"
    assert cli("run", spec, *QUICK, "--out", str(tmp_path / "one")).code == 0
    assert FileTarget.from_spec(spec).owned()
    assert cli("run", spec, *QUICK, "--out", str(tmp_path / "two")).code == 0  # no confirmation needed


def test_a_confirmed_write_keeps_someones_file_at_its_size(tmp_path: Path, cli: Callable) -> None:
    """QA: a confirmed run on a 64 MiB file without size= grew it to the default 1 GiB."""
    path = someones_file(tmp_path, 4 << 20)
    spec = f"file:{path}"  # no size=: the default (1 GiB) is larger than the file
    planned = cli("plan", "--test", "quick", "-t", spec)
    assert "smaller than the default size, 1GiB (no size= was given)" in planned.stdout, planned.stdout
    result = cli("run", spec, *QUICK, "--out", str(tmp_path / "b"), "--destroy", f"--yes={path}")
    assert result.code == 2 and "smaller than the default size, 1GiB (no size= was given)" in result.stderr
    assert "size=1073741824" not in result.stderr and "at most 4MiB" in result.stderr
    assert not (tmp_path / "b").exists()
    assert path.stat().st_size == 4 << 20 and not FileTarget.from_spec(spec).owned()
    read = cli("run", spec, "--test", "linear-read", "--engine", "fake", "--no-report", "--out", str(tmp_path / "r"))
    assert read.code == 2 and "smaller than the default size" in read.stderr
    fits = cli("run", f"{spec}?size=2m", *QUICK, "--out", str(tmp_path / "c"), "--destroy", f"--yes={path}")
    assert fits.code == 0, fits.stderr
    assert path.stat().st_size == 4 << 20 and not FileTarget.from_spec(spec).owned()


def test_an_explicit_larger_size_grows_someones_file_only_when_confirmed(tmp_path: Path, cli: Callable) -> None:
    path = someones_file(tmp_path, 4 << 20)
    spec = f"file:{path}?size=8m"
    planned = cli("plan", "--test", "quick", "-t", spec)
    assert "destroys its contents and grows it from 4MiB to size=8MiB" in planned.stdout, planned.stdout
    unconfirmed = cli("run", spec, *QUICK, "--out", str(tmp_path / "a"), "--destroy")
    assert unconfirmed.code == 3 and path.stat().st_size == 4 << 20
    refused = cli("run", spec, *QUICK, "--out", str(tmp_path / "b"))
    assert refused.code == 3 and "grows it from 4MiB to size=8MiB" in refused.stderr, refused.stderr
    assert path.stat().st_size == 4 << 20
    done = cli("run", spec, *QUICK, "--out", str(tmp_path / "c"), "--destroy", f"--yes={path}")
    assert done.code == 0, done.stderr
    assert path.stat().st_size == 8 << 20 and not FileTarget.from_spec(spec).owned()


def test_reads_on_someones_file_change_nothing(tmp_path: Path, cli: Callable) -> None:
    path = someones_file(tmp_path)
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    result = cli("run", f"file:{path}?size=4m", "--test", "linear-read", "--engine", "fake", "--no-report",
                 "--out", str(tmp_path / "b"))
    assert result.code == 0, result.stderr
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime and not FileTarget.from_spec(
        f"file:{path}?size=4m").owned()


def test_a_file_smaller_than_size_is_not_grown_without_consent(tmp_path: Path, cli: Callable) -> None:
    path = someones_file(tmp_path, 1 << 20)
    result = cli("run", f"file:{path}?size=4m", "--test", "linear-read", "--engine", "fake", "--no-report",
                 "--out", str(tmp_path / "b"))
    assert result.code == 2 and "smaller than size=" in result.stderr
    assert path.stat().st_size == 1 << 20


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Callable[[Path], None]]:
    procs: list[subprocess.Popen[bytes]] = []

    def open_for_writing(path: Path) -> None:
        code = f"import time; f = open({str(path)!r}, 'r+b'); print('open', flush=True); time.sleep(60)"
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline() == b"open\n"
        procs.append(proc)

    yield open_for_writing
    for proc in procs:
        proc.kill()
        proc.wait()


def test_a_file_open_for_writing_elsewhere_is_refused(tmp_path: Path, writer: Callable[[Path], None],
                                                      cli: Callable) -> None:
    path = tmp_path / "scratch.img"
    FileTarget.from_spec(f"file:{path}?size=4m").prepare()  # ours, but busy
    writer(path)
    target = FileTarget.from_spec(f"file:{path}?size=4m")
    assert "open for writing by pid" in (target.write_refusal() or "")
    with pytest.raises(SafetyError, match="in use"):
        target.authorize_writes(True, str(path))
    result = cli("run", f"file:{path}?size=4m", *QUICK, "--out", str(tmp_path / "b"))
    assert result.code == 3 and "open for writing by pid" in result.stderr
    assert "IN USE" in cli("info", f"file:{path}?size=4m").stdout


@pytest.mark.root
def test_a_loop_backing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "image.bin"
    FileTarget.from_spec(f"file:{path}?size=8m").prepare()
    with attached_loop(path, size_bytes=None) as device:
        refusal = FileTarget.from_spec(f"file:{path}?size=8m").write_refusal() or ""
        assert f"backs {Path(device).name}" in refusal


@pytest.mark.root
def test_a_swap_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "swapfile"
    FileTarget.from_spec(f"file:{path}?size=16m").prepare()
    path.chmod(0o600)
    subprocess.run(["mkswap", str(path)], check=True, capture_output=True)
    if subprocess.run(["swapon", str(path)], capture_output=True).returncode != 0:
        pytest.skip("swapon is not allowed here")
    try:
        assert "in use as swap" in (FileTarget.from_spec(f"file:{path}?size=16m").write_refusal() or "")
    finally:
        subprocess.run(["swapoff", str(path)], check=False)


def test_a_copy_of_ssdlabs_scratch_file_is_not_ssdlabs(tmp_path: Path, cli: Callable) -> None:
    """QA (stop 45): the mark was the same "1" on every scratch file, and `cp -a`, `rsync -X` and
    `tar --xattrs` carry it: a copy filled with someone's data was written unasked. The mark is
    now the file's own device and inode, which a copy does not share and a rename keeps."""
    import shutil

    made = tmp_path / "scratch.img"
    assert cli("run", f"file:{made}?size=4m", *QUICK, "--out", str(tmp_path / "one")).code == 0
    copy = tmp_path / "mydata.img"
    shutil.copy2(made, copy)  # copies the xattrs, as cp -a does
    copy.write_bytes(b"precious" * (4 << 17))
    before = copy.read_bytes()
    assert not FileTarget.from_spec(f"file:{copy}?size=4m").owned()
    refused = cli("run", f"file:{copy}?size=4m", *QUICK, "--out", str(tmp_path / "two"))
    assert refused.code == 3 and "--destroy --yes=" in refused.stderr and copy.read_bytes() == before
    moved = tmp_path / "renamed.img"
    made.rename(moved)
    assert FileTarget.from_spec(f"file:{moved}?size=4m").owned()


def test_an_older_ssdlabs_mark_is_confirmed_as_a_copy_would_be(tmp_path: Path) -> None:
    import os

    from ssdlab.targets.file import LEGACY_MARK, OWNED_XATTR

    path = someones_file(tmp_path)
    os.setxattr(path, OWNED_XATTR, LEGACY_MARK)
    target = FileTarget.from_spec(f"file:{path}?size=4m")
    assert target.foreign()
    with pytest.raises(SafetyError) as refused:
        target.authorize_writes(destroy=False, confirmed_serial=None)
    assert "carries an older ssdlab's scratch mark" in str(refused.value) and "\n" not in str(refused.value)


def test_a_confirmation_with_stdin_closed_is_refused_in_one_line(tmp_path: Path) -> None:
    """QA (stop 45): `run … --destroy <&-` (cron, nohup) crashed with "internal error:
    AttributeError: 'NoneType' object has no attribute 'isatty'" where </dev/null was refused."""
    import os

    from pty_helpers import SSDLAB

    path = someones_file(tmp_path)
    before = path.read_bytes()
    done = subprocess.run([str(SSDLAB), "run", f"file:{path}?size=4m", *QUICK, "--out", str(tmp_path / "b"),
                           "--destroy", "--no-library"], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: os.close(0))  # stdin closed, as `<&-` leaves it
    assert done.returncode == 3, done.stderr
    assert done.stderr.strip() == f"error: file:{path}?size=4m: confirm with --yes={path} (no terminal to ask on)"
    assert path.read_bytes() == before
