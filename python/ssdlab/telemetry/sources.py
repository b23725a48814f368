"""Readers of one telemetry sample each: drive temperature and throttle counters, host CPU.

Every reader goes through a command runner (argv -> stdout or None, targets/sysinfo.py) or a
path, so tests feed recorded outputs. A reader returns a flat {channel: value} dict, or
None when its source gave nothing usable. Channels (units in the names):

- temp_c: the drive's composite temperature; temp_sensor<N>_c its sensors;
- thm_temp1_trans_count, thm_temp2_trans_count: NVMe thermal-management transitions
  (light / heavy throttling), cumulative; thm_temp1_total_s, thm_temp2_total_s: seconds
  spent in them, cumulative (the NVMe base spec counts host controlled thermal management's
  only, id-ctrl HCTMA with a threshold the host set, targets/sysinfo.hctm_counts: 0 on a drive
  without it, which nvme-cli prints all the same); warning_temp_min, critical_temp_min: minutes above the
  warning / critical composite temperature, cumulative;
- cpu_usr_pct, cpu_sys_pct, cpu_iowait_pct: host CPU over the last interval, % of all CPUs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.targets.sysinfo import CommandRunner, json_object
from ssdlab.units import c_to_kelvin, kelvin_to_c

Sample = dict[str, float]


_DECIMAL = re.compile(r"[0-9]{1,20}")


def _number(value: Any) -> float | None:
    """A finite figure: a JSON number, or one nvme-cli wrote as a decimal string. nvme-cli 2.2 and
    newer built against json-c older than 0.14 write every unsigned field (thm_temp1_trans_count,
    thm_temp1_total_time, warning_temp_time...) as a string ("4"): util/json.c,
    util_json_object_new_uint64 (src/nvme-json.c on nvme-cli's master); read as numbers only, the
    thermal counters of such a build were dropped and throttling went unseen (QA)."""
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float: no figure a drive gives
        return None
    return number if math.isfinite(number) else None


# No drive reads below this: -100 °C, far under the -40 °C the widest (industrial) ratings start at.
# What reads lower is no reading (0 K is the NVMe "not reported"; hypothesis found 6e-196 K drawn as
# -273.15 °C where only 0 was refused).
LOWEST_READING_K = 173.15
# Nor above this: 150 °C, the highest junction temperature silicon is rated for (AEC-Q100 grade 0),
# far over any drive's critical temperature. What reads higher is a sensor's sentinel or garbage:
# an NVMe temperature field of all ones (65535 K) was taken as a drive at 65261.85 °C, its phase's
# start and hottest second, and voted its slowdown GC / cache (QA).
HIGHEST_READING_K = 423.15


def drive_kelvin(value: Any) -> float | None:
    """A temperature the drive gave in kelvin, None when it gave none: 0 K is an NVMe drive with
    no sensor (an emulated or cloud NVMe: AWS's, propolis's), which nvme-cli prints as 0 and the
    kernel's hwmon as -273150 m°C; taken as a reading it made the drive -273.15 °C (QA). smartctl
    leaves such a temperature out (nvmeprint.cpp: `if (k)`). A reading outside any drive's range
    (plausible_kelvin) is none either."""
    kelvin = _number(value)
    return kelvin if kelvin is not None and plausible_kelvin(kelvin) else None


def plausible_kelvin(kelvin: float) -> bool:
    """Whether a reading is one a drive can give: LOWEST_READING_K to HIGHEST_READING_K."""
    return LOWEST_READING_K <= kelvin <= HIGHEST_READING_K


def parse_nvme_smart_log(text: str) -> Sample | None:
    """`nvme smart-log -o json`: temperatures are in kelvin; the thermal-management times in
    seconds, the warning / critical temperature times in minutes (NVMe base spec, SMART log).
    A drive that reports no temperature (0 K, drive_kelvin) gives its counters without temp_c."""
    try:
        data = json.loads(text)
    except ValueError:  # not JSON, or JSON whose numbers overflow a float
        return None
    if not isinstance(data, dict) or _number(data.get("temperature")) is None:
        return None
    composite = drive_kelvin(data["temperature"])
    out: Sample = {} if composite is None else {"temp_c": kelvin_to_c(composite)}
    for n in range(1, 9):
        kelvin = drive_kelvin(data.get(f"temperature_sensor_{n}"))
        if kelvin is not None:  # 0 means "sensor not implemented"
            out[f"temp_sensor{n}_c"] = kelvin_to_c(kelvin)
    names = {"thm_temp1_trans_count": "thm_temp1_trans_count", "thm_temp2_trans_count": "thm_temp2_trans_count",
             "thm_temp1_total_time": "thm_temp1_total_s", "thm_temp2_total_time": "thm_temp2_total_s",
             "warning_temp_time": "warning_temp_min", "critical_comp_time": "critical_temp_min"}
    for key, channel in names.items():
        value = _number(data.get(key))
        if value is not None:
            out[channel] = value
    return out


# SMART attributes that carry the drive temperature in their raw value's low byte.
SATA_TEMP_ATTRIBUTES = (194, 190)
# The °C such a low byte may say, as smartctl reads it (atacmds.cpp, ata_return_temperature_value:
# `0 < temp && temp < 128`, else "no valid attribute"): a raw 0 is a drive with no reading, which
# was drawn as 0 °C (QA).
SATA_TEMP_RANGE_C = range(1, 128)


def parse_smartctl_attributes(text: str) -> Sample | None:
    """`smartctl -j -A`: the current temperature (smartctl 7.0 and newer give it whenever attribute
    194 or 190 holds one, read as its drive database says), else attribute 194 / 190's raw value
    where its low byte is a temperature smartctl would take."""
    try:
        data = json_object(json.loads(text))
    except ValueError:
        return None
    current = _number(json_object(data.get("temperature")).get("current"))
    # In smartctl's range too: a current of 0 (a drive without a reading) was taken as 0 °C (QA).
    if current is not None and SATA_TEMP_RANGE_C.start <= current < SATA_TEMP_RANGE_C.stop:
        return {"temp_c": current}
    table = json_object(data.get("ata_smart_attributes")).get("table")
    by_id = {row.get("id"): row for row in table if isinstance(row, dict)} if isinstance(table, list) else {}
    for attribute in SATA_TEMP_ATTRIBUTES:
        raw = _number(json_object(json_object(by_id.get(attribute)).get("raw")).get("value"))
        if raw is not None and int(raw) & 0xFF in SATA_TEMP_RANGE_C:
            return {"temp_c": float(int(raw) & 0xFF)}
    return None


def read_hwmon(path: Path) -> Sample | None:
    """hwmon temp1_input is in millidegrees Celsius; None when the drive reports no temperature: the
    kernel's nvme hwmon gives a drive that reports 0 K (drive_kelvin) as -273150, under the lowest
    reading (LOWEST_READING_K) as every such value is; nor a reading over the highest (65535 K, all
    ones, as 65261850)."""
    try:
        reading_c = int(path.read_text().strip()) / 1000.0
    except (OSError, ValueError):
        return None
    return {"temp_c": reading_c} if plausible_kelvin(c_to_kelvin(reading_c)) else None


def find_hwmon(sys_root: Path, device_name: str) -> Path | None:
    """temp1_input of the drive's hwmon (NVMe: under the controller, e.g. nvme0 for nvme0n1)."""
    base = device_name.rsplit("n", 1)[0] if device_name.startswith("nvme") else device_name
    candidates = [*sorted((sys_root / "class" / "nvme" / base).glob("hwmon*/temp1_input")),
                  *sorted((sys_root / "class" / "block" / device_name / "device").glob("hwmon/hwmon*/temp1_input")),
                  *sorted((sys_root / "class" / "block" / device_name / "device").glob("hwmon*/temp1_input"))]
    return candidates[0] if candidates else None


@dataclass(frozen=True)
class CpuTimes:
    """The aggregate `cpu` line of /proc/stat, in clock ticks."""

    user: int
    system: int
    iowait: int
    total: int


def parse_proc_stat(text: str) -> CpuTimes | None:
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu" and len(parts) >= 6:
            try:
                ticks = [int(p) for p in parts[1:]]
            except ValueError:
                return None
            # user nice system idle iowait irq softirq steal (guest time is already in user)
            user, nice, system, _idle, iowait = ticks[:5]
            irq_etc = sum(ticks[5:8])
            return CpuTimes(user=user + nice, system=system + irq_etc, iowait=iowait, total=sum(ticks[:8]))
    return None


def cpu_between(before: CpuTimes, after: CpuTimes) -> Sample:
    """usr / sys / iowait % of all CPUs between two readings."""
    span = after.total - before.total
    if span <= 0:
        return {}
    return {"cpu_usr_pct": 100.0 * (after.user - before.user) / span,
            "cpu_sys_pct": 100.0 * (after.system - before.system) / span,
            "cpu_iowait_pct": 100.0 * (after.iowait - before.iowait) / span}


def nvme_reader(run: CommandRunner, device: str) -> Sample | None:
    text = run(["nvme", "smart-log", device, "-o", "json"])
    return parse_nvme_smart_log(text) if text else None


def smartctl_reader(run: CommandRunner, device: str) -> Sample | None:
    text = run(["smartctl", "-j", "-A", device])
    return parse_smartctl_attributes(text) if text else None


def throttle_active(previous: Mapping[str, float], current: Mapping[str, float]) -> float | None:
    """1 when the drive spent time in thermal management since the previous sample (NVMe
    thm_temp1/2 total time grew, or a transition was counted), 0 when not, None without counters.
    Only for a drive whose counters count (the sampler asks: DriveSource.counters_indicate)."""
    keys = ("thm_temp1_total_s", "thm_temp2_total_s", "thm_temp1_trans_count", "thm_temp2_trans_count")
    known = [k for k in keys if k in previous and k in current]
    if not known:
        return None
    return 1.0 if any(current[k] > previous[k] for k in known) else 0.0
