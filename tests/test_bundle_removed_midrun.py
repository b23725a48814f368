"""A bundle removed (or replaced) while a run writes it: the run stops in one line and never makes
it again. QA: `rm -rf` of a bundle mid-run, and the run made the folder again for its next file and
ended "complete", exit 0, added to the library, the measurements from before the removal gone."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from run_helpers import small_record
from ssdlab.bundle import Bundle
from ssdlab.errors import BundleError
from ssdlab.measurement import Measurement


def test_a_locked_bundle_removed_is_refused_not_made_again(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path / "b")
    with bundle.lock():
        bundle.write_run(small_record())
        shutil.rmtree(bundle.path)
        with pytest.raises(BundleError, match="removed or replaced during the run"):
            bundle.write_run(small_record())
        with pytest.raises(BundleError, match="removed or replaced during the run"):
            bundle.write_drive_state(b"drive", "quick", 1)
    assert not bundle.path.exists()


def test_a_locked_bundle_replaced_by_another_folder_is_refused(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path / "b")
    with bundle.lock():
        bundle.write_run(small_record())
        bundle.path.rename(tmp_path / "moved")
        bundle.path.mkdir()
        with pytest.raises(BundleError, match="removed or replaced"):
            bundle.write_run(small_record())
    assert not bundle.run_file.exists()


def test_an_unlocked_bundle_is_written_as_before(tmp_path: Path) -> None:
    """Outside a run (a test's bundle, a report's rewrite) nothing is checked; once the lock is
    let go, neither."""
    bundle = Bundle(tmp_path / "b")
    with bundle.lock():
        bundle.write_run(small_record())
    shutil.rmtree(bundle.path)
    bundle.write_run(small_record())
    assert bundle.load_run().tests[0].name == "quick"


def test_a_run_whose_bundle_is_removed_stops_in_one_line(cli: Callable[..., Any], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "B"
    write = Bundle.write_measurement

    def then_removed(self: Bundle, test: str, role: Any, m: Measurement) -> Any:
        ref = write(self, test, role, m)
        shutil.rmtree(self.path)  # someone removes the bundle as the run goes on
        return ref

    monkeypatch.setattr(Bundle, "write_measurement", then_removed)
    done = cli("run", "--test", "quick", "-t", "fake:?capacity=2g", "--engine", "fake", "--no-report",
               "--no-library", "-o", str(out))
    assert done.code == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "removed or replaced during the run" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()
