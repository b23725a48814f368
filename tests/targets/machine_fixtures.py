"""The recorded machine under tests/fixtures: its sysfs tree and what its tools printed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ssdlab.targets.sysinfo import SysRoot

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MACHINE = FIXTURES / "sysfs" / "machine"
CMD = FIXTURES / "cmd"

# What `nvme id-ctrl` and `smartctl -j -i` printed for the machine's drives.
RECORDED_OUTPUTS = {
    ("nvme", "id-ctrl", "/dev/nvme0n1", "-o", "json"): "nvme-id-ctrl-950pro.json",
    ("smartctl", "-j", "-i", "/dev/sda"): "smartctl-850evo.json",
    ("smartctl", "-j", "-i", "/dev/sdb"): "smartctl-vda-unknown.json",
    ("smartctl", "-j", "-i", "/dev/nvme0n1"): "smartctl-vda-unknown.json",
}


def machine_root(mountinfo: str = "mountinfo") -> SysRoot:
    return SysRoot(sys=MACHINE / "sys", mountinfo=MACHINE / "proc" / mountinfo,
                   swaps=MACHINE / "proc" / "swaps", dev=MACHINE / "dev")


class RecordedRunner:
    """Plays back recorded tool outputs; anything else is 'tool not installed'."""

    def __init__(self, outputs: dict[tuple[str, ...], str] | None = None) -> None:
        self.outputs = RECORDED_OUTPUTS if outputs is None else outputs
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Sequence[str]) -> str | None:
        # The machine's /dev is a fixture directory; the recordings name the real paths.
        call = tuple(arg.replace(str(MACHINE / "dev"), "/dev") for arg in argv)
        self.calls.append(call)
        name = self.outputs.get(call)
        return (CMD / name).read_text() if name else None
