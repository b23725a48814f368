"""A section's figures are drawn when a page asks for them (report/types.py, Figure): the terminal's
tables, made of the same sections, draw none. Every `ssdlab run` prints those tables as it ends,
and `--no-report` runs print nothing else; drawing every chart for them was a third of a short
simulated run in-process, and importing altair for it half a second of each fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# In a fresh interpreter: this test's own process has altair imported by other tests.
CHILD = """
import json, sys
from pathlib import Path
from ssdlab.engines.fake import FakeEngine
from ssdlab.planning import parse_overrides, select_entries
from ssdlab.report import build_report, terminal_tables
from ssdlab.runner import run_entries
from ssdlab.targets import parse_target

SHORT = ["runtime_s=1", "access_runtime_s=1", "seq_runtime_s=2", "torture_runtime_s=3", "steady_window_s=2",
         "round_s=1", "read_pcts=100,50,0", "queue_depths=1,2,4", "max_block_bytes=1m"]
_, review = select_entries("review", [])
_, more = select_entries(None, ["quick", "thermal", "wsat", "pts-iops"])
out = Path(sys.argv[1])
run_entries(out, parse_target("fake:?capacity=2g"), FakeEngine(), review + more, overrides=parse_overrides(SHORT))
built = build_report(out)
terminal_tables(built)
tables_alone = "altair" in sys.modules
figures = {s.key: [f.key for f in s.figures] for s in built.sections}
drawn = [sorted(f.chart.to_dict()) for s in built.sections for f in s.figures]
print(json.dumps({"tables_alone": tables_alone, "figures": figures, "drawn": drawn,
                  "after": "altair" in sys.modules}))
"""


def test_the_terminals_tables_draw_no_chart_and_a_page_draws_them_all(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "bundle")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert not found["tables_alone"], "the terminal's tables imported altair: a figure drew its chart"
    # every section module that draws: sweeps, linear, synthetic, consistency (variants too), trim, quick,
    # thermal, wsat, PTS
    assert all(found["figures"].values()), found["figures"]
    assert len(found["drawn"]) == sum(map(len, found["figures"].values())) >= 20
    assert all("$schema" in keys for keys in found["drawn"])  # each drawn, as a whole Vega-Lite spec
    assert found["after"]
