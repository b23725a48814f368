"""Effective methods (ssdlab.effective): the keys of recorded runs move only with RULES_VERSION.

A results library stores each test's key when its run is added and re-reads its runs when the
rules' version changes (library.py); a rule change without a bump would leave old runs unranked
beside new ones. The records are runs of every suite and of the tests outside suites on the
fake drive, saved with their measurements left out: keys come from params, metrics and notes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ssdlab.bundle import CACHED_PREP_NOTE, RAN_AHEAD_NOTE, RESUMED_NOTE, TestRecord, how_it_ran
from ssdlab.effective import RULES_VERSION, effective_method
from ssdlab.targets.base import TargetInfo

FIXTURES = Path(__file__).parent / "fixtures" / "effective"
REFRESH = "SSDLAB_REFRESH_RULE_KEYS"  # set to 1 to write the keys of this version


def recorded() -> list[tuple[TargetInfo, TestRecord]]:
    rows = json.loads((FIXTURES / "records.json").read_text(encoding="utf-8"))
    return [(TargetInfo.model_validate(r["target"]), TestRecord.model_validate(r["record"])) for r in rows]


def test_keys_of_recorded_runs_change_only_with_the_rules_version() -> None:
    keys = {record.name: effective_method(record, target).key for target, record in recorded()}
    if os.environ.get(REFRESH) == "1":
        (FIXTURES / "keys.json").write_text(
            json.dumps({"rules_version": RULES_VERSION, "keys": keys}, indent=1, sort_keys=True) + "\n")
    saved = json.loads((FIXTURES / "keys.json").read_text(encoding="utf-8"))
    changed = sorted(name for name, key in keys.items() if saved["keys"].get(name) != key)
    assert saved["rules_version"] == RULES_VERSION, (
        f"RULES_VERSION is {RULES_VERSION}, the saved keys are of {saved['rules_version']}: write them with "
        f"{REFRESH}=1 pytest tests/test_effective.py")
    assert not changed, (
        f"effective-method keys changed for {', '.join(changed)}: if like runs are now unlike (or the reverse), "
        f"bump effective.RULES_VERSION so libraries re-read their runs, then {REFRESH}=1 pytest "
        "tests/test_effective.py")
    assert len(keys) == 16 and len(set(keys.values())) == len(keys)  # every method, each its own key


def test_a_run_recorded_before_its_method_gained_a_parameter_is_like_a_run_at_its_default() -> None:
    target, record = next((t, r) for t, r in recorded() if r.test == "consistency")
    older = record.model_copy(update={"params": {k: v for k, v in record.params.items() if k != "fill_passes"}})
    assert record.params["fill_passes"] == 1  # the default: what consistency did before it had the parameter
    assert effective_method(older, target).key == effective_method(record, target).key
    twice = record.model_copy(update={"params": {**record.params, "fill_passes": 2}})
    assert effective_method(twice, target).key != effective_method(record, target).key


def test_a_parameter_the_method_no_longer_knows_keeps_the_run_unlike() -> None:
    target, record = next((t, r) for t, r in recorded() if r.test == "consistency")
    gone = record.model_copy(update={"params": {**record.params, "retired_knob": 3}})
    assert effective_method(gone, target).key != effective_method(record, target).key


def test_notes_on_how_a_run_went_leave_the_method_alike() -> None:
    """QA: a warm review (run ahead on a second core) was 'left out' of a comparison with a cold one
    of the same drive, its plan notes differing; a phase stopped at steady state did the same to
    drives that reached it and drives that did not. Each note a run adds is from its producer."""
    from ssdlab.measurement import Measurement, OpTotals
    from ssdlab.methods.base import Measure
    from ssdlab.runner import early_stop_notes, short_window_notes
    from ssdlab.workload import Workload

    target, record = next((t, r) for t, r in recorded() if r.test == "consistency")
    plain = record.model_copy(update={"notes": tuple(n for n in record.notes if "stopped early" not in n)})
    rounds = [Measure(workload=Workload(name=f"r{i}", pattern="randwrite", block_size_bytes=4096, runtime_s=1),
                      group="torture") for i in range(3)]
    # A window too short for its queue: the drive's pace decides it, as it does the figures.
    short = Measurement(workload=rounds[0].workload, engine="sim", runtime_s=0.002, write=OpTotals(ios=20))
    how = (*early_stop_notes(rounds, ("done", "skipped", "skipped")), RAN_AHEAD_NOTE,
           CACHED_PREP_NOTE.format(steps="27 steps"), RESUMED_NOTE.format(reason="continues at round 4"),
           *short_window_notes(rounds[:1], {"r0": short}, record.params))
    assert len(how) == 5 and all(how_it_ran(note) for note in how)
    key = effective_method(plain, target).key
    for note in how:
        assert effective_method(plain.model_copy(update={"notes": (*plain.notes, note)}), target).key == key, note
    # A note on what ran still tells methods apart.
    reduced = plain.model_copy(update={"notes": (*plain.notes, "test region reduced from 16GiB to 1GiB")})
    assert effective_method(reduced, target).key != key


def test_a_thermal_run_that_purged_once_is_unlike_one_that_purges_before_each_phase() -> None:
    """The thermal test now purges before each phase (QA: its random phase started on a drive the
    sequential one had filled 1.7 times over, and measured GC); a run recorded before has no
    `purges` setting, so it never ranks with one recorded after."""
    target, record = next((t, r) for t, r in recorded() if r.test == "thermal")
    assert "purges" not in record.metrics
    now = record.model_copy(update={"metrics": {**record.metrics, "purges": 2}})
    assert effective_method(now, target).key != effective_method(record, target).key


def test_a_parameter_whose_switch_was_off_leaves_the_method_alike() -> None:
    """QA: `compare wsat pts` refused two wsat runs as 'methods differ (max rounds: 25 vs 5)', though
    max_rounds counts only with until_steady and both ran without it: the whole runtime_s, alike."""
    from ssdlab.effective import differences

    for test in ("wsat", "consistency"):
        target, ran = next((t, r) for t, r in recorded() if r.test == test)
        record = ran.model_copy(update={"params": {**ran.params, "until_steady": False}})
        five = record.model_copy(update={"params": {**record.params, "max_rounds": 5}})
        assert effective_method(five, target).key == effective_method(record, target).key, test
        assert differences([effective_method(five, target), effective_method(record, target)]) == ()
        # With the switch on, max_rounds caps the rounds: two methods.
        steady, steady_five = (r.model_copy(update={"params": {**r.params, "until_steady": True}})
                               for r in (record, five))
        assert [d.key for d in differences([effective_method(steady, target),
                                            effective_method(steady_five, target)])] == ["max_rounds"], test


def test_every_switched_parameter_names_a_parameter_and_a_switch_of_its_method() -> None:
    """Params.ACTS_ONLY_WITH is declared beside the parameters: each entry must name two of them,
    the second a bool (a typo would silently leave a parameter counting, or one not)."""
    from ssdlab.methods import REGISTRY, get_test

    declared = 0
    for name in REGISTRY:
        model = type(get_test(name).parse_params({}))
        for param, switch in model.ACTS_ONLY_WITH.items():
            assert param in model.model_fields and model.model_fields[switch].annotation in (bool, "bool"), name
            declared += 1
    assert declared >= 2  # consistency's and wsat's max_rounds


def _with(record: TestRecord, params: dict[str, object], metrics: dict[str, object]) -> TestRecord:
    return record.model_copy(update={"params": {**record.params, **params}, "metrics": {**record.metrics, **metrics}})


def test_a_parameter_that_differs_only_as_its_setting_does_is_said_once() -> None:
    """QA: compare --force of quick runs of profile standard and nvme said "profile: standard vs
    nvme; CrystalDiskMark profile: standard vs nvme". The setting says it, under its label; a
    parameter the method resolved (auto) says more than its setting, and stays."""
    from ssdlab.effective import differences

    target, quick = next((t, r) for t, r in recorded() if r.test == "quick")

    def said(*runs: TestRecord) -> list[str]:
        return [d.describe() for d in differences([effective_method(r, target) for r in runs])]

    standard = _with(quick, {"profile": "standard"}, {"profile": "standard"})
    nvme = _with(quick, {"profile": "nvme"}, {"profile": "nvme"})
    assert said(standard, nvme) == ["CrystalDiskMark profile: standard vs nvme"]
    auto = _with(quick, {"profile": "auto"}, {"profile": "nvme"})
    assert said(auto, standard) == ["profile: auto vs standard", "CrystalDiskMark profile: nvme vs standard"]
    _, consistency = next((t, r) for t, r in recorded() if r.test == "consistency")
    none = _with(consistency, {"op_pct": 0.0}, {"op_pct": 0.0})
    spare = _with(consistency, {"op_pct": 25}, {"op_pct": 25.0})
    assert said(none, spare) == ["Extra over-provisioning: 0.0 % vs 25.0 %"]  # as the tables show them


def test_a_share_that_differs_is_said_in_the_digits_of_the_tables() -> None:
    """QA: compare refused trace runs for "Writes marked FUA in the trace: 0 % vs 33 %" while its
    tables showed 33.3: the comparable form rounds a share to whole %, the message need not."""
    from ssdlab.effective import differences

    target, consistency = next((t, r) for t, r in recorded() if r.test == "consistency")
    none = _with(consistency, {"op_pct": 0.0}, {"op_pct": 0.0})
    third = _with(consistency, {"op_pct": 33.33}, {"op_pct": 33.33})
    said = [d.describe() for d in differences([effective_method(r, target) for r in (none, third)])]
    assert said == ["Extra over-provisioning: 0.0 % vs 33.3 %"]


def test_a_parameter_recorded_under_another_name_is_said_once() -> None:
    """QA: compare listed "round (s): 10 vs 5; … Round length for the steady-state rule (s): 10 vs 5":
    consistency's steady_round_s records round_s (MetricSpec.param). Said once, as the setting;
    where the rule rounded a round to whole periods, the parameter says more, and stays."""
    from ssdlab.effective import differences

    target, consistency = next((t, r) for t, r in recorded() if r.test == "consistency")

    def said(*runs: TestRecord) -> list[str]:
        return [d.describe() for d in differences([effective_method(r, target) for r in runs])]

    ten = _with(consistency, {"round_s": 10.0}, {"steady_round_s": 10.0})
    five = _with(consistency, {"round_s": 5.0}, {"steady_round_s": 5.0})
    assert said(ten, five) == ["Round length for the steady-state rule (s): 10 vs 5"]
    rounded = _with(consistency, {"round_s": 0.5}, {"steady_round_s": 1.0})
    assert said(ten, rounded) == ["round (s): 10 vs 0.5", "Round length for the steady-state rule (s): 10 vs 1"]
