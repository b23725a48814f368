"""Telemetry readers on recorded-format outputs, the sampler with injected sources, and the
sampler beside a real fio run on a file (CPU only, with the note that the drive is not sampled).

The nvme smart-log fixture is written in nvme-cli 2.x's JSON field names (this machine has
no NVMe drive to record one from); the smartctl one in smartmontools 7's `-j -A` layout."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from ssdlab.analysis.throttle import ThrottleConfig
from ssdlab.measurement import Measurement, Series
from ssdlab.methods.thermal import analyze_measurement
from ssdlab.telemetry.sampler import (
    DriveSource,
    Sampler,
    array_sample,
    array_source,
    drive_source,
    telemetry_sampler,
    with_telemetry,
)
from ssdlab.telemetry.sources import (
    cpu_between,
    parse_nvme_smart_log,
    parse_proc_stat,
    parse_smartctl_attributes,
    throttle_active,
)
from ssdlab.workload import Workload

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "telemetry"
NVME = (FIXTURES / "nvme-smart-log-throttling.json").read_text()
SATA = (FIXTURES / "smartctl-A-sata.json").read_text()


def test_nvme_smart_log_in_kelvin_with_throttle_counters() -> None:
    sample = parse_nvme_smart_log(NVME)
    assert sample is not None
    assert sample["temp_c"] == pytest.approx(77.85)
    assert sample["temp_sensor2_c"] == pytest.approx(66.85)
    assert (sample["thm_temp1_trans_count"], sample["thm_temp1_total_s"], sample["warning_temp_min"]) == (4, 125, 2)
    assert parse_nvme_smart_log("not json") is None and parse_nvme_smart_log("{}") is None


def test_smartctl_temperature_from_current_or_attribute_194() -> None:
    assert parse_smartctl_attributes(SATA) == {"temp_c": 35.0}
    assert parse_smartctl_attributes(json.dumps({"temperature": {"current": 41}})) == {"temp_c": 41.0}
    assert parse_smartctl_attributes(json.dumps({"ata_smart_attributes": {"table": []}})) is None


def test_proc_stat_deltas() -> None:
    before = parse_proc_stat("cpu  100 0 50 1000 10 0 0 0 0 0\ncpu0 1 2 3 4 5\n")
    after = parse_proc_stat("cpu  130 0 70 1040 20 0 0 0 0 0\n")
    assert before is not None and after is not None
    assert cpu_between(before, after) == {"cpu_usr_pct": 30.0, "cpu_sys_pct": 20.0, "cpu_iowait_pct": 10.0}


def test_throttle_active_from_counters() -> None:
    assert throttle_active({"thm_temp1_total_s": 1}, {"thm_temp1_total_s": 2}) == 1.0
    assert throttle_active({"thm_temp1_total_s": 2}, {"thm_temp1_total_s": 2}) == 0.0
    assert throttle_active({"temp_c": 1}, {"temp_c": 2}) is None


def recorded(outputs: dict[str, str | None]) -> object:
    def run(argv: Sequence[str]) -> str | None:
        return outputs.get(argv[0])
    return run


def test_drive_source_falls_back_and_says_why(tmp_path: Path) -> None:
    source, note = drive_source("/dev/nvme0n1", recorded({"nvme": NVME}), tmp_path)  # type: ignore[arg-type]
    assert source is not None and source.name == "nvme smart-log" and note is None
    hwmon = tmp_path / "class" / "nvme" / "nvme0" / "hwmon3"
    hwmon.mkdir(parents=True)
    (hwmon / "temp1_input").write_text("45850\n")
    source, note = drive_source("/dev/nvme0n1", recorded({}), tmp_path)  # type: ignore[arg-type]
    assert source is not None and source.read() == {"temp_c": 45.85}
    source, note = drive_source("/dev/sda", recorded({}), tmp_path)  # type: ignore[arg-type]
    assert source is None and note is not None and "smartctl" in note and "\n" not in note
    source, note = drive_source(None)
    assert source is None and note == "drive temperature: not sampled (the target is not a block device)"


def test_an_arrays_temperature_is_its_hottest_members(tmp_path: Path) -> None:
    """A `raid0:` target's string went to the drive tools whole, and the hwmon of the device
    its last path names was read as the array's temperature. Every member is read (as a
    simulated array's): the hottest member's temperature, the members' counters summed, only
    channels every member gives; a member that gave nothing is a gap, one without a source leaves
    the array unsampled."""
    outputs = {("nvme", "smart-log", "/dev/nvme0n1", "-o", "json"): NVME, ("smartctl", "-j", "-A", "/dev/sda"): SATA}

    def run(argv: Sequence[str]) -> str | None:
        return outputs.get(tuple(argv))

    sampler = telemetry_sampler("block", "raid0:/dev/sda,/dev/nvme0n1?chunk_kib=64", run)
    assert sampler.drive is not None and sampler.notes == []
    assert sampler.drive.name == "hottest member (/dev/sda: smartctl -A, /dev/nvme0n1: nvme smart-log)"
    assert sampler.drive.read() == sampler.drive.probe == {"temp_c": pytest.approx(77.85)}  # NVMe's, not SATA's 35
    assert array_sample([{"temp_c": 40.0, "thm_temp1_total_s": 3.0}, {"temp_c": 50.0, "thm_temp1_total_s": 4.0}]) \
        == {"temp_c": 50.0, "thm_temp1_total_s": 7.0}
    assert array_sample([{"temp_c": 40.0}, None]) is None
    source, note = array_source(["/dev/nvme0n1", "/dev/sdb"], run, tmp_path)
    assert source is None and note is not None and "for member /dev/sdb" in note and "\n" not in note


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_sampler_rows_and_series(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text("cpu 0 0 0 0 0 0 0 0\n")
    readings = iter([{"temp_c": 50.0, "thm_temp1_total_s": 0.0}, None, {"temp_c": 72.0, "thm_temp1_total_s": 3.0}])
    clock = Clock()
    sampler = Sampler(drive=DriveSource("test", lambda: next(readings)), proc_stat=stat, clock=clock)
    sampler._t0 = 0.0
    sampler._cpu = parse_proc_stat(stat.read_text())
    for i, line in enumerate(("cpu 10 0 10 80 0 0 0 0", "cpu 20 0 30 150 0 0 0 0", "cpu 40 0 30 230 0 0 0 0")):
        stat.write_text(line + "\n")
        clock.t = float(i + 1)
        sampler.sample_once()
    series = sampler.series()
    assert series["t_s"] == (1.0, 2.0, 3.0)
    assert series["cpu_usr_pct"] == (10.0, 10.0, 20.0)
    assert series["temp_c"][0] == 50.0 and math.isnan(series["temp_c"][1]) and series["temp_c"][2] == 72.0
    assert series["throttle_active"][2] == 1.0


def test_sampler_never_asks_more_than_once_a_second() -> None:
    assert Sampler(drive=None, period_s=0.1).period_s == 1.0


def test_sampled_counters_drive_the_throttle_analysis() -> None:
    """Real-drive telemetry in the sampler's channels reaches the thermal analysis (throttle_active)."""
    rates = [1500.0] * 60 + [900.0] * 60
    period = Series(t_s=tuple(float(i + 1) for i in range(120)), write_bytes=tuple(r * 1e6 for r in rates),
                    write_ios=tuple(r for r in rates), read_ios=(0.0,) * 120, read_bytes=(0.0,) * 120,
                    read_lat_sum_ns=(0.0,) * 120, write_lat_sum_ns=(0.0,) * 120)
    telemetry = {"t_s": period.t_s, "temp_c": tuple(40.0 + 0.1 * i for i in range(120)),
                 "throttle_active": tuple(0.0 if i < 60 else 1.0 for i in range(120))}
    m = Measurement(workload=Workload(name="w", pattern="write", block_size_bytes=131072, runtime_s=120),
                    engine="fio", runtime_s=120.0, series=period, telemetry=telemetry)
    result = analyze_measurement(m, ThrottleConfig())
    assert result.cause == "thermal" and any("indicator" in e for e in result.evidence)


def test_notes_reach_the_measurement() -> None:
    sampler = telemetry_sampler("file", "file:/tmp/x")
    m = Measurement(workload=Workload(name="w", pattern="read", block_size_bytes=4096, runtime_s=1), engine="fio",
                    runtime_s=1.0)
    out = with_telemetry(m, sampler)
    assert "not a block device" in str(out.engine_facts["telemetry_note"])
    assert with_telemetry(m, None) is m


@pytest.mark.fio
def test_fio_run_carries_host_cpu_telemetry(tmp_path: Path) -> None:
    from ssdlab.engines.base import RunContext
    from ssdlab.engines.fio import FioEngine
    from ssdlab.report.cpu import telemetry_notes
    from ssdlab.targets import parse_target

    target = parse_target(f"file:{tmp_path / 'scratch'}?size=64m")
    workload = Workload(name="r", pattern="randread", block_size_bytes=4096, runtime_s=2.5, span_bytes=32 << 20)
    m = FioEngine().measure(target, workload, RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path))
    assert len(m.telemetry["t_s"]) >= 1 and "cpu_sys_pct" in m.telemetry
    assert telemetry_notes({"r": m}) == ("Telemetry: drive temperature: not sampled (the target is not a block "
                                          "device).",)


@pytest.mark.fio
def test_fio_hands_the_run_s_target_facts_to_the_sampler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine makes its sampler from RunContext.target_facts (the drive's id-ctrl facts read as
    the run began), so the sampler does not ask the drive for them at every measurement."""
    from ssdlab.engines import fio
    from ssdlab.engines.base import RunContext
    from ssdlab.targets import parse_target

    given: list[object] = []

    def sampler(kind: str, spec: str, run: object = None, facts: object = None) -> Sampler:
        given.append(facts)
        return telemetry_sampler(kind, spec)

    monkeypatch.setattr(fio, "telemetry_sampler", sampler)
    target = parse_target(f"file:{tmp_path / 'scratch'}?size=16m")
    facts = target.info()
    workload = Workload(name="r", pattern="randread", block_size_bytes=4096, runtime_s=1, span_bytes=8 << 20)
    fio.FioEngine().measure(target, workload, RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path,
                                                         target_facts=facts))
    assert given == [facts]
