"""The recorded machine under tests/fixtures: its sysfs tree and what its tools printed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ssdlab.targets.sysinfo import LoopStatus, SysRoot

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


# What LOOP_GET_STATUS64 said of the machine's loop devices: each maps a regular file of its own
# (/var/tmp/scratch.img, /var/tmp/fs.img; a made-up file system number no file here has).
RECORDED_LOOPS = {"loop3": LoopStatus(device=0xFFFFF, inode=3, rdevice=0),
                  "loop4": LoopStatus(device=0xFFFFF, inode=4, rdevice=0)}


def recorded_loop_status(node: Path) -> LoopStatus | None:
    return RECORDED_LOOPS.get(node.name) if node.parent == MACHINE / "dev" else None


def machine_root(mountinfo: str = "mountinfo") -> SysRoot:
    """The recorded machine, its /proc included: the real one lists this machine's processes, and a
    fio of another test writing the real loop3 (device 7:3, as the recorded loop3) made the recorded
    loop3 "open for writing by pid N (fio)" (CI flake, 2026-11-28)."""
    return SysRoot(sys=MACHINE / "sys", mountinfo=MACHINE / "proc" / mountinfo,
                   swaps=MACHINE / "proc" / "swaps", dev=MACHINE / "dev", proc=MACHINE / "proc",
                   loop_status=recorded_loop_status)


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
