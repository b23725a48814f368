"""What sysinfo records of a drive's thermal facts from `nvme id-ctrl -o json`: its warning and
critical temperatures (WCTEMP, CCTEMP) on its readings' scale, and whether it supports host
controlled thermal management (HCTMA bit 0), whose transitions alone the SMART log's
thermal-management counters count.

NVMe gives temperatures in whole kelvin; nvme-cli's JSON prints them as such (id-ctrl `wctemp`,
`cctemp`; smart-log `temperature`, `temperature_sensor_N`). sysinfo recorded WCTEMP as kelvin less
273, a reading was kelvin less 273.15: one conversion (units.kelvin_to_c) now serves both, and a
bundle recorded before keeps its meaning (its 70 is 343 K)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ssdlab.methods.thermal import warning_temp_c
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sysinfo import (
    BlockFacts,
    HctmThresholds,
    apply_nvme,
    enrich,
    hctm_counts,
    hctm_supported,
    parse_hctm_feature,
    recorded_threshold_kelvin,
)
from ssdlab.telemetry.sources import parse_nvme_smart_log
from ssdlab.units import kelvin_to_c

CMD = Path(__file__).resolve().parents[1] / "fixtures" / "cmd"


def id_ctrl(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CMD / f"nvme-id-ctrl-{name}.json").read_text())
    return data


def recorded(ctrl: dict[str, Any]) -> dict[str, Any]:
    facts = BlockFacts(name="nvme0n1", disk="nvme0n1", transport="nvme", capacity_bytes=10**12)
    apply_nvme(facts, ctrl)
    nvme = facts.extra["nvme"]
    assert isinstance(nvme, dict)
    return nvme


def target(nvme: dict[str, Any]) -> TargetInfo:
    """A target whose bundle recorded `nvme` as its id-ctrl facts, through run.json's JSON."""
    info = TargetInfo(spec="/dev/nvme0n1", kind="block", capacity_bytes=10**12, extra={"nvme": nvme})
    return TargetInfo.model_validate_json(info.model_dump_json())


@pytest.mark.parametrize(("name", "warning_c", "critical_c", "hctm"), [
    ("no-hctm", 71.85, 81.85, False),  # 345 K, 355 K: were 72 and 82
    ("hctm", 83.85, 87.85, True),  # 357 K, 361 K
    ("950pro", None, None, False),  # WCTEMP and CCTEMP 0: none reported
])
def test_id_ctrl_thresholds_on_the_readings_scale_and_hctm(name: str, warning_c: float | None,
                                                           critical_c: float | None, hctm: bool) -> None:
    nvme = recorded(id_ctrl(name))
    assert (nvme["warning_temp_c"], nvme["critical_temp_c"], nvme["hctm"]) == (warning_c, critical_c, hctm)


def test_hctm_is_unknown_without_hctma() -> None:
    """An nvme-cli that prints no hctma, or no id-ctrl at all: not known, so not 'unsupported'."""
    assert hctm_supported({"mn": "X"}) is None and hctm_supported(None) is None
    assert recorded({"mn": "X", "wctemp": 345})["hctm"] is None
    assert hctm_supported({"hctma": 0x3}) is True  # bit 0; other bits are other attributes


def test_a_drive_at_its_warning_temperature_reads_at_it() -> None:
    """The reading of a drive at exactly its WCTEMP equals its warning temperature, to the bit."""
    log = json.dumps({"temperature": 345, "temperature_sensor_1": 345})
    sample = parse_nvme_smart_log(log)
    assert sample is not None
    assert sample["temp_c"] == sample["temp_sensor1_c"] == kelvin_to_c(345)
    assert warning_temp_c(target(recorded(id_ctrl("no-hctm")))) == sample["temp_c"]


@pytest.mark.parametrize(("stored", "kelvin"), [(70, 343), (69.85, 343), (72, 345), (71.85, 345), (None, None),
                                                (True, None), ("70", None)])
def test_a_recorded_threshold_gives_back_the_drives_kelvin(stored: object, kelvin: int | None) -> None:
    """An integer is an old bundle's (whole kelvin less 273); kelvin less 273.15 never is one."""
    assert recorded_threshold_kelvin(stored) == kelvin


def test_an_old_bundles_warning_temperature_keeps_its_meaning() -> None:
    """A bundle recorded before kept 343 K as 70: it is held against the readings as 343 K still,
    as a bundle recorded now keeps it (69.85), not as 70 °C."""
    old = target({"warning_temp_c": 70, "critical_temp_c": 80})
    new = target(recorded({"mn": "X", "wctemp": 343, "cctemp": 353}))
    nvme = new.extra["nvme"]
    assert isinstance(nvme, dict) and nvme["warning_temp_c"] == 69.85
    assert warning_temp_c(old) == warning_temp_c(new) == kelvin_to_c(343)


FEATURE = "get-feature:0x10 (Host Controlled Thermal Management), Current value:{}\n"


@pytest.mark.parametrize(("text", "thresholds"), [
    ((CMD / "nvme-get-feature-hctm-enabled.txt").read_text(), HctmThresholds(349, 354)),
    ((CMD / "nvme-get-feature-hctm-disabled.txt").read_text(), HctmThresholds(0, 0)),  # printf drops 0's 0x
    (FEATURE.format("0x015D0000"), HctmThresholds(349, 0)),  # TMT2 unset
    ("\n" + FEATURE.format("0x00000162") + "\n", HctmThresholds(0, 354)),
    ("get-feature:0x04 (Temperature Threshold), Current value:0x0000015d\n", None),  # another feature
    (FEATURE.format("").replace("Current", "Default"), None),
    ("NVMe status: Invalid Field in Command: A reserved coded value or an unsupported value in a defined "
     "field(0x2)\n", None),
    ("", None),
])
def test_get_feature_hctm_is_split_into_tmt1_and_tmt2(text: str, thresholds: HctmThresholds | None) -> None:
    """`nvme get-feature DEVICE -f 0x10`: TMT1 bits 31:16, TMT2 bits 15:0, whole kelvin, 0 unset."""
    assert parse_hctm_feature(text) == thresholds


class Drive:
    """Answers id-ctrl with a fixture, get-feature 0x10 with `feature`; keeps what it was asked."""

    def __init__(self, id_ctrl: str, feature: str | None) -> None:
        self.id_ctrl, self.feature = (CMD / f"nvme-id-ctrl-{id_ctrl}.json").read_text(), feature
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Any) -> str | None:
        self.calls.append(tuple(argv))
        if tuple(argv[:2]) == ("nvme", "id-ctrl"):
            return self.id_ctrl
        return self.feature if tuple(argv) == ("nvme", "get-feature", "/dev/nvme0n1", "-f", "0x10") else None


def enriched(drive: Drive) -> dict[str, Any]:
    facts = enrich(BlockFacts(name="nvme0n1", disk="nvme0n1", transport="nvme", capacity_bytes=10**12), drive,
                   "/dev/nvme0n1")
    nvme = facts.extra["nvme"]
    assert isinstance(nvme, dict)
    return nvme


def test_a_drive_with_hctm_records_its_thresholds_in_kelvin_and_celsius() -> None:
    nvme = enriched(Drive("hctm", (CMD / "nvme-get-feature-hctm-enabled.txt").read_text()))
    assert nvme["hctm"] is True
    assert nvme["hctm_thresholds"] == {"tmt1_k": 349, "tmt2_k": 354, "tmt1_c": 75.85, "tmt2_c": 80.85}
    assert hctm_counts(nvme) is True
    unset = enriched(Drive("hctm", (CMD / "nvme-get-feature-hctm-disabled.txt").read_text()))
    assert unset["hctm_thresholds"] == {"tmt1_k": 0, "tmt2_k": 0, "tmt1_c": None, "tmt2_c": None}
    assert hctm_counts(unset) is False  # supported, not enabled: it never transitions
    silent = enriched(Drive("hctm", None))
    assert silent["hctm_thresholds"] is None and hctm_counts(silent) is None  # asked, no answer: unknown


def test_a_drive_without_hctm_is_not_asked_for_its_thresholds() -> None:
    drive = Drive("no-hctm", "get-feature:0x10 (Host Controlled Thermal Management), Current value:0x015d0162\n")
    nvme = enriched(drive)
    assert "hctm_thresholds" not in nvme and hctm_counts(nvme) is False
    assert not any(call[:2] == ("nvme", "get-feature") for call in drive.calls)
    assert hctm_counts({"mn": "X"}) is None and hctm_counts({"hctm": None}) is None
