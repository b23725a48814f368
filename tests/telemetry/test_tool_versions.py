"""What the drive tools of other versions print, through the telemetry and identity readers: nvme-cli
1.x and 2.x (numbers, or decimal strings from a build on json-c < 0.14), a drive with no temperature
(0 K: emulated and cloud NVMe), smartctl 7.2 / 7.4 on NVMe, SATA behind USB and SAS. Each gives the
right figures or none, never a wrong one (-273.15 °C), never a traceback. The outputs and where they
come from: tests/fixtures/versions/README.md."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.targets.sysinfo import BlockFacts, apply_nvme, apply_smartctl
from ssdlab.telemetry.sampler import NO_TEMPERATURE, drive_source
from ssdlab.telemetry.sources import (
    parse_nvme_smart_log,
    parse_smartctl_attributes,
    read_hwmon,
    throttle_active,
)

VERSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "versions"


def fixture(name: str) -> str:
    return (VERSIONS / name).read_text()


def test_nvme_cli_1x_numbers_in_kelvin() -> None:
    sample = parse_nvme_smart_log(fixture("nvme-smart-log-samsung-pm983.json"))
    assert sample is not None
    assert math.isclose(sample["temp_c"], 322 - 273.15)
    assert [round(sample[f"temp_sensor{n}_c"], 2) for n in (1, 2, 3)] == [48.85, 52.85, 56.85]
    assert sample["thm_temp1_trans_count"] == 0 and sample["warning_temp_min"] == 0


def test_nvme_cli_on_old_json_c_gives_its_counters_as_strings() -> None:
    """nvme-cli 2.x built against json-c < 0.14 writes unsigned fields as "5": the throttle counters
    were dropped (read as numbers only) and a drive that throttled showed no throttling."""
    sample = parse_nvme_smart_log(fixture("nvme-smart-log-jsonc013.json"))
    assert sample is not None
    assert math.isclose(sample["temp_c"], 349 - 273.15)
    assert sample["thm_temp1_trans_count"] == 5.0 and sample["thm_temp1_total_s"] == 125.0
    assert sample["warning_temp_min"] == 3.0 and sample["critical_temp_min"] == 0.0
    before = parse_nvme_smart_log(fixture("nvme-smart-log-samsung-pm983.json"))
    assert before is not None
    assert throttle_active({**before, "thm_temp1_total_s": 0.0}, sample) == 1.0


def test_a_drive_at_0_kelvin_reports_no_temperature() -> None:
    """Composite 0 K (no sensor: propolis, AWS) was recorded as -273.15 °C."""
    assert json.loads(fixture("nvme-smart-log-0K.json"))["temperature"] == 0
    sample = parse_nvme_smart_log(fixture("nvme-smart-log-0K.json"))
    assert sample is not None
    assert not any(key.startswith("temp") for key in sample)
    assert sample["thm_temp1_trans_count"] == 0  # its counters are kept


def test_no_kelvin_under_the_lowest_reading_is_a_temperature(tmp_path: Path) -> None:
    """Hypothesis found 5.8e-196 K (only 0 was refused) drawn as -273.15 °C: anything under -100 °C
    is no reading, whichever way it comes."""
    for kelvin in (5.767095474207026e-196, 0.5, 1, 173):
        sample = parse_nvme_smart_log(json.dumps({"temperature": kelvin, "temperature_sensor_1": kelvin}))
        assert sample is not None and not any(key.startswith("temp") for key in sample), kelvin
    assert parse_nvme_smart_log(json.dumps({"temperature": 233}))["temp_c"] == pytest.approx(-40.15)  # type: ignore[index]
    hwmon = tmp_path / "temp1_input"
    for millidegrees, reading in (("-100001", None), ("-99000", {"temp_c": -99.0})):
        hwmon.write_text(millidegrees)
        assert read_hwmon(hwmon) == reading


def test_hwmon_of_a_drive_at_0_kelvin_is_no_reading(tmp_path: Path) -> None:
    """The kernel's nvme hwmon gives such a drive -273150 m°C (propolis issue #1213)."""
    hwmon = tmp_path / "temp1_input"
    hwmon.write_text("-273150\n")
    assert read_hwmon(hwmon) is None
    hwmon.write_text("-5000\n")  # a real reading below 0 °C stays one
    assert read_hwmon(hwmon) == {"temp_c": -5.0}


def test_the_sampler_says_why_a_drive_has_no_temperature(tmp_path: Path) -> None:
    def run(argv: list[str]) -> str | None:
        return fixture("nvme-smart-log-0K.json") if argv[:2] == ["nvme", "smart-log"] else None

    source, note = drive_source("/dev/nvme0n1", run, tmp_path, known={"hctm": False})
    assert source is not None and source.name == "nvme smart-log"
    assert note == NO_TEMPERATURE


def test_smartctl_7x_temperatures() -> None:
    assert parse_smartctl_attributes(fixture("smartctl-7.4-nvme.json")) == {"temp_c": 48.0}
    assert parse_smartctl_attributes(fixture("smartctl-7.2-scsi.json")) == {"temp_c": 24.0}
    # A SATA SSD behind USB with neither attribute 194 nor 190: no temperature, not 0 °C.
    assert parse_smartctl_attributes(fixture("smartctl-7.4-sat-usb.json")) is None


def test_smartctl_identity_of_nvme_sat_and_sas_drives() -> None:
    facts = {name: BlockFacts(name="sdb", disk="sdb", capacity_bytes=1) for name in ("nvme", "usb", "scsi")}
    apply_smartctl(facts["nvme"], json.loads(fixture("smartctl-7.4-nvme.json")))
    apply_smartctl(facts["usb"], json.loads(fixture("smartctl-7.4-sat-usb.json")))
    apply_smartctl(facts["scsi"], json.loads(fixture("smartctl-7.2-scsi.json")))
    assert (facts["nvme"].model, facts["nvme"].serial, facts["nvme"].firmware) == \
        ("Sabrent Rocket 4.0 1TB", "6D1107091C9583054511", "RKT401.3")
    assert (facts["usb"].firmware, facts["usb"].rotational, facts["usb"].extra["smartctl"]["interface_speed"]) == \
        ("3", False, "3.0 Gb/s")
    # A SAS disk's firmware is its `revision` (smartctl writes no firmware_version for SCSI).
    assert (facts["scsi"].model, facts["scsi"].firmware, facts["scsi"].rotational) == ("XXXX XX0000NM123", "RSL5", True)


# ---- any JSON shape ------------------------------------------------------------------------------

LEAVES = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True)
          | st.text(max_size=6) | st.sampled_from(["0", "310", "12", "-1", "0x10", "١٢", " 5 "]))
KEYS = st.sampled_from(["temperature", "temperature_sensor_1", "thm_temp1_total_time", "thm_temp1_trans_count",
                        "warning_temp_time", "critical_comp_time", "current", "ata_smart_attributes", "table",
                        "id", "raw", "value", "device", "protocol", "model_name", "serial_number",
                        "firmware_version", "revision", "rotation_rate", "interface_speed", "trim", "user_capacity",
                        "mn", "sn", "fr", "vwc", "oncs", "wctemp", "cctemp", "hctma"]) | st.text(max_size=3)
DOCUMENTS = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=8),
                         max_leaves=30)
IDS = st.sampled_from([194, 190, 9])


def _samples_are_figures(sample: dict[str, float] | None) -> None:
    assert sample is None or all(math.isfinite(v) for v in sample.values())
    assert sample is None or all(v > -273.15 for k, v in sample.items() if k.startswith("temp"))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(DOCUMENTS, IDS)
def test_any_tool_output_gives_figures_or_none(document: Any, attribute: int) -> None:
    """Whatever JSON a tool prints: a sample of finite figures (no temperature at or below absolute
    zero) or None, and the identity readers take any object without a traceback."""
    for text in (json.dumps(document), json.dumps({"ata_smart_attributes": {"table": [{"id": attribute,
                                                                                       "raw": document}]}})):
        _samples_are_figures(parse_nvme_smart_log(text))
        _samples_are_figures(parse_smartctl_attributes(text))
    if isinstance(document, dict):
        facts = BlockFacts(name="sda", disk="sda", capacity_bytes=1)
        apply_smartctl(facts, document)
        apply_nvme(facts, document)
        assert facts.firmware is None or isinstance(facts.firmware, str)


def test_a_sata_temperature_attribute_of_0_is_no_reading() -> None:
    """Attribute 194 with a raw low byte of 0 (no sensor) was drawn as 0 °C; smartctl itself takes a
    temperature only in 1..127 (ata_return_temperature_value) and then gives `temperature`."""
    def table(raw: int) -> str:
        return json.dumps({"ata_smart_attributes": {"table": [{"id": 194, "raw": {"value": raw}}]}})

    assert parse_smartctl_attributes(table(0)) is None
    assert parse_smartctl_attributes(table(0x3200140000)) is None  # min / max in the high bytes, none now
    assert parse_smartctl_attributes(table(150323855395)) == {"temp_c": 35.0}  # "35 (Min/Max 20/50)"
