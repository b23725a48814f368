"""A bundle whose path is no UTF-8 text (bytes such as 0xff, as os.fsdecode gives them) is refused
in one line: its report and the results library hold the path as text. QA: `run -o $'bad\\xff'`
measured to the end, then ended in "internal error: UnicodeEncodeError" (exit 70) writing the
report and adding the run to the library; `report` and `library add` of such a bundle the same."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

NOT_UTF8 = os.fsdecode(b"bad\xff\xfename")
RUN = ("run", "--test", "quick", "-t", "fake:?capacity=2g", "--engine", "fake", "-p", "runs=1")


def test_a_run_into_a_path_that_is_not_utf8_is_refused_before_it_starts(cli: Callable[..., Any],
                                                                          tmp_path: Path) -> None:
    out = tmp_path / NOT_UTF8
    done = cli(*RUN, "--library", str(tmp_path / "lib.sqlite"), "-o", str(out))
    assert done.code == 2, done.stderr
    assert "bad\\xff\\xfename is not UTF-8 text" in done.stderr
    assert "internal error" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()  # refused before anything was measured or made


@pytest.mark.parametrize("command", [("report",), ("library", "add"), ("run", "--resume")])
def test_a_bundle_renamed_to_a_path_that_is_not_utf8_is_refused_in_one_line(
        cli: Callable[..., Any], tmp_path: Path, command: tuple[str, ...]) -> None:
    made = tmp_path / "B"
    done = cli(*RUN, "--no-report", "--no-library", "-o", str(made))
    assert done.code == 0, done.stderr
    renamed = made.rename(tmp_path / NOT_UTF8)
    done = cli(*command, str(renamed), "--library", str(tmp_path / "lib.sqlite"))
    assert done.code == 2, done.stderr
    assert "bad\\xff\\xfename is not UTF-8 text" in done.stderr and "internal error" not in done.stderr


def test_a_report_page_named_with_bytes_that_are_not_utf8_is_refused(cli: Callable[..., Any],
                                                                      tmp_path: Path) -> None:
    made = tmp_path / "B"
    assert cli(*RUN, "--no-report", "--no-library", "-o", str(made)).code == 0
    page = tmp_path / f"{NOT_UTF8}.html"
    done = cli("report", str(made), "-o", str(page), "--library", str(tmp_path / "lib.sqlite"))
    assert done.code == 2, done.stderr
    assert "bad\\xff\\xfename.html is not UTF-8 text" in done.stderr and not page.exists()
