"""id-ctrl's unsigned fields as nvme-cli built against an old json-c writes them (decimal strings):
recorded as the numbers they are, as nvme-cli with a newer json-c writes them."""

from __future__ import annotations

import pytest
from machine_fixtures import FIXTURES, RECORDED_OUTPUTS, RecordedRunner

from ssdlab.targets.block import BlockTarget
from ssdlab.targets.sysinfo import SysRoot, unsigned_field

ID_CTRL = ("nvme", "id-ctrl", "/dev/nvme0n1", "-o", "json")


def nvme_facts(machine: SysRoot, id_ctrl: str) -> dict[str, object]:
    run = RecordedRunner({**RECORDED_OUTPUTS, ID_CTRL: id_ctrl})
    nvme = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=machine, run=run).info().extra["nvme"]
    assert isinstance(nvme, dict)
    return nvme


def test_old_json_c_strings_read_as_numbers(machine: SysRoot) -> None:
    old_json_c = nvme_facts(machine, str(FIXTURES / "versions" / "nvme-id-ctrl-jsonc013.json"))
    assert (old_json_c["ver"], old_json_c["nn"]) == (0x10100, 1)  # NVMe 1.1, one namespace
    assert old_json_c == nvme_facts(machine, "nvme-id-ctrl-950pro.json")  # as a newer json-c's


@pytest.mark.parametrize(("value", "number"), [
    (65792, 65792), ("65792", 65792), (" 1\n", 1), ("0", 0), ("18446744073709551615", 2**64 - 1),
    ("", None), ("1.1", None), ("-1", None), (-1, None), (True, None), (None, None), ("0x10100", None),
    ("9" * 5000, None), ("\u0661", None),
])
def test_unsigned_field(value: object, number: int | None) -> None:
    assert unsigned_field(value) == number
