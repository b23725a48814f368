"""The `raid-scaling` suite: the same tests on a single drive and on a RAID-0 of it.

Run it once on the single drive and once on the array, then compare the two bundles:

    ssdlab run -s raid-scaling -t sim:sm951-nvme-512 -o single
    ssdlab run -s raid-scaling -t 'sim:raid0(sm951-nvme-512,sm951-nvme-512)?chunk_kib=128' -o raid0
    ssdlab compare single raid0

The tests are the quick benchmark, the queue-depth sweeps (sequential against 4 KiB random
at QD1..32: where striping helps and where it does not), the transfer-size sweep (striping
splits large transfers at chunk boundaries), the linear passes and the mixed random sweep.
Each measurement's host CPU (fio's usr/sys; on the simulator the array's striping cost)
is shown beside the figures.
"""

from __future__ import annotations

from ssdlab.suites import Suite
from ssdlab.suites import entry as suite_entry

RAID_SCALING_TESTS = ("quick", "qd-sweep", "transfer-sweep", "linear", "mixed-random")

SUITES = (
    Suite(name="raid-scaling", title="RAID-0 scaling: run on a drive and on an array of it, then compare",
          entries=tuple(suite_entry(name) for name in RAID_SCALING_TESTS)),
)
