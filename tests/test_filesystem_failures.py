"""Every file-system failure on a bundle, a report or a comparison ends in one clear line and a
non-zero exit; what was measured stays readable; a report that cannot be written leaves the
run's status alone; one run per bundle."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ssdlab.bundle import Bundle, BundleLock, lock_holder

QUICK = ["--test", "quick", "-t", "fake:?capacity=2g", "-p", "runs=1", "-p", "runtime_s=1"]


def one_line_error(result, *needles: str) -> None:  # type: ignore[no-untyped-def]
    assert result.code != 0
    lines = [line for line in result.stderr.strip().splitlines() if line.startswith(("error:", "internal"))]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:") and "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_out_is_a_file(cli: Callable, tmp_path: Path) -> None:
    target = tmp_path / "taken.txt"
    target.write_text("mine")
    one_line_error(cli("run", *QUICK, "--out", str(target)), "is a file")
    assert target.read_text() == "mine"


def test_out_holds_other_files(cli: Callable, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep")
    one_line_error(cli("run", *QUICK, "--out", str(tmp_path)), "already holds other files", "notes.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_out_below_a_file(cli: Callable, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    one_line_error(cli("run", *QUICK, "--out", str(tmp_path / "f" / "bundle")))


def test_one_run_per_bundle(cli: Callable, tmp_path: Path) -> None:
    out = tmp_path / "b"
    assert cli("run", *QUICK, "--out", str(out), "--no-report").code == 0
    record = Bundle(out).load_run()
    Bundle(out).write_run(record.model_copy(update={"status": "interrupted"}))
    with BundleLock(out):  # another run (here: this process) is using the bundle
        assert lock_holder(out) is not None and "pid" in (lock_holder(out) or "")
        one_line_error(cli("run", "--resume", str(out)), "in use by another ssdlab run", "pid")
    assert lock_holder(out) is None
    assert cli("run", "--resume", str(out), "--no-report").code == 0


def test_report_to_a_path_that_cannot_be_written(cli: Callable, tmp_path: Path) -> None:
    out = tmp_path / "b"
    assert cli("run", *QUICK, "--out", str(out), "--no-report").code == 0
    (tmp_path / "file").write_text("x")
    one_line_error(cli("report", str(out), "-o", str(tmp_path / "file" / "r.html")))
    one_line_error(cli("compare", str(out), str(out), "-o", str(tmp_path / "file" / "c.html")))
    assert Bundle(out).load_run().status == "complete"


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    mounts: list[Path] = []

    def mount(options: str) -> Path:
        point = tmp_path / f"mnt{len(mounts)}"
        point.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], check=True)
        mounts.append(point)
        return point

    yield mount
    for point in mounts:
        subprocess.run(["umount", "-l", str(point)], check=False)


@pytest.mark.root
def test_read_only_file_system(cli: Callable, small_fs: Callable[[str], Path]) -> None:
    point = small_fs("ro,size=1m")
    one_line_error(cli("run", *QUICK, "--out", str(point / "b")), "Read-only file system")


@pytest.mark.root
def test_a_full_disk_keeps_the_measurements_and_the_status(cli: Callable, small_fs: Callable[[str], Path]) -> None:
    """Room for the bundle (some hundred KiB), not for the report (the inlined chart library):
    the run is complete, the report's failure is one line, and `ssdlab report` can retry later."""
    point = small_fs("size=600k")
    out = point / "b"
    result = cli("run", *QUICK, "--out", str(out))
    one_line_error(result, "the report could not be written", "No space left on device", "ssdlab report")
    record = Bundle(out).load_run()
    assert record.status == "complete" and record.test("quick").metrics
    assert Bundle(out).measurements(record.test("quick"))


@pytest.fixture
def full_fs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs: a write that needs more fails with ENOSPC, whose error names no file."""
    where = tmp_path / "tiny"
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def test_a_refused_output_names_the_file_asked_for_not_its_hidden_temporary(cli: Callable) -> None:
    """QA: `trace generate -o /proc/x.parquet` said "Failed to open local file
    '/proc/.x.parquet.26604.partial'": the hidden file the writer writes first, not the one asked for."""
    result = cli("trace", "generate", "light", "--scale", "0.01", "-o", "/proc/x.parquet")
    one_line_error(result, "/proc/x.parquet")
    assert ".partial" not in result.stderr and ".tmp" not in result.stderr


@pytest.mark.root
def test_a_full_disk_names_the_file_and_leaves_nothing(cli: Callable, full_fs: Path) -> None:
    """A trace, a report table or any file written through a temporary beside it, on a full disk:
    one line naming the file (a write's ENOSPC carries no file name), and no hidden file left."""
    one_line_error(cli("trace", "generate", "light", "--scale", "0.01", "-o", str(full_fs / "x.parquet")),
                   "No space left on device", str(full_fs / "x.parquet"))
    assert list(full_fs.iterdir()) == []
    from ssdlab.bundle import atomic_write_text

    with pytest.raises(OSError) as err:
        atomic_write_text(full_fs / "table.csv", "x" * (1 << 20))
    assert err.value.filename == str(full_fs / "table.csv")
    assert list(full_fs.iterdir()) == []
