"""An NVMe drive's thermal-management counters as a throttle indicator only where they count.

The SMART log's thm_temp1/2_trans_count and thm_temp1/2_total_time count host controlled thermal
management's transitions and seconds (NVMe base spec, SMART / Health log; libnvme's struct
nvme_smart_log: "because of the host controlled thermal management feature … A value of 0h
indicates that this transition has never occurred or this field is not implemented"), which
id-ctrl's HCTMA bit 0 says a drive supports. nvme-cli prints them whatever the drive supports
(nvme-print-json.c, json_smart_log), so a drive without HCTM read as a drive whose indicator was
off throughout: a phase begun hot 'showed no throttling' by it, and the hot-start rule (no verdict
for a phase begun at or above the warning temperature without an indicator) did not fire.

A drive that supports HCTM transitions only at a threshold the host set (feature 0x10, TMT1 / TMT2,
0 = unset), so one with neither set counts nothing either; and the sampler takes what the run read
of the drive as it began (RunContext.target_facts) rather than asking it again at every measurement.

The drives are tests/fixtures/cmd/nvme-id-ctrl-{no-hctm,hctm}.json and
tests/fixtures/telemetry/nvme-smart-log-no-hctm.json: made up in nvme-cli 2.x's JSON layout (the
950 PRO recording's fields, with WCTEMP, CCTEMP, HCTMA, MNTMT and MXTMT changed; this machine has no
NVMe drive to record one from); their thresholds tests/fixtures/cmd/nvme-get-feature-hctm-*.txt,
made up in nvme-cli 2.x's text layout (tests/fixtures/cmd/README.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from ssdlab.measurement import Measurement, OpTotals, Series
from ssdlab.methods import get_test
from ssdlab.methods.base import TestResults
from ssdlab.methods.thermal import ThermalParams
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sysinfo import BlockFacts, apply_nvme, hctm_facts
from ssdlab.telemetry.sampler import DriveSource, Sampler, drive_source, telemetry_sampler, with_telemetry
from ssdlab.units import kelvin_to_c
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NO_HCTM = (FIXTURES / "cmd" / "nvme-id-ctrl-no-hctm.json").read_text()
HCTM = (FIXTURES / "cmd" / "nvme-id-ctrl-hctm.json").read_text()
ENABLED = (FIXTURES / "cmd" / "nvme-get-feature-hctm-enabled.txt").read_text()  # TMT1 / TMT2 349 / 354 K
DISABLED = (FIXTURES / "cmd" / "nvme-get-feature-hctm-disabled.txt").read_text()  # neither set
SMART_LOG = json.loads((FIXTURES / "telemetry" / "nvme-smart-log-no-hctm.json").read_text())
COUNTERS = ("thm_temp1_trans_count", "thm_temp2_trans_count", "thm_temp1_total_time", "thm_temp2_total_time")
TEST = get_test("thermal")
PARAMS = ThermalParams()
SECONDS = 200


class Drive:
    """An NVMe drive answering `nvme smart-log`, `nvme id-ctrl` and `nvme get-feature -f 0x10`
    (`feature`, None: no answer) as nvme-cli prints them, keeping the commands it was asked in
    `calls`: from `start_k` (349 K, 75.85 °C, the fixture's) up 1 K every 40 s; `throttling`: the
    drive counts a second of thermal management each second (thm_temp1_total_time), else the
    counters stay 0 as on the fixture."""

    def __init__(self, id_ctrl: str | None, throttling: bool = False, start_k: int = 349,
                 feature: str | None = None) -> None:
        self.t = 0.0
        self.id_ctrl = id_ctrl
        self.throttling = throttling
        self.start_k = start_k
        self.feature = feature
        self.calls: list[tuple[str, ...]] = []

    def clock(self) -> float:
        return self.t

    def __call__(self, argv: Sequence[str]) -> str | None:
        self.calls.append(tuple(argv))
        if tuple(argv[:2]) == ("nvme", "id-ctrl"):
            return self.id_ctrl
        if tuple(argv[:2]) == ("nvme", "get-feature") and tuple(argv[3:]) == ("-f", "0x10"):
            return self.feature
        if tuple(argv[:2]) == ("nvme", "smart-log"):
            log = {**SMART_LOG, "temperature": self.start_k + int(self.t // 40)}
            if self.throttling:
                log |= {"thm_temp1_trans_count": 1, "thm_temp1_total_time": int(self.t)}
            return json.dumps(log)
        return None


def sampler_on(drive: Drive, source: DriveSource | None = None) -> Sampler:
    """The sampler beside a SECONDS-long phase: a reading at each whole second, as fio's periods end."""
    if source is None:
        source, note = drive_source("/dev/nvme0n1", drive, Path("/nonexistent"))
        assert source is not None and note is None
    sampler = Sampler(drive=source, proc_stat=Path("/nonexistent/stat"), clock=drive.clock)
    sampler._t0 = 0.0
    sampler._last_drive = source.probe  # as start() takes it
    for k in range(1, SECONDS + 1):
        drive.t = float(k)
        sampler.sample_once()
    return sampler


def phase(name: str, sampler: Sampler) -> Measurement:
    """A phase writing 320 MB/s throughout, with the sampler's rows beside it."""
    n, t_s = SECONDS, tuple(float(i + 1) for i in range(SECONDS))
    series = Series(period_s=1.0, t_s=t_s, read_ios=(0.0,) * n, write_ios=(2441.0,) * n, read_bytes=(0.0,) * n,
                    write_bytes=(320e6,) * n, read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    w = Workload(name=name, pattern="write", block_size_bytes=131072, runtime_s=n)
    m = Measurement(workload=w, engine="fio", runtime_s=float(n), series=series,
                    write=OpTotals(ios=2441 * n, bytes=int(320e6 * n), lat_sum_ns=0.0))
    return with_telemetry(m, sampler)


def nvme_facts(id_ctrl: str, feature: str | None = None) -> dict[str, object]:
    """The drive's extra["nvme"] as sysinfo records it from its id-ctrl (its warning temperature,
    its HCTM) and, where it has HCTM, its get-feature 0x10 (`feature`)."""
    facts = BlockFacts(name="nvme0n1", disk="nvme0n1", transport="nvme", capacity_bytes=10**12)
    ctrl = json.loads(id_ctrl)
    apply_nvme(facts, ctrl, hctm_facts(ctrl, Drive(id_ctrl, feature=feature), "/dev/nvme0n1"))
    nvme = facts.extra["nvme"]
    assert isinstance(nvme, dict)
    return nvme


def nvme_target(id_ctrl: str, feature: str | None = None) -> TargetInfo:
    """The drive as the runner reads it as a run begins (Target.info)."""
    return TargetInfo(spec="/dev/nvme0n1", kind="block", capacity_bytes=10**12,
                      extra={"nvme": nvme_facts(id_ctrl, feature)})


def verdict_on(id_ctrl: str, throttling: bool = False, start_k: int = 349) -> tuple[dict[str, object], Verdict]:
    phases = {name: phase(name, sampler_on(Drive(id_ctrl, throttling, start_k)))
              for name in ("thermal-seq", "thermal-rnd")}
    metrics = TEST.analyze(PARAMS, nvme_target(id_ctrl), TestResults(measurements=phases))
    (verdict,) = TEST.verdicts(PARAMS, metrics)
    return dict(metrics), verdict


def test_the_counters_of_a_drive_without_hctm_are_no_throttle_indicator() -> None:
    """They are kept as read (0 throughout), but no throttle flag is made of them: it read 0, off."""
    series = sampler_on(Drive(NO_HCTM)).series()
    assert all(set(series[key]) == {0.0} for key in ("thm_temp1_trans_count", "thm_temp1_total_s"))
    assert "throttle_active" not in series  # was 0.0 in every row but the first
    assert series["temp_c"][0] == kelvin_to_c(349)


@pytest.mark.parametrize("id_ctrl", [HCTM, None], ids=["hctm", "no id-ctrl answer"])
def test_a_drive_with_hctm_or_unknown_keeps_its_indicator(id_ctrl: str | None) -> None:
    """HCTMA bit 0 set: the counters count, and a second of thermal management sets the flag. No
    id-ctrl answer (nvme-cli without it, no permission): the counters are taken as before."""
    assert sampler_on(Drive(id_ctrl, throttling=True)).series()["throttle_active"] == (1.0,) * SECONDS
    assert sampler_on(Drive(id_ctrl)).series()["throttle_active"] == (0.0,) * SECONDS


def test_an_array_with_a_member_without_hctm_has_no_indicator() -> None:
    """The members' counters are summed: one that counts nothing would pass as never throttled."""
    hctm, plain = Drive(HCTM), Drive(NO_HCTM)

    def run(argv: Sequence[str]) -> str | None:
        return (plain if "/dev/nvme1n1" in argv else hctm)(argv)

    mixed = telemetry_sampler("block", "raid0:/dev/nvme0n1,/dev/nvme1n1", run)
    assert mixed.drive is not None and mixed.drive.counters_indicate is False
    both = telemetry_sampler("block", "raid0:/dev/nvme0n1,/dev/nvme2n1", run)
    assert both.drive is not None and both.drive.counters_indicate is True


def test_a_phase_begun_hot_on_a_drive_without_hctm_has_no_verdict() -> None:
    """Both phases began at 75.85 °C, over the drive's 71.85 °C (345 K) WCTEMP, at a flat 320 MB/s.
    Was 'No thermal throttling': the counters' 0 read as the indicator off at the peak level."""
    metrics, verdict = verdict_on(NO_HCTM)
    assert metrics["seq_peak_indicator_pct"] is None and metrics["seq_start_temp_c"] == kelvin_to_c(349)
    assert metrics["warning_temp_c"] == kelvin_to_c(345)
    assert verdict.outcome == "inconclusive"
    assert verdict.summary == ("No verdict: the sequential write and random write phases began hot, on a drive "
                               "without a throttle indicator")
    assert "at or above the drive's 71.85 °C (345 K) warning temperature, and the drive reports no throttle " \
           "indicator" in verdict.because


def test_a_drive_with_hctm_is_judged_by_its_counters_as_before() -> None:
    """Its counters off at the peak level: not throttled there, though it began at 86.85 °C, over
    its 83.85 °C (357 K) WCTEMP (judged 'no'); counting a second of thermal management each second:
    throttled from the start."""
    metrics, told = verdict_on(HCTM, start_k=360)
    assert metrics["seq_start_temp_c"] == kelvin_to_c(360) and metrics["warning_temp_c"] == kelvin_to_c(357)
    assert metrics["seq_peak_indicator_pct"] == 0.0 and told.outcome == "no"
    _, hot = verdict_on(HCTM, throttling=True)
    assert hot.outcome == "yes" and hot.summary.startswith("Throttles from heat from the start")


def test_a_drive_with_hctm_not_enabled_has_no_indicator() -> None:
    """HCTM supported, but the host set neither threshold: the drive never transitions, and its
    counters read 0 however hot it runs. Was a flag of 0 throughout ('never throttled'). (Where
    get-feature gives no answer, whether it is enabled is not known: taken as before, above.)"""
    series = sampler_on(Drive(HCTM, feature=DISABLED)).series()
    assert set(series["thm_temp1_total_s"]) == {0.0} and "throttle_active" not in series


def test_a_drive_with_hctm_enabled_keeps_its_indicator() -> None:
    assert sampler_on(Drive(HCTM, throttling=True, feature=ENABLED)).series()["throttle_active"] == (1.0,) * SECONDS
    assert sampler_on(Drive(HCTM, feature=ENABLED)).series()["throttle_active"] == (0.0,) * SECONDS


def test_the_sampler_asks_the_drive_nothing_the_run_read_as_it_began() -> None:
    """Each measurement makes a sampler; with the facts the runner read as the run began
    (RunContext.target_facts) the drive is asked its SMART log only, not `nvme id-ctrl` and
    `nvme get-feature` again each time. Without them (a caller that has none), it is asked."""
    drive = Drive(HCTM, feature=DISABLED)
    facts = nvme_target(HCTM, DISABLED)
    for _ in range(3):
        sampler = telemetry_sampler("block", "/dev/nvme0n1", drive, facts)
        assert sampler.drive is not None and sampler.drive.counters_indicate is False
    assert {call[:2] for call in drive.calls} == {("nvme", "smart-log")} and len(drive.calls) == 3
    drive.calls.clear()
    assert telemetry_sampler("block", "/dev/nvme0n1", drive).drive.counters_indicate is False  # type: ignore[union-attr]
    assert [call[:2] for call in drive.calls] == [("nvme", "smart-log"), ("nvme", "id-ctrl"), ("nvme", "get-feature")]


def test_an_array_s_members_are_asked_nothing_the_run_read_as_it_began() -> None:
    """A RAID-0's facts hold each member's (raid0_members, by its spec): one member with HCTM not
    enabled leaves the array without an indicator, and neither member is asked again."""
    drive = Drive(HCTM, feature=ENABLED)
    members = [{"spec": "/dev/nvme0n1", "nvme": nvme_facts(HCTM, ENABLED)},
               {"spec": "/dev/nvme1n1", "nvme": nvme_facts(HCTM, DISABLED)}]
    facts = TargetInfo(spec="raid0:/dev/nvme0n1,/dev/nvme1n1", kind="block", capacity_bytes=2 * 10**12,
                       extra={"raid0_members": members})
    sampler = telemetry_sampler("block", facts.spec, drive, facts)
    assert sampler.drive is not None and sampler.drive.counters_indicate is False
    assert {call[:2] for call in drive.calls} == {("nvme", "smart-log")}
    members[1]["nvme"] = nvme_facts(HCTM, ENABLED)
    both = telemetry_sampler("block", facts.spec, drive, facts.model_copy(update={"extra": {"raid0_members": members}}))
    assert both.drive is not None and both.drive.counters_indicate is True
    assert {call[:2] for call in drive.calls} == {("nvme", "smart-log")}
