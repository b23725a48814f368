"""The drive's volatile write cache: read it, switch it, and always put it back.

- NVMe: Feature 0x06 "Volatile Write Cache" (NVMe base specification, Set/Get Features),
  through nvme-cli: `nvme get-feature DEV -f 0x06 -H`, `nvme set-feature DEV -f 0x06 -v 0|1`.
- SATA: the ATA SET FEATURES write-cache subcommands, through `hdparm -W DEV` (read) and
  `hdparm -W0|-W1 DEV` (set).
The original state is remembered when the cache is switched off and restored when it is
switched on again, or at interpreter exit if a run stops before that (Ctrl-C, an error):
the atexit handler runs after a KeyboardInterrupt reaches the top of the program.

How an O_DSYNC write reaches the drive (what the A/B's "dsync" case measures) follows from
the kernel's queue/fua and queue/write_cache (Documentation/block/writeback_cache_control):
with a volatile cache ("write back") and FUA support, a FUA write; with a volatile cache and no
FUA, a write followed by a flush (the FUA emulated); without a volatile cache ("write through"), a
plain write. A write to the block device itself is then followed by its sync's own flush (see
methods/trace.DSYNC_BECOMES: two flushes per write were captured on a loop device without FUA), so
the labels count it.
"""

from __future__ import annotations

import atexit
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ssdlab.errors import EngineError

CommandRunner = Callable[[Sequence[str]], str | None]

_NVME_WCE = re.compile(r"Volatile Write Cache Enable \(WCE\):\s*(Enabled|Disabled)")
_NVME_VALUE = re.compile(r"get-feature:0x0?6 .*Current value:\s*(0x)?([0-9a-fA-F]+)")
_HDPARM = re.compile(r"write-caching\s*=\s*([01])")


def dsync_path(write_cache: str | None, fua: bool | None) -> str:
    """What an O_DSYNC write becomes on this device (see the module docstring)."""
    if write_cache == "write through":
        return "plain write (no volatile cache)"
    if write_cache == "write back":
        return "FUA write + flush" if fua else "write + 2 flushes"
    return "unknown (the kernel does not say)"


def parse_nvme_vwc(text: str) -> bool:
    m = _NVME_WCE.search(text)
    if m:
        return m[1] == "Enabled"
    v = _NVME_VALUE.search(text)
    if v:
        return int(v[2], 16) & 1 == 1
    raise EngineError(f"nvme get-feature 0x06: cannot read the cache state from {text.strip()[:80]!r}")


def parse_hdparm_w(text: str) -> bool:
    found = _HDPARM.findall(text)
    if not found:
        raise EngineError(f"hdparm -W: cannot read the cache state from {text.strip()[:80]!r}")
    return bool(found[-1] == "1")  # after a set, the last line is the state read back


@dataclass(frozen=True)
class CacheTool:
    """The commands that read and set the volatile cache of one device."""

    device: str
    nvme: bool

    def read_argv(self) -> list[str]:
        return ["nvme", "get-feature", self.device, "-f", "0x06", "-H"] if self.nvme else ["hdparm", "-W", self.device]

    def set_argv(self, enabled: bool) -> list[str]:
        flag = "1" if enabled else "0"
        return (["nvme", "set-feature", self.device, "-f", "0x06", "-v", flag] if self.nvme
                else ["hdparm", f"-W{flag}", self.device])

    def parse(self, text: str) -> bool:
        return parse_nvme_vwc(text) if self.nvme else parse_hdparm_w(text)


SATA_TRANSPORTS = ("sata", "ata", "ahci")


def can_switch(transport: str | None) -> bool:
    """Whether ssdlab knows how to switch the volatile write cache of a drive on this transport
    (planning refuses a test that needs it on another, before anything runs)."""
    return transport == "nvme" or transport in SATA_TRANSPORTS


def cache_tool(device: str, transport: str | None) -> CacheTool:
    if transport == "nvme":
        return CacheTool(device, nvme=True)
    if transport in SATA_TRANSPORTS:
        return CacheTool(device, nvme=False)
    raise EngineError(f"{device}: no known way to switch the volatile write cache of a {transport or 'unknown'} "
                      "device (NVMe: nvme-cli, SATA: hdparm)")


def read_cache(run: CommandRunner, tool: CacheTool) -> bool:
    out = run(tool.read_argv())
    if out is None:
        raise EngineError(f"{' '.join(tool.read_argv())} failed; is {tool.read_argv()[0]} installed, are we root?")
    return tool.parse(out)


# device -> (runner, tool, state before we switched it): what atexit puts back.
_TO_RESTORE: dict[str, tuple[CommandRunner, CacheTool, bool]] = {}
_registered = False


def set_cache(run: CommandRunner, tool: CacheTool, enabled: bool) -> dict[str, object]:
    """Switch the cache and read it back; the first switch remembers the original state."""
    global _registered
    before = read_cache(run, tool)
    if tool.device not in _TO_RESTORE:
        _TO_RESTORE[tool.device] = (run, tool, before)
        if not _registered:
            atexit.register(restore_all)
            _registered = True
    out = run(tool.set_argv(enabled))
    if out is None:
        raise EngineError(f"{' '.join(tool.set_argv(enabled))} failed; the drive may not allow it")
    now = read_cache(run, tool)
    if now != enabled:
        raise EngineError(f"{tool.device}: asked for the write cache {'on' if enabled else 'off'}, "
                          f"the drive reports it {'on' if now else 'off'}")
    if now == _TO_RESTORE[tool.device][2]:
        del _TO_RESTORE[tool.device]  # back where it started: nothing left to restore
    return {"volatile_write_cache": now, "before": before, "command": " ".join(tool.set_argv(enabled))}


def restore_all() -> list[str]:
    """Put every switched cache back as it was; returns what it did (errors included)."""
    done = []
    for device, (run, tool, original) in list(_TO_RESTORE.items()):
        out = run(tool.set_argv(original))
        done.append(f"{device}: write cache {'on' if original else 'off'}" + ("" if out is not None else " FAILED"))
        del _TO_RESTORE[device]
    return done


def pending_restores() -> tuple[str, ...]:
    return tuple(_TO_RESTORE)
