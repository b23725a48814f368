"""The library export's `better`, `label` and `kind` columns are the current catalogue's, as the
report, compare and rankings read them, not what the ssdlab that added the run declared."""

from __future__ import annotations

import csv
import sqlite3
from contextlib import closing
from pathlib import Path

from ssdlab.engines.fake import FakeEngine
from ssdlab.library import Library
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

THERMAL = SuiteEntry(name="thermal", test="thermal", params={"seq_runtime_s": 3, "rnd_runtime_s": 3,
                                                             "cooldown_s": None})


def stored_as_older(db_path: Path, metric: str, **columns: str | None) -> None:
    """Rewrite one metric's stored declaration columns as an older ssdlab wrote them."""
    sets = ", ".join(f"{name} = ?" for name in columns)
    with closing(sqlite3.connect(db_path)) as db, db:
        db.execute(f"UPDATE metrics SET {sets} WHERE metric = ?", (*columns.values(), metric))


def exported(library: Library, out: Path) -> dict[str, dict[str, str]]:
    library.export(out, "csv")
    with out.open(encoding="utf-8") as handle:
        return {row["metric"]: row for row in csv.DictReader(handle)}


def test_export_gives_the_current_catalogues_better_not_the_stored_one(tmp_path: Path) -> None:
    """QA (stop 47): `thermal`'s seq_peak_indicator_pct was declared better='lower' when it was
    added (commit 0fb6d19) and is no longer ranked (better None); a library that holds a run added
    then exported 'lower', so a script ranking by the export's `better` ranked a figure the report
    does not. A latency stored with no direction was likewise exported without one."""
    bundle = tmp_path / "t"
    run_entries(bundle, parse_target("fake:?capacity=2g"), FakeEngine(), [THERMAL], suite="thermal")
    db_path = tmp_path / "lib" / "library.sqlite"
    library = Library(db_path)
    library.add(bundle)
    stored_as_older(db_path, "seq_peak_indicator_pct", better="lower")
    stored_as_older(db_path, "seq_peak_mb_s", better=None, label="Sequential write: peak", kind="count")
    rows = exported(library, tmp_path / "out.csv")
    assert rows["seq_peak_indicator_pct"]["better"] == ""  # None, as the catalogue says today
    peak = rows["seq_peak_mb_s"]
    assert (peak["better"], peak["label"], peak["kind"]) == ("higher", "Sequential write: peak level", "figure")


def test_a_figure_stored_in_another_unit_keeps_its_stored_words(tmp_path: Path) -> None:
    """A figure stored under another unit keeps the label it was stored with (its value is in that
    unit), while its direction, which no unit changes, is today's."""
    bundle = tmp_path / "t"
    run_entries(bundle, parse_target("fake:?capacity=2g"), FakeEngine(), [THERMAL], suite="thermal")
    db_path = tmp_path / "lib" / "library.sqlite"
    library = Library(db_path)
    library.add(bundle)
    stored_as_older(db_path, "seq_peak_mb_s", better="lower", label="Sequential write: peak (MiB/s)", unit="MiB/s")
    peak = exported(library, tmp_path / "out.csv")["seq_peak_mb_s"]
    assert (peak["better"], peak["label"], peak["unit"]) == ("higher", "Sequential write: peak (MiB/s)", "MiB/s")
