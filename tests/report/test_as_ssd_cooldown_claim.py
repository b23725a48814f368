"""The AS SSD caption says the cool-down cooled the drive only where the measured runs' telemetry says so.

QA: on sim:950pro-256 with cooldown_s=5 the caption read "Measured after a 5 s idle, so the drive started
near rest, not hot from the fill or the test before", above a note that Seq write and Seq read ran
throttled 100 % of their time, the drive at 67 °C as measuring began."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.sim import SimEngine
from ssdlab.methods.synthetic import AS_SSD_RUNS
from ssdlab.report import section_synthetic
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

HOT_950PRO = "sim:950pro-512?capacity_gib=128"  # its fill ends at 74 °C, past the 70 °C throttle point
QUICK = {"runtime_s": 1, "access_runtime_s": 0.5}


def caption_and_throttled(root: Path, cooldown_s: float) -> tuple[str, int, int]:
    """The AS SSD table's caption, and how many measured runs ran throttled, of how many, by their telemetry."""
    entry = SuiteEntry(name="as-ssd", test="as-ssd", params={**QUICK, "cooldown_s": cooldown_s})
    run_entries(root, parse_target(HOT_950PRO), SimEngine(), [entry])
    bundle = Bundle(root)
    record = bundle.load_run().test("as-ssd")
    [table] = section_synthetic.tables(bundle, record)
    found = bundle.measurements(record)
    shares = [found[name].throttled_share() for name, *_ in AS_SSD_RUNS]
    return table.caption, sum(1 for s in shares if s), len(shares)


def test_a_short_idle_that_leaves_the_drive_throttling_is_not_said_to_have_cooled_it(tmp_path: Path) -> None:
    caption, hot, runs = caption_and_throttled(tmp_path / "b", 5)
    assert hot > 0  # the 5 s idle did not cool the drive: measured runs ran throttled
    assert "near rest" not in caption and "not hot" not in caption
    assert caption.endswith(f"Measured after a 5 s idle, for the drive to cool from the fill or the test before; it "
                            f"did not here: {hot} of the {runs} measured runs ran throttled (see the notes).")


@pytest.mark.parametrize("cooldown_s", [300.0])
def test_a_full_idle_says_no_run_throttled_as_the_telemetry_shows(tmp_path: Path, cooldown_s: float) -> None:
    caption, hot, runs = caption_and_throttled(tmp_path / "b", cooldown_s)
    assert hot == 0
    assert caption.endswith(f"Measured after a 300 s idle, for the drive to cool from the fill or the test before; "
                            f"none of the {runs} measured runs ran throttled.")
