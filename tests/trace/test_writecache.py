"""Volatile write-cache control with a fake command runner fed the tools' outputs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from ssdlab.errors import EngineError
from ssdlab.trace.writecache import (
    cache_tool,
    dsync_path,
    parse_hdparm_w,
    parse_nvme_vwc,
    pending_restores,
    restore_all,
    set_cache,
)

CMD = Path(__file__).parent / "fixtures" / "cmd"


def out(name: str) -> str:
    return (CMD / name).read_text()


class FakeDrive:
    """Answers nvme / hdparm like a drive whose cache starts on; records every command."""

    def __init__(self, nvme: bool, allow_off: bool = True) -> None:
        self.nvme, self.on, self.allow_off, self.calls = nvme, True, allow_off, []  # type: ignore[var-annotated]

    def __call__(self, argv: Sequence[str]) -> str | None:
        self.calls.append(list(argv))
        if argv[0] == "nvme" and argv[1] == "get-feature":
            return out("nvme-get-feature-06-on.txt" if self.on else "nvme-get-feature-06-off.txt")
        if argv[0] == "nvme" and argv[1] == "set-feature":
            if argv[-1] == "0" and not self.allow_off:
                return None
            self.on = argv[-1] == "1"
            return out("nvme-set-feature-06-on.txt" if self.on else "nvme-set-feature-06-off.txt")
        if argv[:2] == ["hdparm", "-W"]:
            return out("hdparm-W-on.txt" if self.on else "hdparm-W-off.txt")
        if argv[0] == "hdparm":
            self.on = argv[1] == "-W1"
            return out("hdparm-W1.txt" if self.on else "hdparm-W0.txt")
        return None


def test_parsers_read_the_recorded_outputs() -> None:
    assert parse_nvme_vwc(out("nvme-get-feature-06-on.txt")) is True
    assert parse_nvme_vwc(out("nvme-get-feature-06-off.txt")) is False
    assert parse_hdparm_w(out("hdparm-W-on.txt")) is True
    assert parse_hdparm_w(out("hdparm-W0.txt")) is False
    with pytest.raises(EngineError, match="cannot read"):
        parse_nvme_vwc("garbage")


@pytest.mark.parametrize(("nvme", "device", "transport"), [(True, "/dev/nvme0n1", "nvme"), (False, "/dev/sda", "sata")])
def test_switch_off_then_on_leaves_nothing_to_restore(nvme: bool, device: str, transport: str) -> None:
    drive = FakeDrive(nvme)
    tool = cache_tool(device, transport)
    assert set_cache(drive, tool, False)["volatile_write_cache"] is False
    assert pending_restores() == (device,)
    set_cache(drive, tool, True)
    assert drive.on and pending_restores() == ()


def test_an_interrupted_run_is_restored_at_exit() -> None:
    drive = FakeDrive(True)
    tool = cache_tool("/dev/nvme0n1", "nvme")
    try:
        set_cache(drive, tool, False)
        raise KeyboardInterrupt  # the run stops between the switch off and the switch on
    except KeyboardInterrupt:
        pass
    assert not drive.on
    assert restore_all() == ["/dev/nvme0n1: write cache on"]  # what atexit calls
    assert drive.on and drive.calls[-1] == ["nvme", "set-feature", "/dev/nvme0n1", "-f", "0x06", "-v", "1"]


def test_a_drive_that_refuses_is_an_error_and_unchanged() -> None:
    drive = FakeDrive(True, allow_off=False)
    with pytest.raises(EngineError, match="may not allow it"):
        set_cache(drive, cache_tool("/dev/nvme0n1", "nvme"), False)
    restore_all()
    assert drive.on


def test_unknown_transport_and_dsync_paths() -> None:
    with pytest.raises(EngineError, match="no known way"):
        cache_tool("/dev/vda", "virtio")
    assert dsync_path("write back", True) == "FUA write + flush"
    assert dsync_path("write back", False) == "write + 2 flushes"
    assert dsync_path("write through", False).startswith("plain")
