"""A PCIe link as sysfs says it: a speed and a lane count where it gives them, nothing where it
does not ("Unknown", "Unknown speed", width 0 / 63 / 255 were recorded and shown as "PCIe Unknown")."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from machine_fixtures import RecordedRunner

from ssdlab.report.identity import MISSING, link_text
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.sysinfo import PCIE_LANES, SysRoot, link_speed, link_width


@pytest.mark.parametrize(("text", "speed"), [
    ("8.0 GT/s PCIe", "8.0 GT/s PCIe"), ("16.0 GT/s PCIe\n", "16.0 GT/s PCIe"),
    ("2.5 GT/s", "2.5 GT/s PCIe"), ("8 GT/s", "8.0 GT/s PCIe"),  # kernels before 4.17
    ("Unknown", None), ("Unknown speed", None), ("", None), (None, None), ("0 GT/s", None),
    ("nan GT/s", None), ("8.0 GT/s PCIe (downgraded)", None),
])
def test_speed_texts(text: str | None, speed: str | None) -> None:
    assert link_speed(text) == speed


@pytest.mark.parametrize(("text", "lanes"), [("4", 4), ("16\n", 16), ("0", None), ("255", None),
                                             ("63", None), ("3", None), ("", None), (None, None), ("x4", None)])
def test_width_texts(text: str | None, lanes: int | None) -> None:
    assert link_width(text) == lanes


@given(st.text(max_size=40))
def test_any_speed_text_gives_a_speed_or_none(text: str) -> None:
    speed = link_speed(text)
    if speed is not None:
        figure, unit = speed.split(" ", 1)
        assert unit == "GT/s PCIe" and math.isfinite(float(figure)) and float(figure) > 0
        assert "nknown" not in speed and link_speed(speed) == speed


@given(st.one_of(st.text(max_size=12), st.integers().map(str)))
def test_any_width_text_gives_a_lane_count_or_none(text: str) -> None:
    lanes = link_width(text)
    assert lanes is None or lanes in PCIE_LANES


@pytest.mark.parametrize(("speed", "width"), [("Unknown", "0"), ("Unknown speed", "255")])
def test_an_untrained_link_says_nothing(tmp_path: Path, machine: SysRoot, recorded: RecordedRunner,
                                        speed: str, width: str) -> None:
    tree = tmp_path / "machine"
    shutil.copytree(machine.sys.parent, tree, symlinks=True)
    function = (tree / "sys" / "class" / "block" / "nvme0n1" / "device").resolve().parent.parent  # nvme0 -> PCI
    assert (function / "current_link_speed").read_text().strip() == "8.0 GT/s PCIe"
    (function / "current_link_speed").write_text(speed + "\n")
    (function / "current_link_width").write_text(width + "\n")
    root = SysRoot(sys=tree / "sys", mountinfo=machine.mountinfo, swaps=machine.swaps, dev=tree / "dev")
    info = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=root, run=recorded).info()
    assert (info.pcie_link_speed, info.pcie_link_width) == (None, None)
    assert link_text(info) == MISSING  # was "PCIe Unknown"
    assert info.model == "Samsung SSD 950 PRO 256GB"  # the rest as before
