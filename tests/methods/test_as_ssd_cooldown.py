"""as-ssd idles before its measured runs (cooldown_s), after the fill or first without one.

QA: straight after the whole-drive fill a simulated bare 950 PRO 512 GB ran every as-ssd run at
67-76 °C, throttled (Seq write 758 MB/s where it does 1527 at rest); AS SSD's users run it on a drive
at rest, and in the review suite the test before (linear) heats the drive as the fill does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.effective import effective_method
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement
from ssdlab.methods import get_test
from ssdlab.methods.base import Measure
from ssdlab.methods.synthetic import AS_SSD_RUNS, COOLDOWN_S
from ssdlab.report import section_synthetic
from ssdlab.report.contract import record_view
from ssdlab.runner import run_entries
from ssdlab.steps import Idle
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo

TEST = get_test("as-ssd")
MEASURED = [name for name, _, _, _ in AS_SSD_RUNS]
# 128 GiB is the smallest the fill still heats past the first throttle threshold (70 °C in the
# preset): 74 °C at its end, as the whole 512 GB's 76 °C; 64 GiB ends at 57 °C.
HOT_950PRO = "sim:950pro-512?capacity_gib=128"
FIRST_THROTTLE_C = 70.0  # crates/ssdsim/presets/950pro-512.toml, throttle_c
SMALL = "fake:?capacity=8g"
QUICK = {"runtime_s": 1, "access_runtime_s": 0.5}
RECORDS = Path(__file__).parents[1] / "fixtures" / "effective" / "records.json"


def steps_before_first_run(fill: bool, cooldown_s: float | None = COOLDOWN_S) -> list[str]:
    params = TEST.parse_params({"fill": fill, "cooldown_s": cooldown_s})
    plan = TEST.plan(params, parse_target(SMALL).info())
    first = next(i for i, a in enumerate(plan.actions) if isinstance(a, Measure) and a.name == MEASURED[0])
    return [a.name for a in plan.actions[:first]]


@pytest.mark.parametrize(("fill", "before"), [(True, ["fill", "cooldown"]), (False, ["cooldown"])])
def test_the_plan_idles_right_before_the_measured_runs(fill: bool, before: list[str]) -> None:
    assert steps_before_first_run(fill) == before
    plan = TEST.plan(TEST.parse_params({"fill": fill}), parse_target(SMALL).info())
    idle = next(a for a in plan.actions if isinstance(a, Idle))
    assert idle.seconds == COOLDOWN_S == 300.0
    assert [a.name for a in plan.measures() if a.role != "precondition"] == MEASURED


@pytest.mark.parametrize("off", [0, None])
def test_no_cooldown_plans_no_idle(off: float | None) -> None:
    assert steps_before_first_run(True, off) == ["fill"]
    assert steps_before_first_run(False, off) == []


Ran = tuple[dict[str, Measurement], dict[str, object], str]


def run_sim(root: Path, cooldown_s: float) -> Ran:
    """The measurements, metrics and AS SSD table caption of as-ssd with its fill on the shrunk bare 950 PRO."""
    entry = SuiteEntry(name="as-ssd", test="as-ssd", params={**QUICK, "cooldown_s": cooldown_s})
    run_entries(root, parse_target(HOT_950PRO), SimEngine(), [entry])
    bundle = Bundle(root)
    record = bundle.load_run().test("as-ssd")
    [table] = section_synthetic.tables(bundle, record)
    return bundle.measurements(record), dict(record.metrics), table.caption


@pytest.fixture(scope="module")
def cooled(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    return run_sim(tmp_path_factory.mktemp("as-ssd-cool") / "b", COOLDOWN_S)


@pytest.fixture(scope="module")
def hot(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    return run_sim(tmp_path_factory.mktemp("as-ssd-hot") / "b", 0)


def first_sample(m: Measurement, channel: str) -> float:
    return m.telemetry[channel][0]


def test_a_bare_950pro_starts_its_measured_runs_cool_after_the_fill(cooled: Ran) -> None:
    runs, metrics, caption = cooled
    assert runs["fill"].telemetry["temp_c"][-1] > FIRST_THROTTLE_C  # the fill heated it
    for name in MEASURED:
        assert first_sample(runs[name], "temp_c") < FIRST_THROTTLE_C, name
        assert first_sample(runs[name], "throttle_level") == 0, name
    assert metrics["cooldown_s"] == COOLDOWN_S  # the setting records it, and the report says it
    assert caption.endswith("Measured after a 300 s idle, for the drive to cool from the fill or the test before; "
                            "none of the 8 measured runs ran throttled.")


def test_without_the_cooldown_it_is_measured_hot_and_throttled(hot: Ran, cooled: Ran) -> None:
    runs, metrics, caption = hot
    assert first_sample(runs["seq-write"], "temp_c") > FIRST_THROTTLE_C
    assert first_sample(runs["seq-write"], "throttle_level") > 0
    assert metrics["cooldown_s"] is None
    assert "Measured at once, without a cool-down" in caption
    seq_write_mb_s = cooled[1]["seq_write_mb_s"]
    assert isinstance(seq_write_mb_s, float) and isinstance(metrics["seq_write_mb_s"], float)
    assert metrics["seq_write_mb_s"] < 0.6 * seq_write_mb_s  # 758 against 1527 MB/s


def as_ssd_fixture() -> tuple[TargetInfo, TestRecord]:
    """The as-ssd run recorded before the cool-down (tests/fixtures/effective): no cooldown_s anywhere."""
    rows = json.loads(RECORDS.read_text(encoding="utf-8"))
    row = next(r for r in rows if r["record"]["test"] == "as-ssd")
    return TargetInfo.model_validate(row["target"]), TestRecord.model_validate(row["record"])


def test_a_run_measured_before_the_cooldown_is_unlike_one_after() -> None:
    target, old = as_ssd_fixture()
    assert "cooldown_s" not in old.params and "cooldown_s" not in old.metrics
    new = old.model_copy(update={"params": {**old.params, "cooldown_s": COOLDOWN_S},
                                 "metrics": {**old.metrics, "cooldown_s": COOLDOWN_S}})
    again = new.model_copy(update={"metrics": {**new.metrics, "score_total": 1.0}})
    assert effective_method(old, target).key != effective_method(new, target).key
    assert effective_method(new, target).key == effective_method(again, target).key


def test_the_report_says_nothing_of_a_cooldown_a_run_from_before_it_did_not_record() -> None:
    target, old = as_ssd_fixture()
    view = record_view(old, target)
    assert view is not None and view.params.cooldown_s == COOLDOWN_S  # type: ignore[attr-defined]  # the default
    assert section_synthetic.cooldown_text(view) == ""
