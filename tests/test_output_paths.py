"""An output path is judged where the write lands (outputs.where_written). QA: `-o nodir/../victim.html`
named a folder that did not exist, so no check saw the user's file it reached, and the write replaced
it (a bundle's run.json and the library in use the same way); the folder was made too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from report.report_bundles import make_bundle


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return make_bundle(tmp_path / "b")


@pytest.mark.parametrize("command", [["report", "{b}", "-o"], ["compare", "{b}", "{b}", "-o"], ["library", "export"]])
def test_a_path_through_a_missing_folder_reaches_the_file_and_is_judged_there(
        cli: Any, bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.csv"
    victim.write_text("precious\n", encoding="utf-8")
    args = [a.format(b=bundle) for a in command]
    result = cli(*args, "nodir/../victim.csv", "--library", str(tmp_path / "lib.sqlite"))
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{victim} exists and is not" in result.stderr
    assert victim.read_text(encoding="utf-8") == "precious\n" and not (tmp_path / "nodir").exists()


def test_a_missing_folder_passed_through_is_not_made(cli: Any, bundle: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli("report", str(bundle), "-o", "a/../out/r.html", "--library", str(tmp_path / "lib.sqlite")).code == 0
    assert (tmp_path / "out" / "r.html").is_file() and not (tmp_path / "a").exists()


@pytest.mark.parametrize(("given", "said"), [("newdir/", "error: newdir/ names a folder: give the file to write in it"),
                                             ("", "error: the output name is empty: give the file to write")])
def test_a_folder_or_an_empty_name_is_refused_as_typed(cli: Any, bundle: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch, given: str, said: str) -> None:
    """QA: `-o newdir/` wrote a file named newdir; `-o ''` was refused as ". is a directory"."""
    monkeypatch.chdir(tmp_path)
    for args in (["report", str(bundle), "-o", given], ["library", "export", given]):
        result = cli(*args, "--library", str(tmp_path / "lib.sqlite"))
        assert result.code == 2 and result.stderr.strip() == said, (args, result.stderr)
    assert not (tmp_path / "newdir").exists()


def test_an_export_replaces_an_export_of_the_other_format(cli: Any, bundle: Path, tmp_path: Path) -> None:
    """QA: a CSV export, then `--format parquet` to the same name, was refused as "not a Parquet
    export ssdlab wrote"; ssdlab wrote it."""
    library = str(tmp_path / "lib.sqlite")
    assert cli("library", "add", str(bundle), "--library", library).code == 0
    out = str(tmp_path / "ex.csv")
    assert cli("library", "export", out, "--library", library).code == 0
    assert cli("library", "export", out, "--format", "parquet", "--library", library).code == 0
    assert cli("library", "export", out, "--library", library).code == 0
