"""`ssdlab info` shows what `nvme id-ctrl` said of the drive's heat (sysinfo.apply_nvme): its warning
and critical temperatures and whether it supports host controlled thermal management, where it said
them, as `info --json` and the thermal test have them (QA: the table had neither); and where it
supports it, whether the host enabled it: its thresholds (`nvme get-feature -f 0x10`, made-up
outputs: tests/fixtures/cmd/README.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from machine_fixtures import RECORDED_OUTPUTS, RecordedRunner, machine_root

from ssdlab.targets.block import BlockTarget

ID_CTRL = ("nvme", "id-ctrl", "/dev/nvme0n1", "-o", "json")
GET_HCTM = ("nvme", "get-feature", "/dev/nvme0n1", "-f", "0x10")


def info_lines(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, id_ctrl: str, feature: str | None = None,
               *flags: str) -> list[str]:
    from ssdlab.cli import inspect

    thresholds = {GET_HCTM: f"nvme-get-feature-hctm-{feature}.txt"} if feature else {}
    runner = RecordedRunner({**RECORDED_OUTPUTS, ID_CTRL: f"nvme-id-ctrl-{id_ctrl}.json", **thresholds})
    nvme = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=machine_root(), run=runner)
    monkeypatch.setattr(inspect, "parse_target", lambda spec: nvme)
    monkeypatch.setenv("COLUMNS", "200")
    shown = cli("info", "/dev/nvme0n1", *flags)
    assert shown.code == 0, shown.stderr
    return [" ".join(line.strip("│ ").split()) for line in shown.stdout.splitlines()]


@pytest.mark.parametrize(("id_ctrl", "feature", "temperatures", "hctm"), [
    ("hctm", "enabled", "warning / critical temp │ 83.85 / 87.85 °C (357 / 361 K)",
     "yes, TMT1 / TMT2 75.85 / 80.85 °C (349 / 354 K)"),
    # was "yes": supported, but it never transitions, so its counters count nothing
    ("hctm", "disabled", "warning / critical temp │ 83.85 / 87.85 °C (357 / 361 K)",
     "supported, not enabled (TMT1 and TMT2 unset)"),
    ("hctm", None, "warning / critical temp │ 83.85 / 87.85 °C (357 / 361 K)",
     "supported, enabled unknown (nvme get-feature gave no answer)"),
    ("no-hctm", None, "warning / critical temp │ 71.85 / 81.85 °C (345 / 355 K)", "no"),
    ("950pro", None, None, "no"),  # WCTEMP and CCTEMP 0: the drive gives none, so no line
])
def test_info_shows_the_drive_s_thermal_facts_where_it_gives_them(cli: Callable[..., Any],
                                                                   monkeypatch: pytest.MonkeyPatch, id_ctrl: str,
                                                                   feature: str | None, temperatures: str | None,
                                                                   hctm: str) -> None:
    lines = info_lines(cli, monkeypatch, id_ctrl, feature)
    assert (temperatures in lines) if temperatures else not any("temp" in line for line in lines)
    assert f"host thermal management │ {hctm}" in lines
    # after the drive's other capabilities, before what ssdlab makes of it
    assert lines.index(f"host thermal management │ {hctm}") == lines.index("direct I/O │ reaches the drive") - 1


def test_nothing_is_said_of_a_drive_nvme_cli_did_not_describe(cli: Callable[..., Any],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from ssdlab.cli import inspect

    sda = BlockTarget(spec="/dev/sda", name="sda", sysroot=machine_root(), run=RecordedRunner())
    monkeypatch.setattr(inspect, "parse_target", lambda spec: sda)
    shown = cli("info", "/dev/sda").stdout
    assert "temp" not in shown and "thermal" not in shown


@pytest.mark.parametrize(("feature", "thresholds"), [
    ("enabled", {"tmt1_k": 349, "tmt2_k": 354, "tmt1_c": 75.85, "tmt2_c": 80.85}),
    ("disabled", {"tmt1_k": 0, "tmt2_k": 0, "tmt1_c": None, "tmt2_c": None}),
    (None, None),  # asked, no answer
])
def test_info_json_has_the_hctm_thresholds(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch,
                                           feature: str | None, thresholds: dict[str, Any] | None) -> None:
    shown = json.loads("\n".join(info_lines(cli, monkeypatch, "hctm", feature, "--json")))
    assert shown["extra"]["nvme"]["hctm"] is True and shown["extra"]["nvme"]["hctm_thresholds"] == thresholds
