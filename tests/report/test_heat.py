"""Report notes for figures measured while the drive throttled (report/heat.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.measurement import Measurement, Series
from ssdlab.report.heat import heat_comparison_note, heat_notes, heat_ranking_note, measured_throttled_pct
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
    assert note.startswith("Thermal throttling during measurement (share of each workload's time: b: 75 %; "
                           "the drive was at 41 °C as measuring began")
    assert "a " not in note.split("(")[1].split(";")[0]  # the cool workload is not named
    assert heat_notes({"a": cool}) == ()
    # by the names the results tables give the workloads, where the report knows them
    (named,) = heat_notes({"a": cool, "b": hot}, {"b": "4 KiB random write, QD 32"})
    assert "time: 4 KiB random write, QD 32: 75 %;" in named


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
    noted = "Thermal throttling during measurement (share of each workload's time: torture"
    assert any(n.startswith(noted) for n in section.notes), section.notes


def _flags(name: str, levels: tuple[float, ...]) -> Measurement:
    return _measurement(name, {"t_s": tuple(float(i + 1) for i in range(len(levels))), "throttle_level": levels})


def test_a_comparison_notes_heat_only_when_the_shares_differ_by_more_than_the_margin() -> None:
    """Shares weigh each workload by its length; 10 points apart is noise, more is not; a drive
    whose telemetry cannot say (a real drive without a sampler) is left out of the judgement."""
    long_cool = _flags("a", (0.0,) * 9)
    short_hot = _flags("b", (1.0,))
    assert measured_throttled_pct({"a": long_cool, "b": short_hot}) == 10.0
    assert measured_throttled_pct({"x": _measurement("x", {"t_s": (1.0,)})}) is None
    ten = {"a": long_cool, "b": short_hot}
    none = {"a": _flags("a", (0.0,) * 10)}
    assert heat_comparison_note(["A", "B"], [ten, none]) is None  # exactly the margin
    hot = {"b": _flags("b", (1.0, 1.0, 0.0, 0.0, 0.0))}
    note = heat_comparison_note(["A", "B"], [hot, none])
    assert note is not None and "A 40 %, B 0 %" in note and "not only their speed" in note
    blind = {"x": _measurement("x", {"t_s": (1.0,)})}
    assert heat_comparison_note(["A", "B"], [hot, blind]) is None


def test_a_comparison_of_a_hot_and_a_cool_drive_says_so(tmp_path: Path) -> None:
    """The same torture on the same simulated drive, once with its throttle point lowered so it
    throttles at once, once with a heatsink: the compare table's caption and the page's banner
    say the difference is partly heat; two cool runs get no such note."""
    import pytest

    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.compare import compare_bundles
    from ssdlab.engines.sim import SimEngine
    from ssdlab.report.compare_page import banner, comparison_tables, heat_note, measured
    from ssdlab.runner import run_entries
    from ssdlab.suites import SuiteEntry
    from ssdlab.targets import parse_target

    entry = SuiteEntry(name="hot", test="consistency", params={"runtime_s": 160, "round_s": 80})
    specs = {"hot": "thermal.throttle_c=45,75,80", "cool": "heatsink=1", "cool2": "heatsink=1&seed=2"}
    for name, options in specs.items():
        run_entries(tmp_path / name, parse_target(f"sim:sm951-nvme-256?capacity_gib=16&{options}"), SimEngine(),
                    [entry])
    c = compare_bundles([tmp_path / "hot", tmp_path / "cool"])
    (t,) = c.tests
    note = heat_note(c, t, measured(t))
    assert note is not None and note.startswith("heat differs — share of the measured time spent throttled: ")
    assert "(sim:sm951-nvme-256?capacity_gib=16&heatsink=1) 0 %" in note
    assert "The drives ran at different heat in" in (banner(c, {t.name: note}) or "")
    assert any(note in table.caption for table in comparison_tables(c))  # the terminal's table too
    calm = compare_bundles([tmp_path / "cool", tmp_path / "cool2"])
    (quiet,) = calm.tests
    assert heat_note(calm, quiet, measured(quiet)) is None and "heat" not in (banner(calm, {quiet.name: None}) or "")


def test_a_ranking_names_the_drives_whose_heat_differs_from_the_reviewed_drives() -> None:
    """The first drive is the one under review: only drives more than 10 points from its share
    are named; a review drive whose telemetry cannot say gets no note."""
    hot = {"b": _flags("b", (1.0, 1.0, 0.0, 0.0, 0.0))}
    cool = {"a": _flags("a", (0.0,) * 10)}
    warm = {"a": _flags("a", (1.0, 1.0, 1.0, 0.0, 0.0, 0.0))}  # 50 %: within 10 points
    blind = {"x": _measurement("x", {"t_s": (1.0,)})}
    note = heat_ranking_note("T", ["me", "cool", "warm", "blind"], [hot, cool, warm, blind])
    assert note == ("T: heat differs — share of the measured time spent throttled: this drive 40 %; cool 0 %; those "
                    "places are partly the drives' heat (their cooling, what ran before), not only their speed")
    assert heat_ranking_note("T", ["me", "warm"], [hot, warm]) is None
    assert heat_ranking_note("T", ["me", "cool"], [blind, cool]) is None


def test_the_rankings_against_the_library_say_when_heat_differs(tmp_path: Path) -> None:
    """A hot and a cool simulated drive in one library: the hot drive's report ranks the cool one
    and its rankings section says their places are partly heat."""
    import pytest

    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine
    from ssdlab.library import Library
    from ssdlab.report.library_rankings import rankings_section
    from ssdlab.runner import run_entries
    from ssdlab.suites import SuiteEntry
    from ssdlab.targets import parse_target

    entry = SuiteEntry(name="hot", test="consistency", params={"runtime_s": 160, "round_s": 80})
    library = Library(tmp_path / "library.sqlite")
    runs = {}
    for name, options in {"hot": "thermal.throttle_c=45,75,80", "cool": "heatsink=1"}.items():
        runs[name] = run_entries(tmp_path / name, parse_target(f"sim:sm951-nvme-256?capacity_gib=16&{options}"),
                                 SimEngine(), [entry])
        library.add(tmp_path / name)
    section = rankings_section(runs["hot"], library, tmp_path / "hot")
    assert section is not None
    key, settings, note = section.notes  # the two drives share a name: a key, and what they were made with
    assert "17.1 GB [" in key and " is sim:sm951-nvme-256?capacity_gib=16&heatsink=1 (thermal.throttle_c=default, " \
        "heatsink=1)" in key, key
    assert settings.startswith("Drive settings differ among the ranked drives — this drive (") and \
        "]): thermal.throttle_c=45,75,80; " in settings and "]: heatsink=1: their places are partly" in settings, \
        settings
    assert "heat differs — share of the measured time spent throttled: this drive " in note
    share = float(note.split("this drive ")[1].split(" %")[0])
    assert share > 10 and note.endswith(" 0 %; those places are partly the drives' heat (their cooling, what ran "
                                        "before), not only their speed")


def test_a_comparisons_heat_note_is_the_shared_apart_as_printed_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """heat_comparison_note asks measurement.heat_apart_printed (known shares, more than 10
    points apart, as printed) rather than writing the check out again."""
    from ssdlab.report import heat

    asked: list[tuple[object, ...]] = []

    def printed(*shares: object) -> tuple[str, ...] | None:
        asked.append(shares)
        return None

    monkeypatch.setattr(heat, "measured_throttled_pct", lambda found: found["pct"])
    monkeypatch.setattr(heat, "heat_apart_printed", printed)
    assert heat.heat_comparison_note(["A", "B", "C"], [{"pct": 40.0}, {"pct": None}, {"pct": 2.0}]) is None
    assert asked == [(40.0, 2.0)]
    monkeypatch.undo()
    monkeypatch.setattr(heat, "measured_throttled_pct", lambda found: found["pct"])
    note = heat.heat_comparison_note(["A", "B", "C"], [{"pct": 12.4}, {"pct": None}, {"pct": 2.35}])
    assert note is not None and "A 12.40 %, C 2.35 %" in note
