"""Report notes for figures measured while the drive throttled (report/heat.py)."""

from __future__ import annotations

from pathlib import Path

from ssdlab.measurement import Measurement, Series
from ssdlab.report.heat import heat_notes
from ssdlab.workload import Workload


def _measurement(name: str, telemetry: dict[str, tuple[float, ...]]) -> Measurement:
    w = Workload(name=name, pattern="write", block_size_bytes=131072, runtime_s=4)
    n = len(telemetry.get("t_s", (1.0,)))
    series = Series(t_s=tuple(float(i + 1) for i in range(n)), read_ios=(0.0,) * n, write_ios=(5.0,) * n,
                    read_bytes=(0.0,) * n, write_bytes=(5.0 * 131072,) * n, read_lat_sum_ns=(0.0,) * n,
                    write_lat_sum_ns=(1.0,) * n)
    return Measurement(workload=w, engine="sim", runtime_s=float(n), series=series, telemetry=telemetry)


def test_throttled_workloads_are_named_with_their_share_and_the_start_temperature() -> None:
    cool = _measurement("a", {"t_s": (1.0, 2.0), "temp_c": (41.0, 45.0), "throttle_level": (0.0, 0.0)})
    hot = _measurement("b", {"t_s": (1.0, 2.0, 3.0, 4.0), "temp_c": (66.0, 70.0, 71.0, 70.0),
                             "throttle_level": (0.0, 1.0, 1.0, 2.0)})
    (note,) = heat_notes({"a": cool, "b": hot})
    assert note.startswith("Thermal throttling during measurement (b 75 % of their time; "
                           "the drive was at 41 °C as measuring began")
    assert "a " not in note.split("(")[1].split(";")[0]  # the cool workload is not named
    assert heat_notes({"a": cool}) == ()


def test_real_drives_flag_and_missing_telemetry() -> None:
    flagged = _measurement("r", {"t_s": (1.0, 2.0), "throttle_active": (float("nan"), 1.0)})
    assert flagged.throttled_share() == 1.0  # a period the sampler could not judge does not count
    assert _measurement("x", {"t_s": (1.0,)}).throttled_share() is None
    assert heat_notes({"x": _measurement("x", {"t_s": (1.0,)})}) == ()


def test_many_throttled_rounds_are_counted_not_listed() -> None:
    rounds = {f"torture-r{i:03d}": _measurement(f"torture-r{i:03d}", {"t_s": (1.0, 2.0), "throttle_level": (0.0, 1.0)
                                                                      if i % 2 else (1.0, 1.0)}) for i in range(1, 8)}
    (note,) = heat_notes(rounds)
    assert "(7 of 7 measured workloads, 50 to 100 % of their time)" in note


def test_a_throttled_test_section_says_so(tmp_path: Path) -> None:
    """A torture that throttles (its throttle point lowered so a short run gets there) gets the
    note in its report section."""
    import pytest

    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.bundle import Bundle
    from ssdlab.engines.sim import SimEngine
    from ssdlab.report.sections import build_section
    from ssdlab.runner import run_entries
    from ssdlab.suites import SuiteEntry
    from ssdlab.targets import parse_target

    entry = SuiteEntry(name="hot", test="consistency", params={"runtime_s": 160, "round_s": 80})
    done = run_entries(tmp_path, parse_target("sim:sm951-nvme-256?capacity_gib=16&thermal.throttle_c=45,75,80"),
                       SimEngine(), [entry])
    section = build_section(Bundle(tmp_path), done.test("hot"))
    assert any(n.startswith("Thermal throttling during measurement (torture") for n in section.notes), section.notes
