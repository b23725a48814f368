"""Temperature readings no drive gives are no readings (telemetry/sources.py): a sensor's all-ones
field (65535 K in the SMART log, 65261850 m°C in hwmon) or smartctl's current 0 °C of a drive with
no sensor. Taken as readings they became a drive at 65261.85 °C (its phase's start and hottest
second, the slowdown voted GC / cache) or at 0 °C (a 60 °C "rise" voted heat). The drive's
counters are still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ssdlab.telemetry.sources import parse_nvme_smart_log, parse_smartctl_attributes, read_hwmon


@pytest.mark.parametrize("kelvin", [65535, 1000, 424])
def test_nvme_reading_over_any_drive_is_none(kelvin: int) -> None:
    sample = parse_nvme_smart_log(json.dumps({"temperature": kelvin, "temperature_sensor_1": kelvin,
                                              "thm_temp1_total_time": 7}))
    assert sample == {"thm_temp1_total_s": 7.0}


def test_nvme_hot_but_real_reading_is_kept() -> None:
    sample = parse_nvme_smart_log(json.dumps({"temperature": 358, "thm_temp1_total_time": 0}))
    assert sample is not None and sample["temp_c"] == pytest.approx(84.85)


@pytest.mark.parametrize(("millidegrees", "expected"), [("65261850", None), ("255000", None), ("-273150", None),
                                                        ("71000", {"temp_c": 71.0})])
def test_hwmon_reading_range(tmp_path: Path, millidegrees: str, expected: dict[str, float] | None) -> None:
    path = tmp_path / "temp1_input"
    path.write_text(millidegrees + "\n")
    assert read_hwmon(path) == expected


@pytest.mark.parametrize("current", [0, 255, 65535])
def test_smartctl_current_outside_its_range_is_none(current: int) -> None:
    assert parse_smartctl_attributes(json.dumps({"temperature": {"current": current}})) is None


def test_smartctl_current_in_range_is_kept() -> None:
    assert parse_smartctl_attributes(json.dumps({"temperature": {"current": 41}})) == {"temp_c": 41}
