"""`trace generate -o` and `trace import -o` treat a missing folder as report -o and library export
do (outputs.make_folder_for): made, and said in the help; a folder that cannot be made is refused in
the same one line. QA: `-o /nonexist/dir/x.parquet` made /nonexist/dir, and no help said it would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SMALL = ("--scale", "0.001")


def test_a_missing_folder_is_made_as_report_makes_it(cli: Callable[..., Any], tmp_path: Path) -> None:
    out = tmp_path / "new" / "dir" / "x.parquet"
    result = cli("trace", "generate", "light", *SMALL, "-o", str(out))
    assert result.code == 0 and out.is_file(), result.stderr


@pytest.mark.parametrize("command", [("trace", "generate", "light", *SMALL), ("report", "BUNDLE")])
def test_a_folder_that_cannot_be_made_is_refused_in_one_line_alike(cli: Callable[..., Any], tmp_path: Path,
                                                                   command: tuple[str, ...]) -> None:
    bundle = tmp_path / "b"
    if "BUNDLE" in command:
        assert cli("run", "-t", "fake:?capacity=2g", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1",
                   "--no-library", "--no-report", "-o", str(bundle)).code == 0
    (tmp_path / "afile").write_text("")
    suffix = ".parquet" if command[0] == "trace" else ".html"
    out = tmp_path / "afile" / "sub" / f"x{suffix}"
    args = [str(bundle) if arg == "BUNDLE" else arg for arg in command]
    result = cli(*args, "-o", str(out))
    assert result.code == 2 and result.stderr.strip() == (
        f"error: {out}: {tmp_path / 'afile'} is a file, not a directory; give another path"), result.stderr
    blocked = Path("/proc/nope") / f"x{suffix}"  # a folder no one can make: found before any work
    result = cli(*args, "-o", str(blocked))
    assert result.code == 2 and result.stderr.strip() == (
        f"error: {blocked}: cannot write in /proc (it takes no new files); give another path"), result.stderr


@pytest.mark.parametrize("command", ["generate", "import"])
def test_the_help_says_missing_folders_are_made(cli: Callable[..., Any], command: str) -> None:
    result = cli("trace", command, "--help")
    assert "missing folders are made" in " ".join(result.stdout.replace("│", " ").split())
