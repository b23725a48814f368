"""The review suite: the whole client-SSD review, ordered by the drive state each test wants.

1. Empty drive, small test region (each purges, then writes only its region):
   qd-sweep, mixed-random, transfer-sweep.
2. linear: purges, writes the drive from first to last LBA (the cache drop shows on an
   empty drive), reads it back — and so leaves the drive full of sequentially written data.
3. Full drive, written sequentially: mixed-seq, as-ssd (full-stroke access-time reads),
   then iometer-mixed; these skip their own fill because linear has just done it.
   iometer-mixed comes last of them: its random writes on a full drive leave it dirty.
4. Torture, which needs nothing and destroys everything: consistency-op25, then
   consistency (each purges and fills), then trim-validation, which starts from the
   tortured drive consistency leaves (the same purge, fill and until-steady torture its own
   preparation would run, so the planner leaves that preparation out), measures it without
   TRIM, TRIMs, measures again, and ends on a purged drive measured clean.

Every test runs with its method's own durations, except that the two consistency runs stop
at the first steady 400 s window (the SNIA PTS rule, docs/methods/steady-state.md's early stop; at most 25
rounds of 80 s) instead of always running the hour: `--param until_steady=false` restores it.
"""

from __future__ import annotations

from ssdlab.methods.consistency import CONSISTENCY_OP25
from ssdlab.suites import Suite, entry

REVIEW = Suite(
    name="review",
    title="Full client-SSD review: sweeps, linear passes, synthetic presets, consistency, TRIM",
    entries=(
        entry("qd-sweep"),
        entry("mixed-random"),
        entry("transfer-sweep"),
        entry("linear"),
        entry("mixed-seq", fill=False),
        entry("as-ssd", fill=False),
        entry("iometer-mixed", fill=False),
        CONSISTENCY_OP25.with_params(until_steady=True),
        entry("consistency", until_steady=True),
        entry("trim-validation"),
    ),
)

SUITES = (REVIEW,)
