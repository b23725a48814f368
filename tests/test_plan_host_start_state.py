"""On --host hosts a purge is not done (MultiHostFioEngine.step): the state a test starts from
there is the run's file as the tests before left it, never the purged state its plan names, and
no later test shares a state made with a purge the hosts skipped (QA: the planner shared
"consistency ends in exactly the state..." and recorded "filled sequentially ...: purge, ...")."""

from __future__ import annotations

from pathlib import Path

from ssdlab.planning import HOST_FILE_NEW, parse_overrides, plan_run, select_entries
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo

SAME_TORTURE = parse_overrides(["consistency.until_steady=true"])  # trim-validation's own preparation


def infos() -> tuple[TargetInfo, TargetInfo]:
    local = parse_target("fake:?capacity=64g").info()
    return local, local.model_copy(update={"extra": {**local.extra, "remote_hosts": ["10.0.0.2:8765"]}})


def test_hosts_share_no_state_a_skipped_purge_made() -> None:
    local, hosts = infos()
    _, entries = select_entries(None, ["consistency", "trim-validation"])
    here = plan_run(entries, SAME_TORTURE, local)
    assert here[1].start.shared_from == "consistency" and "purge" in here[1].start.state  # one machine: shared
    first, second = plan_run(entries, SAME_TORTURE, hosts)
    assert first.start.state.startswith(HOST_FILE_NEW) and second.start.shared_from is None
    assert second.start.state.startswith("the run's file on each host as consistency left it, then written by "
                                         "this test's own preparation, less its purge, not the planned 'tortured")
    assert "a --host run purges nothing" in second.start.reason
    assert len(second.plan.actions) == len(here[1].plan.actions) + 27  # its own preparation runs
    assert second.start.prep_left_out == 0 and second.estimate_s == second.alone_s


def test_a_test_without_a_purge_keeps_its_start() -> None:
    local, hosts = infos()
    _, entries = select_entries("quick", None)
    assert [p.start for p in plan_run(entries, {}, hosts)] == [p.start for p in plan_run(entries, {}, local)]


def test_a_test_that_measures_its_trim_is_refused_on_hosts(tmp_path: Path) -> None:
    """Its after-TRIM write would measure a TRIM the hosts never make."""
    import pytest

    from ssdlab.engines.fio_multi import MultiHostFioEngine
    from ssdlab.errors import UsageError
    from ssdlab.methods import get_test
    from ssdlab.planning import check_engine

    local = parse_target(f"file:{tmp_path / 'x.img'}?size=64g").info()
    hosts = local.model_copy(update={"extra": {**local.extra, "remote_hosts": ["10.0.0.2:8765"]}})
    test = get_test("trim-validation")
    engine = MultiHostFioEngine(hosts=(("10.0.0.2", 8765),))
    with pytest.raises(UsageError, match="measures what a TRIM does, and a --host run purges nothing"):
        check_engine(engine, hosts, "trim-validation", test.plan(test.parse_params({}), hosts))
    for other in ("consistency", "thermal"):  # their purges only make the start state
        check_engine(engine, hosts, other, get_test(other).plan(get_test(other).parse_params({}), hosts))
