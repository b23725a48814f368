"""Bundles an older ssdlab wrote (tests/fixtures/old_bundles, README.md there says how): today's
ssdlab reads them whole, and a resume either continues them as the method now runs or refuses
in one line that says what to do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.fio import FioEngine
from ssdlab.errors import UsageError
from ssdlab.methods.base import Measure
from ssdlab.resume import not_this_plan
from ssdlab.runner import Runner
from ssdlab.targets import parse_target

OLD_BUNDLES = Path(__file__).parent / "fixtures" / "old_bundles"
FIO_STOPPED = "2026-11-25-fio-interrupted"  # quick stopped after 3 of its 9 steps, as 2c17902 planned it
SIM_STOPPED = "2026-11-25-sim-interrupted"  # recorded before the simulator's model revision was


def copied(tmp_path: Path, name: str) -> Bundle:
    """A fixture bundle copied where a test may write it (a resume writes its bundle)."""
    shutil.copytree(OLD_BUNDLES / name, tmp_path / name)
    return Bundle(tmp_path / name)


def _same(raw: Any, loaded: Any) -> bool:
    """Whether every value of `raw` (a file's JSON) is in `loaded` as it was: fields a newer record
    adds may be there too, none of the file's may be lost or changed (25 and 25.0 are one number)."""
    if isinstance(raw, dict):
        return isinstance(loaded, dict) and all(k in loaded and _same(v, loaded[k]) for k, v in raw.items())
    if isinstance(raw, list):
        return isinstance(loaded, list) and len(raw) == len(loaded) and all(map(_same, raw, loaded))
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and isinstance(loaded, (int, float)):
        return float(raw) == float(loaded)
    return bool(raw == loaded)


@pytest.mark.parametrize("name", [FIO_STOPPED, SIM_STOPPED])
def test_an_old_bundle_loads_with_every_figure_it_holds(name: str) -> None:
    bundle = Bundle(OLD_BUNDLES / name)
    record = bundle.load_run()
    assert _same(json.loads(bundle.run_file.read_text()), json.loads(record.model_dump_json()))
    for test in record.tests:
        for ref in test.measurements:
            if (bundle.path / ref.file).exists():  # the sim fixture keeps its run.json only
                raw = json.loads((bundle.path / ref.file).read_text())
                assert _same(raw, json.loads(bundle.load_measurement(ref).model_dump_json())), ref.name


def test_a_resume_of_a_test_planned_otherwise_by_an_older_ssdlab_restarts_it(tmp_path: Path) -> None:
    """QA: quick, stopped after 3 of the 9 steps 2c17902 planned (fill; SEQ1M Q8T1 read; write), resumed
    at step 4 of today's 24 (fill; warm-up; read; idle): it counted a warm-up it never ran as done and
    went on under another method. The record does not fit today's plan, so the test restarts."""
    bundle = copied(tmp_path, FIO_STOPPED)
    record = bundle.load_run()
    runner = Runner(bundle, parse_target(record.target.spec), FioEngine())
    quick = runner.pending(record, record.target)[0]
    assert quick.name == "quick" and quick.start.index == 0, quick.start
    assert "counts step 2 (seq1m_q8t1-read-warmup) as finished but holds no measurement of it" in quick.start.reason
    assert quick.start.reason.endswith("planned the test otherwise, so the test restarts from its first step")
    assert "\n" not in quick.start.reason


def test_a_record_that_fits_the_plan_is_not_said_to_be_planned_otherwise(tmp_path: Path) -> None:
    """The same stopped quick, as today's plan would have left it: its finished steps' measurements."""
    bundle = copied(tmp_path, FIO_STOPPED)
    record = bundle.load_run()
    plan = Runner(bundle, parse_target(record.target.spec), FioEngine()).pending(record, record.target)[0].plan
    done = ("done",) * 4  # fill, warm-up, SEQ1M Q8T1 read, idle
    measures = [a.name for a in plan.actions[:4] if isinstance(a, Measure)]
    cut = plan.actions[4]  # the next warm-up, running when the run stopped: kept cut short
    assert isinstance(cut, Measure)
    assert not_this_plan(plan.actions, done, measures) is None
    assert not_this_plan(plan.actions, done, [*measures, cut.name]) is None
    assert "none of the 4 steps" in (not_this_plan(plan.actions, done, [*measures, "seq1m_q8t1-write-r1"]) or "")


def test_a_resume_of_a_simulated_run_older_than_the_model_revision_is_refused(tmp_path: Path) -> None:
    """QA: a sim: run recorded before ssdsim kept its model revision resumed under today's model
    (its drive snapshot unreadable, the stopped test simulated again on a fresh drive by another
    model), and the finished run named one simulator though its tests ran under two."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine

    bundle = copied(tmp_path, SIM_STOPPED)
    record = bundle.load_run()
    before = bundle.run_file.read_bytes()
    with pytest.raises(UsageError) as refused:
        Runner(bundle, parse_target(record.target.spec), SimEngine()).preflight(record)
    text = str(refused.value)
    assert "(model revision unrecorded)" in text and "a resume would mix two simulators in one run" in text
    assert "start a new run" in text and "\n" not in text
    assert bundle.run_file.read_bytes() == before
