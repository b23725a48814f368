"""The one check every file writer makes before any work (outputs.check_output_file): report,
compare, library export and trace generate refuse, in one line and with nothing written, an
output they could not write as the file named."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from report_bundles import make_bundle


def writers(bundle: Path, out: Path, other: Path | None = None) -> list[list[str]]:
    """Every command that writes a file the user names (compare gets `other` as its second
    drive: the refusals come before compare looks at its bundles)."""
    return [["report", str(bundle), "-o", str(out / "x.html")],
            ["compare", str(bundle), str(other or bundle), "-o", str(out / "x.html")],
            ["library", "export", str(out / "x.csv")],
            ["trace", "generate", "light", "--scale", "0.001", "-o", str(out / "x.parquet")]]


def one_line(result: Any, *needles: str) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert not result.stdout, result.stdout  # compare printed its whole table before failing
    for needle in needles:
        assert needle in lines[0], lines[0]
    return str(lines[0])


def test_an_output_that_is_a_link_to_nothing_is_refused(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: report and compare wrote through such a link and made its target's folders, library
    export failed after the export with 'No such file or directory: x.csv' (the link is there),
    trace generate replaced the link with a file: one path, three outcomes."""
    bundle = make_bundle(tmp_path / "bundle")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("x.html", "x.csv", "x.parquet"):
        (out / name).symlink_to(tmp_path / "elsewhere" / name)
    for args in writers(bundle, out):
        one_line(cli(*args), "is a link to", "which does not exist")
    assert not (tmp_path / "elsewhere").exists()
    assert all((out / name).is_symlink() for name in ("x.html", "x.csv", "x.parquet"))


def test_a_link_to_an_existing_file_is_written_through_by_every_writer(cli: Callable[..., Any],
                                                                      tmp_path: Path) -> None:
    """QA: report, compare and library export wrote into the file a link names; trace generate
    replaced the link with a file of its own: one path, two outcomes."""
    bundle = make_bundle(tmp_path / "bundle")
    other = make_bundle(tmp_path / "other", spec="fake:?capacity=4g")
    out, kept = tmp_path / "out", tmp_path / "kept"
    out.mkdir()
    kept.mkdir()
    for name in ("x.html", "x.csv", "x.parquet"):
        (kept / name).write_text("old\n")
        (out / name).symlink_to(kept / name)
    for args in writers(bundle, out, other):
        result = cli(*args)
        assert result.code == 0, result.stderr
    for name in ("x.html", "x.csv", "x.parquet"):
        assert (out / name).is_symlink(), name
        assert (kept / name).read_bytes() != b"old\n", name


def test_an_output_below_a_link_to_nothing_says_so(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: it said the link 'is a file, not a directory'."""
    bundle = make_bundle(tmp_path / "bundle")
    (tmp_path / "gone").symlink_to(tmp_path / "nothing")
    for args in writers(bundle, tmp_path / "gone"):
        line = one_line(cli(*args), f"{tmp_path / 'gone'} is a link to nothing, not a directory")
        assert "is a file" not in line


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    point = tmp_path / "ro"
    point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(point)], check=True)
    yield point
    subprocess.run(["umount", "-l", str(point)], check=False)


@pytest.mark.root
@pytest.mark.parametrize("below", ["", "sub"])
def test_an_output_on_a_read_only_file_system_is_refused_first(cli: Callable[..., Any], tmp_path: Path,
                                                               read_only_dir: Path, below: str) -> None:
    """QA: compare printed all its tables, then 'Read-only file system: …/x-charts'; trace generate
    named its hidden partial file; library export a bare OS error: each after the work."""
    bundle = make_bundle(tmp_path / "bundle")
    for args in writers(bundle, read_only_dir / below if below else read_only_dir):
        one_line(cli(*args), f"cannot write in {read_only_dir} (a read-only file system)")
