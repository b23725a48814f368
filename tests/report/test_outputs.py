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
    for args in writers(bundle, kept, other):  # files ssdlab wrote: the only ones it replaces
        assert cli(*args).code == 0
    before = {}
    for name in ("x.html", "x.csv", "x.parquet"):
        before[name] = (kept / name).stat().st_ino
        (out / name).symlink_to(kept / name)
    for args in writers(bundle, out, other):
        result = cli(*args)
        assert result.code == 0, result.stderr
    for name in ("x.html", "x.csv", "x.parquet"):
        assert (out / name).is_symlink(), name
        assert (kept / name).stat().st_ino != before[name], name  # written anew, through the link


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


# --- what an output may replace (outputs.check_replaceable; docs/safety.md, "Paths the user names") ---


def writers_of(bundle: Path, other: Path, out: Path, name: str = "x") -> list[tuple[list[str], Path]]:
    """Every writer with the file it writes: `out/NAME.html|csv|parquet`."""
    return [(["report", str(bundle), "-o", str(out / f"{name}.html")], out / f"{name}.html"),
            (["compare", str(bundle), str(other), "-o", str(out / f"{name}.html")], out / f"{name}.html"),
            (["library", "export", str(out / f"{name}.csv")], out / f"{name}.csv"),
            (["library", "export", str(out / f"{name}.parquet")], out / f"{name}.parquet"),
            (["trace", "generate", "light", "--scale", "0.001", "-o", str(out / f"{name}.parquet")],
             out / f"{name}.parquet")]


@pytest.fixture
def two_bundles(tmp_path: Path) -> tuple[Path, Path]:
    return make_bundle(tmp_path / "bundle"), make_bundle(tmp_path / "other", spec="fake:?capacity=4g")


def test_no_writer_replaces_a_bundles_file(cli: Callable[..., Any], tmp_path: Path,
                                           two_bundles: tuple[Path, Path]) -> None:
    """QA: `report A -o B/run.json` wrote the page over B's run record (exit 0), `compare … -o
    B/run.json` too; `report B -o B/run.json` did it to its own bundle, then failed reading it."""
    bundle, other = two_bundles
    record = (other / "run.json").read_bytes()
    for args in (["report", str(bundle), "-o", str(other / "run.json")],
                 ["report", str(other), "-o", str(other / "run.json")],
                 ["compare", str(bundle), str(other), "-o", str(other / "run.json")]):
        one_line(cli(*args), f"{other / 'run.json'} is a file of the bundle {other}", "give a path outside it")
    assert (other / "run.json").read_bytes() == record
    # Any file inside a bundle, whatever it looks like, at any depth: each writer's own kind too.
    inner = other / "series"
    for args, path in writers_of(bundle, other, inner):
        path.write_bytes(b"the bundle's\n")
        one_line(cli(*args), f"is a file of the bundle {other}")
        assert path.read_bytes() == b"the bundle's\n"
    assert not list(inner.glob("x-charts")) and not list(inner.glob(".*"))  # nothing drawn or left there


def test_a_writer_replaces_only_a_file_of_its_kind_that_ssdlab_wrote(cli: Callable[..., Any], tmp_path: Path,
                                                                     two_bundles: tuple[Path, Path]) -> None:
    """A user's file at the -o path is refused before anything is written, with what to do; a file
    the same writer wrote before is replaced; a file of another kind ssdlab wrote is refused."""
    bundle, other = two_bundles
    out = tmp_path / "out"
    out.mkdir()
    for args, path in writers_of(bundle, other, out):
        path.write_bytes(b"mine\n")
        line = one_line(cli(*args), f"{path} exists and is not ")
        assert line.endswith("give another path, or remove it first"), line
        assert path.read_bytes() == b"mine\n"
        path.unlink()
        assert cli(*args).code == 0  # new: written
        again = cli(*args)  # its own kind, by ssdlab: replaced
        assert again.code == 0, again.stderr
    assert not (out / "x-charts").joinpath("mine").exists()
    # The Parquet trace generate wrote is no export, and the other way round.
    result = cli("library", "export", str(out / "x.parquet"))
    one_line(result, "exists and is not an export ssdlab wrote")
    assert cli("library", "export", str(out / "e.parquet")).code == 0
    one_line(cli("trace", "generate", "light", "--scale", "0.001", "-o", str(out / "e.parquet")),
             "exists and is not a trace file ssdlab wrote")


def test_an_older_export_and_report_are_still_recognised(cli: Callable[..., Any], tmp_path: Path) -> None:
    """An export from before the `unreliable` column, and a page by its generator marker alone
    (every page has carried it in its head)."""
    from ssdlab.library import EXPORT_COLUMNS, FIRST_EXPORT_COLUMNS

    bundle = make_bundle(tmp_path / "bundle")
    old_csv = tmp_path / "old.csv"
    old_csv.write_text(",".join(EXPORT_COLUMNS[:FIRST_EXPORT_COLUMNS]) + "\r\nx\r\n")
    old_page = tmp_path / "old.html"
    old_page.write_text('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                        '<meta name="generator" content="ssdlab">\n<title>t</title>\n')
    assert cli("library", "export", str(old_csv)).code == 0
    assert cli("report", str(bundle), "-o", str(old_page)).code == 0


def test_export_never_replaces_the_library(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: `library export LIB.sqlite --format csv --library LIB.sqlite` replaced the library with CSV."""
    library = tmp_path / "lib.sqlite"
    assert cli("library", "add", str(make_bundle(tmp_path / "bundle")), "--library", str(library)).code == 0
    before = library.read_bytes()
    for fmt in ("csv", "parquet"):
        one_line(cli("library", "export", str(library), "--format", fmt, "--library", str(library)),
                 f"{library} is the results library being exported: give another path")
    assert library.read_bytes() == before


def test_a_charts_folder_ssdlab_did_not_make_is_kept(cli: Callable[..., Any], tmp_path: Path) -> None:
    """The page's `NAME-charts/` folder is replaced whole: a user's folder of that name is refused."""
    bundle = make_bundle(tmp_path / "bundle")
    mine = tmp_path / "x-charts"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep\n")
    one_line(cli("report", str(bundle), "-o", str(tmp_path / "x.html")),
             f"{mine} (the page's charts folder) exists and is not a charts folder ssdlab made")
    assert (mine / "notes.txt").read_text() == "keep\n" and not (tmp_path / "x.html").exists()


@pytest.mark.root
def test_an_output_no_file_can_be_made_in_is_named_before_any_work(cli: Callable[..., Any],
                                                                   two_bundles: tuple[Path, Path]) -> None:
    """QA: `report -o /proc/x.html` and `compare -o /proc/x.html` named a temporary folder
    ("/proc/.x-charts.13vyalr0"), compare after printing all its tables (root may write /proc by
    its permission bits; no file can be made there)."""
    bundle, other = two_bundles
    for args in (["report", str(bundle)], ["compare", str(bundle), str(other)]):
        line = one_line(cli(*args, "-o", "/proc/x.html"), "/proc/x.html: cannot write in /proc")
        assert "-charts" not in line


def test_a_refused_trace_import_makes_no_folder(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: `trace import -f MSR msr.csv -o /tmp/nd2/x.parquet`, refused, still made nd2/: folders
    are made once there is something to write, and removed again when the writing fails."""
    source = tmp_path / "msr.csv"
    source.write_text("128166372003061629,hm,1,Write,3551,4096,227\nnot a line\n")
    out = tmp_path / "nd2" / "deeper" / "x.parquet"
    for fmt, src in (("MSR", source), ("msr", tmp_path / "missing.csv"), ("msr", source)):
        result = cli("trace", "import", "-f", fmt, str(src), "-o", str(out))
        assert result.code == 2, result.stderr
        assert not (tmp_path / "nd2").exists(), (fmt, src, result.stderr)
    bad = tmp_path / "lib"
    bad.mkdir()  # a library that is a folder: export refused before its folder is made
    one_line(cli("library", "export", str(tmp_path / "nd3" / "e.csv"), "--library", str(bad)))
    assert not (tmp_path / "nd3").exists()
