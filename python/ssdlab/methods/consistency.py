"""Performance consistency and write saturation (docs/methods/consistency.md, wsat.md).

`consistency`: purge the whole device, fill the span sequentially, then 4 KiB random
writes QD32 over the span for an hour, IOPS every second; the last 400 s give the
steady-state figures. `op_pct=25` keeps a quarter of the (purged) device unused: the
extra spare area an NVMe drive cannot be given with an HPA.

`wsat` (SNIA PTS write saturation): from a purged drive, no fill, random writes; IOPS
against time and against host GB written.

With `until_steady`, the torture runs as rounds of `round_s` (80 s, so the 5-round PTS
window is the 400 s window) and stops at the first steady window, or after `max_rounds`.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from ssdlab.analysis.consistency import (
    FRESH_S,
    HOST_BYTES,
    MIN_SPREAD_SAMPLES,
    NAND_BYTES,
    RunSeries,
    consistency_metrics,
    covering_by_time,
    join_series,
    run_offsets,
    tail_periods,
    window_write_amplification,
)
from ssdlab.analysis.steady_state import (
    PTS_MAX_RANGE_PCT,
    PTS_MAX_ROUNDS,
    PTS_MAX_SLOPE_PCT,
    PTS_WINDOW_ROUNDS,
    WHOLE_REL_TOL,
    all_whole,
    least_judged_rounds,
    round_cuts,
    round_length_s,
    time_mean,
)
from ssdlab.measurement import Measurement, heat_apart_printed, time_share
from ssdlab.methods._prep import (
    done_rounds,
    fill_actions,
    filled_state,
    free_space_bytes,
    round_count,
    round_name,
    round_runtimes_s,
    rounds_steady,
    rounds_words,
    size_label,
    span_notes,
    usable_span_bytes,
)
from ssdlab.methods.base import Action, DriveState, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.metrics import (
    BYTES,
    GB,
    IOPS,
    MB_S,
    PCT,
    SECONDS,
    Better,
    MetricSet,
    MetricSpec,
    block_text,
    metric_set,
)
from ssdlab.methods.params import (
    OP_PCT_WHY,
    WINDOW_ROUNDS_WHY,
    BlockBytes,
    Jobs,
    QueueDepth,
    RegionBytes,
    Seconds,
    Seed,
    WindowSeconds,
)
from ssdlab.steps import Purge
from ssdlab.suites import Suite
from ssdlab.suites import entry as suite_entry
from ssdlab.targets.base import TargetInfo
from ssdlab.thresholds import beside
from ssdlab.units import KIB, in_unit, number_text, seconds_apart, seconds_text
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

TORTURE = "torture"


class TortureParams(Params):
    """What both consistency and wsat share: the random-write torture and its analysis."""

    runtime_s: Seconds = 3600.0
    block_size_bytes: BlockBytes = 4 * KIB
    iodepth: QueueDepth = 32
    jobs: Jobs = 1
    span_bytes: RegionBytes | None = None
    op_pct: Annotated[float, OP_PCT_WHY] = Field(default=0.0, ge=0, lt=100, allow_inf_nan=False)
    compress_pct: int = Field(default=0, ge=0, le=99)
    steady_window_s: WindowSeconds = 400.0
    round_s: Seconds = 80.0
    until_steady: bool = False
    max_rounds: Annotated[int, WINDOW_ROUNDS_WHY] = Field(default=PTS_MAX_ROUNDS, ge=PTS_WINDOW_ROUNDS, le=1000)
    # fio's own ss detector (real targets) on the single torture job. fio *ends* the job
    # when it fires, so it is an alternative early stop, recorded beside the PTS verdict.
    fio_ss: bool = False
    seed: Seed = 1
    # max_rounds caps the rounds of an early-stopping torture; without until_steady the torture runs
    # runtime_s whole, whatever max_rounds says (docs/methods/wsat.md, consistency.md).
    ACTS_ONLY_WITH: ClassVar[Mapping[str, str]] = {"max_rounds": "until_steady"}

    @model_validator(mode="after")
    def _one_early_stop(self) -> TortureParams:
        if self.fio_ss and self.until_steady:
            raise ValueError("fio_ss and until_steady are two early stops; choose one")
        return self


class ConsistencyParams(TortureParams):
    fill_passes: int = Field(default=1, ge=0, le=2)


def torture_names(params: TortureParams) -> list[str]:
    if not params.until_steady:
        return [TORTURE]
    rounds = round_count(params.runtime_s, params.round_s, params.max_rounds)
    return [round_name(TORTURE, n) for n in range(1, rounds + 1)]


def torture_lengths_s(params: TortureParams) -> list[float]:
    """How long each workload of the torture runs: the one long run, or each round."""
    if not params.until_steady:
        return [params.runtime_s]
    return round_runtimes_s(params.runtime_s, params.round_s, len(torture_names(params)))


def torture_actions(params: TortureParams, span: int, free_bytes: int,
                    role: Literal["measure", "precondition"] = "measure") -> list[Measure]:
    """One long run, or rounds sharing a group so `skip` can stop them once steady, but not
    before they have written the drive's `free_bytes` (its fresh plateau)."""
    names = torture_names(params)
    lengths = torture_lengths_s(params)
    group = TORTURE if params.until_steady else None
    after = free_bytes if params.until_steady else 0
    return [
        Measure(group=group, steady_after_bytes=after, role=role, workload=Workload(
            name=name, pattern="randwrite", block_size_bytes=params.block_size_bytes,
            iodepth=params.iodepth, jobs=params.jobs, span_bytes=span, runtime_s=length,
            compress_pct=params.compress_pct, seed=params.seed + number, fio_steady_state=params.fio_ss,
        ))
        for number, (name, length) in enumerate(zip(names, lengths, strict=True))
    ]


def torture_recipe(params: TortureParams) -> str:
    """How the torture writes, for DriveState.recipe (the seed is left out: it changes which
    LBAs are hit, not the state's kind)."""
    how = f"{size_label(params.block_size_bytes)} random write QD{params.iodepth} T{params.jobs}"
    if params.compress_pct:
        how += f", {params.compress_pct} % compressible"
    if params.until_steady:
        return f"{how} until steady (SNIA PTS, at most {rounds_words(torture_lengths_s(params))})"
    return f"{how} for {params.runtime_s:g} s"


def tortured_state(params: TortureParams, span: int, prep: DriveState) -> DriveState:
    """The state a torture leaves on a drive prepared as `prep`."""
    return DriveState(kind="tortured", span_bytes=span, op_pct=params.op_pct,
                      recipe=f"{prep.recipe}; {torture_recipe(params)}")


def skip_torture_round(params: TortureParams, action: Action, done: Mapping[str, Measurement]) -> bool:
    """Early stop: leave out the remaining rounds once the rounds so far are steady."""
    if not params.until_steady or not isinstance(action, Measure) or action.group != TORTURE:
        return False
    return rounds_steady(done_rounds(done, TORTURE), PTS_WINDOW_ROUNDS, action.steady_after_bytes)


def torture_measurements(params: TortureParams, results: TestResults) -> list[Measurement]:
    return [results.measurements[n] for n in torture_names(params) if n in results.measurements]


def run_facts(params: TortureParams, info: TargetInfo, series: RunSeries, ran: Sequence[Measurement]) -> Metrics:
    """Context every torture result carries: span, OP, rounds and fio's cross-check."""
    span = usable_span_bytes(info, params.op_pct, params.span_bytes)
    facts: Metrics = {
        "op_pct": params.op_pct,
        "span_bytes": span,
        "span_pct": 100.0 * span / info.capacity_bytes,
        "rounds_run": len(ran) if params.until_steady else None,
        "capacity_writes": sum(series.write_bytes) / span,
    }
    fio_ss = [m.engine_facts.get("fio_ss_attained") for m in ran if "fio_ss_attained" in m.engine_facts]
    facts["fio_ss_attained"] = any(bool(v) for v in fio_ss) if fio_ss else None
    return facts


def window_wa(ran: Sequence[Measurement], series: RunSeries, seconds: float) -> float | None:
    """The simulator's write amplification over the last `seconds` of the torture, the window
    IOPS figures' time (window_span of `series`, the rounds joined): NAND bytes over host bytes
    written from the counters' last reading at or before the window's start (the first reading,
    for a window reaching the start) to their last."""
    nand, host = _on_run_clock(ran, NAND_BYTES), _on_run_clock(ran, HOST_BYTES)
    span = window_span(series, seconds)
    if span is None or len(nand) != len(host):
        return None
    ends = [end for _, end, _ in nand]
    last = _reading_at(ends, span[1])
    first = max(0, _reading_at(ends, span[0]))
    return window_write_amplification([v for *_, v in nand[:last + 1]], [v for *_, v in host[:last + 1]],
                                      last - first)


def window_throttled_pct(ran: Sequence[Measurement], series: RunSeries, seconds: float) -> float | None:
    """Share of the last `seconds` of the torture (the window IOPS figures' time, window_span of
    `series`, the rounds joined) the drive spent throttling, in percent: a window measured hot
    says as much about the drive's cooling as its spare area."""
    return _throttled_pct_within(ran, window_span(series, seconds))


def fresh_throttled_pct(ran: Sequence[Measurement], series: RunSeries, seconds: float = FRESH_S) -> float | None:
    """Share of the torture's first `seconds` (the fresh figure's, fresh_span of `series`, the
    rounds joined) the drive spent throttling, in percent: set against the window's, it says how
    much of the fall is heat."""
    return _throttled_pct_within(ran, fresh_span(series, seconds))


def window_span(series: RunSeries, seconds: float) -> tuple[float, float] | None:
    """(start s, end s) of the last `seconds` of the run as the window IOPS figures take it
    (RunSeries.tail_count: whole periods, by their real lengths); None for a run of no periods."""
    if not series.t_s:
        return None
    count = series.tail_count(seconds)
    return _start_of(series, len(series.t_s) - count), series.t_s[-1]


def fresh_span(series: RunSeries, seconds: float = FRESH_S) -> tuple[float, float] | None:
    """(start s, end s) of the first `seconds` of the run as the fresh figure takes it
    (RunSeries.head_count); None for a run of no periods."""
    if not series.t_s:
        return None
    return _start_of(series, 0), series.t_s[series.head_count(seconds) - 1]


def _start_of(series: RunSeries, index: int) -> float:
    """When period `index` of the joined series starts: the end of the one before (the first:
    its end less its length)."""
    return series.t_s[index - 1] if index > 0 else series.t_s[0] - series.lengths_s[0]


def _on_run_clock(ran: Sequence[Measurement], channel: str | None) -> list[tuple[float, float, float]]:
    """(start s, end s, value) of each sample of a telemetry channel (Measurement.telemetry_samples; None:
    each measurement's throttle channel) on the torture's joined clock: each measurement's shifted
    by the time before it (run_offsets, as join_series shifts its periods: so the simulator's
    samples are the joined periods, to the bit)."""
    out: list[tuple[float, float, float]] = []
    for m, offset_s in zip(ran, run_offsets(ran), strict=True):
        name = channel or m.throttle_channel()
        samples = m.telemetry_samples(name) if name else []
        out.extend((offset_s + start, offset_s + end, value) for start, end, value in samples)
    return out


def _reading_at(ends: Sequence[float], at_s: float) -> int:
    """Index of the last reading at or before `at_s` (-1: none); a reading a rounding off it is at it."""
    return bisect_right(ends, at_s + WHOLE_REL_TOL * max(1.0, abs(at_s))) - 1


def _throttled_pct_within(ran: Sequence[Measurement], span: tuple[float, float] | None) -> float | None:
    """Share of the time between span's start and end the drive spent throttling, in percent:
    each throttle sample (the simulator's level or NVMe's flag, per Measurement.throttle_channel)
    weighed by the time it stands for within it."""
    if span is None:
        return None
    samples = _on_run_clock(ran, None)
    flags = [flag for *_, flag in samples]
    seconds = [min(end, span[1]) - max(start, span[0]) for start, end, _ in samples]
    share = time_share(flags, seconds)
    return None if share is None else 100.0 * share


def heat_in_fall(metrics: Metrics) -> str:
    """Said when the fresh seconds and the steady window ran throttled for shares of their time
    far apart: the fresh-to-steady ratio then holds the drive's heat (its cooling, what ran
    before) as well as its garbage collection; "" otherwise."""
    printed = heat_apart_printed(metrics.get("fresh_throttled_pct"), metrics.get("window_throttled_pct"))
    if printed is None:
        return ""
    return (f"the drive ran throttled {printed[0]} % of the fresh seconds and {printed[1]} % of the steady window, "
            "so the ratio holds its heat as well as its garbage collection")


def torture_metrics(params: TortureParams, target: TargetInfo, results: TestResults, valid_bytes: int,
                    ) -> tuple[RunSeries, Metrics]:
    """The torture's joined series and metrics; consistency and WSAT analyse it alike.
    `valid_bytes`: data on the drive when the torture began (the span after a fill)."""
    ran = torture_measurements(params, results)
    series = join_series(ran)
    # Headline figures first: progress displays and tables show the first few.
    metrics = consistency_metrics(series, params.steady_window_s, params.round_s, params.block_size_bytes,
                                  free_space_bytes(target, valid_bytes))
    metrics.update(run_facts(params, target, series, ran))
    metrics["window_wa"] = window_wa(ran, series, params.steady_window_s)
    metrics["window_throttled_pct"] = window_throttled_pct(ran, series, params.steady_window_s)
    metrics["fresh_throttled_pct"] = fresh_throttled_pct(ran, series)
    metrics["spare_written_pct"] = spare_written_pct(target, valid_bytes, series, params.steady_window_s)
    if steady_verdict(params, metrics).outcome == "inconclusive":
        # The rule judged nothing: no "steady state reached: no" beside "Too short to judge" (QA),
        # and nothing for compare or the library to set against a drive that was judged.
        metrics["steady_attained"] = None
    return series, metrics


# The most spare area of the drives the lab describes (docs/drives.md: the Intel DC S3700 800 GB's
# 1 TiB and the Samsung 845DC PRO 800 GB's 1024 GiB of NAND under 800.2 GB; the simulator's presets
# alike): on a drive whose NAND is not known, the free space the torture must write before its
# window can show what the drive settles at is counted up to this.
MOST_SPARE_PCT = 37.4


def spare_written_pct(target: TargetInfo, valid_bytes: int, series: RunSeries, window_s: float) -> float | None:
    """On a drive whose raw NAND is not known (free_space_bytes then assumes the least, 7.37 % spare):
    the most spare area, in % of capacity, a drive could have and have run out of free blocks before
    the analysed window (the last `window_s`, as RunSeries.tail_count takes it) began: the host bytes
    written before it plus the data on the drive when the torture began, over the capacity, less one.
    None where the raw NAND is known (the simulator: its free space is the drive's own) or no window."""
    raw = target.extra.get("raw_bytes")
    if (isinstance(raw, int) and raw > 0) or not series.iops or target.capacity_bytes <= 0:
        return None
    before = math.fsum(series.write_bytes[:len(series.iops) - series.tail_count(window_s)])
    return 100.0 * ((before + valid_bytes) / target.capacity_bytes - 1.0)


# How a window figure's label names the window (torture_specs).
WINDOW_WORDS = "analysed window"
# The torture's IOPS are logged every period of the workload's default (1 s).
LOG_PERIOD_S: float = Workload.model_fields["log_period_s"].default


def whole_periods(params: TortureParams) -> bool:
    """Whether every logging period of the torture lasts the logging period (a second): each of
    its workloads, the one long run or each round, runs for a whole number of periods. Rounds of
    10.5 s end in a half-second period each (and a runtime of 120.5 s in one): their slowest
    "second" may be a half-second's rate."""
    return whole_periods_of(torture_lengths_s(params))


def whole_periods_of(lengths_s: Sequence[float]) -> bool:
    """Whether workloads of these lengths, logged every LOG_PERIOD_S, log whole periods only:
    each runs a whole number of periods (a figure of "seconds" is one of seconds)."""
    return all(math.isclose(length, round(length / LOG_PERIOD_S) * LOG_PERIOD_S, rel_tol=WHOLE_REL_TOL)
               for length in lengths_s)


def torture_warnings(params: TortureParams, free_bytes: int) -> tuple[str, ...]:
    """What `plan` and `run` warn of before the torture runs (MethodTest.warnings): a round the
    steady-state rule cannot judge as given, a verdict no run of these parameters can give, a
    window too short for any spread. `free_bytes`: the drive's free space when the torture begins
    (free_space_bytes), which the rule's windows wait for."""
    found = (sub_period_round(params), never_judged(params, free_bytes), one_period_window(params))
    return tuple(text for text in found if text)


def sub_period_round(params: TortureParams) -> str | None:
    """A round_s under the logging period: the rule cuts rounds of whole periods, at least one
    (analysis/steady_state.judge_series), so it judges rounds of a period, not round_s; QA: only the
    verdict, after the run, said so. A verdict still comes of it, so it is a warning, not a refusal;
    with until_steady each round is a workload shorter than a period, whose own mean the early stop
    judges (rounds_steady): it can stop on rounds the rule then calls unsteady."""
    if params.round_s >= LOG_PERIOD_S * (1 - WHOLE_REL_TOL):
        return None
    round_s, period = seconds_apart(params.round_s, LOG_PERIOD_S)
    early = (f"; each until_steady round runs under one period, so the early stop judges {round_s} s rounds the "
             "rule does not") if params.until_steady else ""
    return (f"round_s={number_text(params.round_s)} is under the {period} s logging period of the IOPS series: the "
            f"steady-state rule judges rounds of whole periods, so of {period} s{early}; give round_s of at least "
            f"{period}")


def never_judged(params: TortureParams, free_bytes: int) -> str | None:
    """Parameters no run of which the steady-state rule can judge (steady_verdict: "Too short to
    judge", or "Not judged" when no window begins after the free space was written): the torture at
    its longest (runtime_s, or max_rounds rounds until steady) is shorter than the steady-state
    window, or holds fewer rounds of the rule's length than the rule judges. The verdict's own count
    of those (least_judged_rounds) is taken with the free space written at the earliest it can be,
    by the end of the first logging period: the first round always holds that end, so the rule
    needs a round more than its window whenever the drive has free space (QA: a 400 s torture was
    warned of nothing, then "judging needs 6 rounds, at least 480 s"). In the verdict's words
    (judging_shortfall)."""
    periods = planned_periods_s(params)
    longest_s = math.fsum(periods)
    length_s = round_length_s(periods, LOG_PERIOD_S, params.round_s)
    rounds = len(round_cuts(periods, length_s, LOG_PERIOD_S))
    free_written_s = periods[0] if free_bytes > 0 and periods else 0.0  # the end of the first period, at the earliest
    needed = least_judged_rounds(free_written_s, length_s)
    shortfall = judging_shortfall(params, "runs at most", longest_s, rounds, length_s, needed)
    return f"{NEVER_JUDGED}: {shortfall}" if shortfall else None


def judging_shortfall(params: TortureParams, verb: str, ran_s: float, rounds: int, length_s: float,
                      needed: int) -> str | None:
    """Why the steady-state rule cannot judge a torture of `ran_s` holding `rounds` rounds of
    `length_s` of the `needed` (least_judged_rounds), and what to give: 'the torture ran 300 s, 3 of
    the 6 rounds of 80 s the rule needs (…); give runtime_s of at least 480'; None when it can. One
    text for the warning before the run (never_judged, `verb` 'runs at most') and the verdict after
    it (steady_verdict, 'ran'): QA: the warning said "3 of the 6 rounds … give runtime_s of at least
    480" and the verdict "3 of the 5 rounds of 80 s the method needs", with no advice."""
    window = params.steady_window_s
    under_window = ran_s < window * (1 - WHOLE_REL_TOL)
    if not under_window and rounds >= needed:
        return None
    ran, window_s = seconds_apart(ran_s, window)
    why = [f"shorter than the {window_s} s steady-state window (steady_window_s)"] if under_window else []
    if rounds < needed:
        held = f"{rounds} of the {needed} rounds of {seconds_text(length_s)} s the rule needs"
        if needed > PTS_WINDOW_ROUNDS:
            first = needed - PTS_WINDOW_ROUNDS
            held += (f" (its window of {PTS_WINDOW_ROUNDS} may not begin before the drive's free space is written, "
                     f"which the first {'round' if first == 1 else f'{first} rounds'} holds at the earliest)")
        cut = "" if math.isclose(length_s, params.round_s) else \
            f"; a round is whole logging periods of {seconds_text(LOG_PERIOD_S)} s, so round_s=" \
            f"{number_text(params.round_s)} gives rounds of {seconds_text(length_s)} s"
        why.append(held + cut)
    # A shorter window helps only where the rounds suffice; else the rounds' time is the least.
    advice = " and ".join(raise_words(params, max(window if under_window else 0.0, needed * length_s)))
    shorter = ", or a shorter steady_window_s" if rounds >= needed else ""
    give = f"; give {advice}{shorter}" if advice else ""
    return f"the torture {verb} {ran} s, {', and '.join(why)}{give}"


NEVER_JUDGED = "no steady-state verdict can come of these parameters"


def one_period_window(params: TortureParams) -> str | None:
    """A steady-state window the torture's periods fill with one: the spread of one sample is no
    spread, so the window's standard deviation, mean / standard deviation and coefficient of
    variation are left empty (analysis/consistency.window_metrics). Counted as the window takes its
    periods (tail_periods)."""
    periods = planned_periods_s(params)
    if window_samples(periods, params.steady_window_s) >= MIN_SPREAD_SAMPLES:
        return None
    period, least = seconds_text(LOG_PERIOD_S), seconds_text(MIN_SPREAD_SAMPLES * LOG_PERIOD_S)
    empty = f"so the window has no spread: its {SPREAD_WORDS} stay empty"
    if len(periods) < MIN_SPREAD_SAMPLES:
        return (f"the torture's {seconds_text(math.fsum(periods))} s log one period of the IOPS series at most (a "
                f"tail under half a {period} s period joins the last), {empty}; give runtime_s of at least {least}")
    return (f"steady_window_s={number_text(params.steady_window_s)} takes one {period} s period of the IOPS series, "
            f"{empty}; give steady_window_s of at least {least}")


def window_samples(periods_s: Sequence[float], window_s: float) -> int:
    """The periods the analysis takes for a window of `window_s` of these planned periods, the fewer of
    its two ways (tail_periods): planned whole periods it would round to the nearest count, but a run's
    last period ends a little after its runtime, so the run's are never all whole and are taken by
    time (covering_by_time). QA: steady_window_s=1.5 of a 60 s torture was counted 2 periods and
    ran as 1, with no spread unwarned of."""
    return min(tail_periods(periods_s, window_s, LOG_PERIOD_S), covering_by_time(periods_s[::-1], window_s))


SPREAD_WORDS = "standard deviation, mean / standard deviation and coefficient of variation"


def planned_periods_s(params: TortureParams) -> list[float]:
    """The logging periods the torture's workloads log, by length, as its series will hold them: each
    workload whole periods, then what is left of its runtime (whole_periods_of) as the engines end a
    series (engines/fio_parse.complete_series, as the simulator does): a tail under half a period
    joins the last period, a longer one is a short period of its own. QA: a 1.1 s torture was
    planned as two periods, 1 s and 0.1 s, and ran as one of 1.1 s, with no spread unwarned of."""
    periods: list[float] = []
    for length in torture_lengths_s(params):
        if whole_periods_of([length]):
            periods += [LOG_PERIOD_S] * round(length / LOG_PERIOD_S)
            continue
        count = math.floor(length / LOG_PERIOD_S)
        tail_s = length - count * LOG_PERIOD_S
        if count and tail_s < LOG_PERIOD_S / 2:
            periods += [LOG_PERIOD_S] * (count - 1) + [LOG_PERIOD_S + tail_s]
        else:
            periods += [LOG_PERIOD_S] * count + [tail_s]
    return periods


def raise_words(params: TortureParams, least_s: float) -> list[str]:
    """['runtime_s of at least 480', 'max_rounds of at least 6']: what to raise for the torture to
    last `least_s` (max_rounds where until_steady's rounds stop short of it). The verdicts and the
    warnings before the run both say it so."""
    raise_ = []
    if params.runtime_s < least_s * (1 - WHOLE_REL_TOL):
        raise_.append(f"runtime_s of at least {seconds_apart(least_s, params.runtime_s)[0]}")
    if params.until_steady and params.max_rounds * params.round_s < least_s * (1 - WHOLE_REL_TOL):
        raise_.append(f"max_rounds of at least {math.ceil(least_s / params.round_s - WHOLE_REL_TOL)}")
    return raise_


def fresh_words(params: TortureParams) -> str:
    """'first 5 s': the seconds the fresh figures take (fresh_iops), as their labels and rules say
    them; all of a torture shorter than FRESH_S (QA: a 2 s run's was "Fresh drive (first 5 s)")."""
    return f"first {seconds_text(min(FRESH_S, params.runtime_s))} s"


def period_word(whole: bool) -> str:
    """What one logged period is called: a second where every period is one (whole_periods_of)."""
    return "second" if whole else "logging period"


def period_labels(whole: bool) -> dict[str, str]:
    """The labels of the per-period figures: 'Slowest second, analysed window' where each period
    is a second (whole_periods), else 'Slowest logging period, …', and percentiles of the periods
    weighed by their length (time_percentile), which of whole seconds are percentiles of seconds."""
    w = WINDOW_WORDS
    one, many = period_word(whole), "seconds" if whole else "logging periods weighed by length"
    return {
        "window_iops_min": f"Slowest {one}, {w}",
        "window_iops_max": f"Fastest {one}, {w}",
        "window_iops_p1": f"1st percentile of {many}, {w}",
        "window_iops_p99": f"99th percentile of {many}, {w}",
        "run_iops_min": f"Slowest {one}, whole run",
        "run_iops_max": f"Fastest {one}, whole run",
    }


def torture_specs(params: TortureParams) -> list[MetricSpec]:
    """What consistency and WSAT both report of the torture (analysis/consistency.py). A label is
    declared once per method and parameters, for the report, compare and the library alike: the
    per-period figures name a second only where the parameters make every period one (QA:
    "Slowest second" of rounds of 10.5 s, whose slowest period lasted half a second)."""
    # The window's figures are named by the window, never by a length: a label is one per method
    # and parameters (compare gives it to every drive), while the window's length is measured, the
    # periods covering steady_window_s (window_s; 99.5 s of a 100 s setting in rounds of 20.5 s).
    # "last 100 s" beside a title of "last 99.5 s" read as two windows (QA); the title, summary,
    # rule and window_s give the length.
    w = WINDOW_WORDS
    per = period_labels(whole_periods(params))
    window: Mapping[str, object] = {"window": True}

    def fig(name: str, label: str, unit: str, better: Better | None, dims: Mapping[str, object] = window) -> MetricSpec:
        return MetricSpec(name, label, unit, better=better, dims=dims)

    return [
        # Measured: the time its periods cover (an early stop's rounds end a period short each, by
        # tenths of a second that differ from drive to drive); the method's window is the
        # steady_window_s parameter, which compares as one. As a setting, two early-stop runs of
        # one method were refused as unlike (399.6 against 399.7 s).
        MetricSpec("window_s", "Analysed window", SECONDS, kind="count"),
        fig("window_iops_mean", f"Mean IOPS, {w}", IOPS, "higher"),
        fig("window_iops_stddev", f"Standard deviation of IOPS, {w}", IOPS, "lower"),
        fig("window_mean_stddev_ratio", f"Mean / standard deviation, {w}", "", "higher"),
        fig("window_cv_pct", f"Coefficient of variation, {w}", PCT, "lower"),
        fig("window_iops_min", per["window_iops_min"], IOPS, "higher"),
        fig("window_iops_max", per["window_iops_max"], IOPS, "higher"),
        fig("window_iops_p1", per["window_iops_p1"], IOPS, "higher"),
        fig("window_iops_p99", per["window_iops_p99"], IOPS, "higher"),
        fig("window_mb_s", f"Throughput, {w}", MB_S, "higher"),
        fig("fresh_iops", f"Fresh drive ({fresh_words(params)})", IOPS, "higher", {}),
        MetricSpec("window_fresh_pct", f"{w.capitalize()} as % of fresh", PCT, better="higher", dims=window,
                   thresholds=(CLIFF_SHARE_PCT,)),
        fig("run_iops_min", per["run_iops_min"], IOPS, "higher", {}),
        fig("run_iops_max", per["run_iops_max"], IOPS, "higher", {}),
        fig("run_iops_mean", "Mean IOPS, whole run", IOPS, "higher", {}),
        MetricSpec("runtime_s", "Torture time", SECONDS, kind="count"),
        MetricSpec("host_gb_written", "Host data written", GB, kind="count"),
        MetricSpec("steady_attained", "Steady state reached (SNIA PTS rule)", kind="verdict"),
        MetricSpec("steady_rounds_judged", "Rounds judged for steady state", kind="count"),
        MetricSpec("steady_windows_judged", "Windows of rounds judged (none before the free space is written)",
                   kind="count"),
        MetricSpec("steady_range_pct", "Range of round means in the judged window", PCT, better="lower",
                   thresholds=(PTS_MAX_RANGE_PCT,)),
        MetricSpec("steady_slope_excursion_pct", "Slope excursion in the judged window", PCT, better="lower",
                   thresholds=(PTS_MAX_SLOPE_PCT,)),
        fig("time_to_steady_s", "Time to steady state", SECONDS, "lower", {}),
        MetricSpec("steady_detected_s", "Steady state detected at", SECONDS, kind="count"),
        MetricSpec("steady_round_s", "Round length for the steady-state rule", SECONDS, kind="setting",
                   param="round_s"),
        # A fact of the drive (its spare area, the span's share), not of the method: were it a
        # setting, drives with other spare areas, and the 25 % variant, would never compare.
        MetricSpec("free_space_gb", "Free NAND when the torture began (the least a drive has, where not known)",
                   GB, kind="count"),
        MetricSpec("free_space_written_s", "Free space written by (no steady window before)", SECONDS,
                   kind="count"),
        MetricSpec("spare_written_pct", "Most spare area run out of before the analysed window (NAND not known)",
                   PCT, kind="count"),
        MetricSpec("op_pct", "Extra over-provisioning", PCT, kind="setting"),
        MetricSpec("span_bytes", "Span written", BYTES, kind="setting"),
        MetricSpec("span_pct", "Span as % of capacity", PCT, kind="setting"),
        MetricSpec("rounds_run", "Rounds run (early stop)", kind="count"),
        MetricSpec("capacity_writes", "Drive capacities written", "times", kind="count"),
        MetricSpec("fio_ss_attained", "fio's steady-state detector fired", kind="verdict"),
        fig("window_wa", f"Write amplification, {w} (simulator)", "", "lower"),
        MetricSpec("window_throttled_pct", f"Share of time throttled, {w}", PCT, kind="count"),
        MetricSpec("fresh_throttled_pct", f"Share of time throttled, {fresh_words(params)}", PCT, kind="count"),
    ]


def steady_verdict(params: TortureParams, metrics: Metrics) -> Verdict:
    """Whether the analysed window is steady state, or why that cannot be said."""
    runtime, window = metrics.get("runtime_s"), params.steady_window_s
    judged = metrics.get("steady_rounds_judged")
    rounds_s = seconds_text(rule_round_s(params, metrics))  # the rounds the rule cut, as `because` says them
    rule = (f"SNIA PTS: over {PTS_WINDOW_ROUNDS} consecutive {rounds_s} s rounds, max - min of the round means ≤ "
            f"{PTS_MAX_RANGE_PCT:g} % of their mean and the least-squares line's excursion ≤ {PTS_MAX_SLOPE_PCT:g} %")
    figures = {k: metrics.get(k) for k in ("runtime_s", "window_s", "steady_range_pct",
                                           "steady_slope_excursion_pct", "time_to_steady_s")}
    base = {"key": "steady_state", "question": "Did the drive reach steady state?", "rule": rule, "figures": figures}
    if not isinstance(runtime, int | float) or runtime < window or not isinstance(judged, int) \
            or judged < PTS_WINDOW_ROUNDS:
        span = metrics.get("window_s")  # what the figures cover: the last window, or all of a shorter run
        span = span if isinstance(span, int | float) else runtime
        covered = f"{window_text(span, window)} s" if isinstance(span, int | float) else "no data"
        return Verdict(**base, outcome="inconclusive",
                       summary=f"Too short to judge: figures are for the last {covered}, not steady state",
                       because=too_short_words(params, metrics))
    if metrics.get("steady_windows_judged") == 0:  # bundles before it carry no such count
        return unjudged_verdict(params, metrics, base)
    if metrics.get("steady_attained"):
        stretch = judged_stretch(params, metrics)
        since = metrics.get("time_to_steady_s")
        since_s = seconds_text(since) if isinstance(since, int | float) else "?"
        return Verdict(**base, outcome="yes", summary=f"Steady state from {since_s} s",
                       because=f"{f'the rounds from {stretch}: ' if stretch else ''}range "
                               f"{_within(metrics.get('steady_range_pct'), PTS_MAX_RANGE_PCT)} %, slope excursion "
                               f"{_within(metrics.get('steady_slope_excursion_pct'), PTS_MAX_SLOPE_PCT)} % of the "
                               f"mean{_figures_elsewhere(params, metrics)}")
    measured = metrics.get("window_s")  # the seconds the figures cover, as the summary names them
    last = seconds_text(measured if isinstance(measured, int | float) else window)
    return Verdict(**base, outcome="no", summary=f"Not steady: the last {last} s are not steady state",
                   because=_unsteady_because(params, metrics))


def rule_round_s(params: TortureParams, metrics: Metrics) -> float:
    """The rounds the rule cut (whole logging periods, at least one), else round_s: a run's
    round_s=0.01 was judged on rounds of 1 s (analysis/steady_state.judge_series)."""
    length = metrics.get("steady_round_s")
    return float(length) if isinstance(length, int | float) and length > 0 else params.round_s


def too_short_words(params: TortureParams, metrics: Metrics) -> str:
    """Why a run is too short to judge, in true counts and the warning's own words before the run
    (judging_shortfall): the rounds it held of those the rule needs (least_judged_rounds, after
    the free space was written: the end of the run where it never was), and the steady-state window
    it is shorter than (QA: "10 of the 5 rounds"; "0 of the 5 rounds of 0.01 s" of a 0.05 s run,
    whose rounds the rule cut were of 1 s; "3 of the 5 rounds … the method needs" beside a warning of
    "3 of the 6 rounds … give runtime_s of at least 480")."""
    runtime, judged = metrics.get("runtime_s"), metrics.get("steady_rounds_judged")
    if not isinstance(runtime, int | float):
        return "the torture ran no data"
    ran_s = float(runtime)
    length = rule_round_s(params, metrics)
    rounds = judged if isinstance(judged, int) else 0
    free_s, free_gb = metrics.get("free_space_written_s"), metrics.get("free_space_gb")
    if not isinstance(free_s, int | float):  # never written (or a bundle before it was counted)
        free_s = ran_s if isinstance(free_gb, int | float) and free_gb > 0 else 0.0
    needed = least_judged_rounds(free_s, length)
    # steady_verdict calls a run too short below the window or its rounds, so a shortfall is found
    # (the fallback: a run within WHOLE_REL_TOL of its window).
    return judging_shortfall(params, "ran", ran_s, rounds, length, needed) or \
        f"the torture ran {seconds_text(ran_s)} s, shorter than the steady-state window"


def window_text(measured_s: float, window_s: float) -> str:
    """The seconds a run's window figures cover, set against the steady-state window they fall short
    of in figures that read shorter (seconds_apart: QA: the figures of a 399.99 s torture were "for
    the last 400 s", beside a 400 s window); as seconds_text says them otherwise."""
    if measured_s < window_s * (1 - WHOLE_REL_TOL):
        return seconds_apart(measured_s, window_s)[0]
    return seconds_text(measured_s)


def judged_stretch(params: TortureParams, metrics: Metrics) -> str:
    """'400 to 800 s': the run's seconds the steady-state figures judged, the first steady window or
    else the last window judged (a timed run's first steady window can lie well before the last
    `steady_window_s` its tables give); "" when the run does not say."""
    length = rule_round_s(params, metrics)
    judged, start = metrics.get("steady_rounds_judged"), metrics.get("time_to_steady_s")
    if not metrics.get("steady_attained"):
        start = (judged - PTS_WINDOW_ROUNDS) * length if isinstance(judged, int) else None
    if not isinstance(start, int | float):
        return ""
    return f"{seconds_text(start)} to {seconds_text(start + PTS_WINDOW_ROUNDS * length)} s"


def _figures_elsewhere(params: TortureParams, metrics: Metrics) -> str:
    """Said when the judged window is not the stretch the run's window figures describe."""
    runtime, window = metrics.get("runtime_s"), metrics.get("window_s")
    stretch = judged_stretch(params, metrics)
    if not isinstance(runtime, int | float) or not isinstance(window, int | float) or not stretch:
        return ""
    last = f"{seconds_text(runtime - window)} to {seconds_text(runtime)} s"
    return "" if last == stretch else f" (the window figures are for the last {seconds_text(window)} s, from {last})"


def _within(pct: object, limit: float) -> str:
    """A steady-state criterion's figure on its own side of the limit (20.04, never 20.0, above 20)."""
    return beside(pct, limit, decimals=1) if isinstance(pct, int | float) else "?"


# Steady state at or below this share of the fresh rate is a cliff (the fall reviews show).
CLIFF_SHARE_PCT = 80.0


def cliff_verdict(metrics: Metrics, steady: Verdict, params: TortureParams) -> Verdict:
    """Whether random writes fall off a cliff from the fresh rate to the steady state."""
    fresh, share = metrics.get("fresh_iops"), metrics.get("window_fresh_pct")
    rule = (f"a cliff when the steady state is at most {CLIFF_SHARE_PCT:g} % of the fresh rate "
            f"({fresh_words(params)}); judged only once the drive reached steady state")
    base = {"key": "cliff", "question": "Does random-write performance fall off a cliff?", "rule": rule,
            "figures": {k: metrics.get(k) for k in ("fresh_iops", "window_iops_mean", "window_fresh_pct",
                                                    "cliff_gb_written")}}
    if steady.outcome != "yes" or not isinstance(share, float) or not isinstance(fresh, float):
        return Verdict(**base, outcome="inconclusive", summary="Cliff not judged: no steady state",
                       because="where the drive settles is unknown until it reaches steady state")
    if window_before_free_s(metrics):
        return Verdict(**base, outcome="inconclusive", summary=f"Cliff not judged: {FRESH_WINDOW_WORDS}",
                       because=fresh_window_words(params, metrics))
    where = metrics.get("cliff_gb_written")
    after = f" after {in_unit(where, GB)} written" if isinstance(where, float) else ""
    heat = heat_in_fall(metrics)
    heat = f"; {heat}" if heat else ""
    shown = beside(share, CLIFF_SHARE_PCT)  # 80.04 (no cliff) and 79.96 (a cliff) never print as 80
    if share <= CLIFF_SHARE_PCT:
        return Verdict(**base, outcome="yes", summary=f"Falls to {shown} % of its fresh rate{after}",
                       because=f"fresh {fresh:,.0f} IOPS, steady {metrics.get('window_iops_mean'):,.0f} IOPS{heat}")
    spare = metrics.get("spare_written_pct")
    if isinstance(spare, int | float) and spare < MOST_SPARE_PCT:
        return Verdict(**base, outcome="inconclusive", summary=f"Cliff not judged: {SPARE_UNKNOWN_WORDS}",
                       because=spare_unknown_words(params, metrics, shown))
    return Verdict(**base, outcome="no", summary=f"No cliff: holds {shown} % of its fresh rate",
                   because=f"fresh {fresh:,.0f} IOPS, steady {metrics.get('window_iops_mean'):,.0f} IOPS{heat}")


FRESH_WINDOW_WORDS = "the analysed window began before the free space was written"
SPARE_UNKNOWN_WORDS = "no fall yet, and the drive's spare area is not known"


def spare_unknown_words(params: TortureParams, metrics: Metrics, shown: str) -> str:
    """Why a window holding the fresh rate says no cliff of a drive whose NAND is not known
    (spare_written_pct under MOST_SPARE_PCT), and the runtime that would write the most spare
    area's free space before the window, at the run's own rate."""
    figures = [metrics.get(k) for k in ("spare_written_pct", "host_gb_written", "runtime_s", "window_s", "span_bytes",
                                        "span_pct")]
    numbers = [float(v) for v in figures if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) != len(figures):
        return "the drive's NAND is not known"
    spare, host_gb, runtime, window, span, span_pct = numbers
    advice = ""
    if min(host_gb, runtime, span, span_pct) > 0:
        capacity = span / (span_pct / 100)
        rate = host_gb * 1e9 / runtime  # the run's own, plateau and all
        short_bytes = capacity * (MOST_SPARE_PCT - spare) / 100  # more to write before the window
        need_s = runtime - window + short_bytes / rate + params.steady_window_s
        without = " without until_steady" if params.until_steady else ""
        advice = f"; give runtime_s of at least {number_text(math.ceil(need_s))}{without}"
    return (f"the analysed window holds {shown} % of the fresh rate, but the drive's NAND is not known: before the "
            f"window began the torture had written the free space of a drive with up to {spare:.1f} % spare "
            f"area, and drives keep up to {MOST_SPARE_PCT:g} % (Intel DC S3700, Samsung 845DC PRO): one with more "
            f"would not have run out of free blocks yet{advice}")


def window_before_free_s(metrics: Metrics) -> float | None:
    """Seconds of the analysed window (the run's last `window_s`) before the torture had written the
    drive's free space (free_space_written_s): random writes then still landed in free blocks, so
    the window's figures mix the fresh drive with its steady state. 0 when the window begins at or
    after it, as the rule's windows must (judge_run); None when the run does not say (a bundle before
    the figure; a run that never wrote it, which free_space_never_written speaks for). QA: a 60 s
    torture on sim:sm951-nvme-256?capacity_gib=16&op=100 with steady_window_s=60 was "No cliff: holds
    81 % of its fresh rate", its window holding the 23 s at 101,000 IOPS before the free space was
    written beside the steady state the rule found after it, at 70 % of fresh."""
    runtime, window, free_s = (metrics.get(k) for k in ("runtime_s", "window_s", "free_space_written_s"))
    if not isinstance(runtime, int | float) or not isinstance(window, int | float) \
            or not isinstance(free_s, int | float):
        return None
    before = free_s - (runtime - window)
    # The window starts where a period ends, as free_space_written_s is one: a rounding off it is at it.
    return before if before > WHOLE_REL_TOL * max(1.0, runtime) else 0.0


def fresh_window_words(params: TortureParams, metrics: Metrics) -> str:
    """Why a window that began before the free space was written (window_before_free_s) is no steady
    state to set against the fresh rate, and the longest window this run's seconds after it hold."""
    before = window_before_free_s(metrics)
    runtime, window, free_s, free_gb = (metrics.get(k) for k in ("runtime_s", "window_s", "free_space_written_s",
                                                                 "free_space_gb"))
    if not before or not isinstance(runtime, int | float) or not isinstance(window, int | float) \
            or not isinstance(free_s, int | float):
        return ""
    free = f"{free_gb:.1f} GB of free space" if isinstance(free_gb, int | float) else "free space"
    after_s = math.floor((runtime - free_s) / LOG_PERIOD_S + WHOLE_REL_TOL) * LOG_PERIOD_S  # whole periods
    advice = [f"steady_window_s of at most {number_text(after_s)}"] if after_s >= MIN_SPREAD_SAMPLES * LOG_PERIOD_S \
        else []
    if not params.until_steady:  # an early stop ends at its steady window, however long runtime_s is
        advice.append(f"runtime_s of at least {number_text(math.ceil(free_s + params.steady_window_s))}")
    give = f"; give {' or '.join(advice)}" if advice else ""
    return (f"the analysed window (the last {seconds_text(window)} s, from {seconds_text(runtime - window)} s) holds "
            f"{seconds_text(before)} s before the torture had written the drive's {free} (by "
            f"{seconds_text(free_s)} s), when random writes still landed in free blocks, so its mean mixes the fresh "
            f"drive with its steady state{give}")


def torture_verdicts(params: TortureParams, metrics: Metrics) -> tuple[Verdict, ...]:
    steady = steady_verdict(params, metrics)
    return steady, cliff_verdict(metrics, steady, params)


def unjudged_verdict(params: TortureParams, metrics: Metrics, base: dict[str, Any]) -> Verdict:
    """Enough rounds, but none of their windows begins after the drive's free space was written
    (before that, random writes land in free blocks and a flat stretch is no steady state): the
    rule judged nothing, so the run says nothing of steady state (QA: it said "no, the drive stalled")."""
    runtime, free_s = metrics.get("runtime_s"), metrics.get("free_space_written_s")
    length = rule_round_s(params, metrics)  # the rounds the rule cut (whole periods: whole seconds)
    ran = f"{seconds_text(runtime)} s" if isinstance(runtime, int | float) else "the whole run"
    if free_space_never_written(metrics):
        return Verdict(**base, outcome="inconclusive", summary="Not judged: the torture never wrote the drive's "
                                                               "free space",
                       because=f"the torture ran {ran} and {never_written_words(metrics)}"
                               f"{never_written_advice(params, metrics, length)}")
    needed = least_judged_words(params, free_s, length) if isinstance(free_s, int | float) else ""
    # Without the figure (a bundle before it was counted) the run says nothing of when it was written.
    written = (f"wrote the drive's free space by {seconds_text(free_s)} s" if isinstance(free_s, int | float)
               else "does not say when it wrote the drive's free space")
    return Verdict(**base, outcome="inconclusive",
                   summary=f"Not judged: no {PTS_WINDOW_ROUNDS}-round window after the free space was written",
                   because=f"the torture ran {ran} and {written}, so no window of "
                           f"{PTS_WINDOW_ROUNDS} rounds of {seconds_text(length)} s begins after it{needed}")


def free_space_never_written(metrics: Metrics) -> bool:
    """Whether the run counted the drive's free space and never wrote all of it (free_space_written_s
    null beside free_space_gb): random writes then all landed in free blocks and garbage collection
    never had to run, so no window of the run is steady state of a full drive. A bundle from before
    the figure was counted has no such key, and says nothing either way. QA: a null figure was read
    as "wrote the drive's free space late in the run" of a run that wrote 12.4 of its 18.8 GB."""
    free_gb = metrics.get("free_space_gb")
    return ("free_space_written_s" in metrics and metrics["free_space_written_s"] is None
            and isinstance(free_gb, int | float) and free_gb > 0)


def never_written_words(metrics: Metrics) -> str:
    """'wrote 12.4 GB of host data against the drive's 18.8 GB of free space: the drive never left its
    fresh state, so no window of the run is steady state of a full drive'."""
    free_gb, host_gb = metrics.get("free_space_gb"), metrics.get("host_gb_written")
    free = f"{free_gb:.1f} GB of free space" if isinstance(free_gb, int | float) else "free space"
    wrote = (f"wrote {host_gb:.1f} GB of host data against the drive's {free}" if isinstance(host_gb, int | float)
             else f"never wrote all of the drive's {free}")
    return f"{wrote}: the drive never left its fresh state, so no window of the run is steady state of a full drive"


def never_written_advice(params: TortureParams, metrics: Metrics, round_s: float) -> str:
    """What judging would need, at the run's own write rate: when the free space would be written,
    then the rule's rounds after it (least_judged_words); "" where the run gives no rate."""
    runtime, free_gb, host_gb = (metrics.get(k) for k in ("runtime_s", "free_space_gb", "host_gb_written"))
    if not isinstance(runtime, int | float) or not isinstance(free_gb, int | float) \
            or not isinstance(host_gb, int | float) or min(runtime, free_gb, host_gb) <= 0:
        return ""
    rate_gb_s = host_gb / runtime
    free_s = free_gb / rate_gb_s
    return (f"; at its {rate_gb_s:.2f} GB/s it would have written the free space by about {seconds_text(free_s)} s"
            f"{least_judged_words(params, free_s, round_s)}")


def least_judged_words(params: TortureParams, free_s: float, round_s: float) -> str:
    """'; judging needs 6 rounds, at least 45 s: …': the shortest run the rule would judge, by the
    rule's own rounds (least_judged_s), and what to raise. QA: it said "at least 38.5 s" of a 40 s
    run (the guard plus 5 rounds, not the rounds after the guard) and offered until_steady to a run
    that had it; until_steady only stops early, within runtime_s and max_rounds."""
    rounds = least_judged_rounds(free_s, round_s)
    least_s = rounds * round_s
    raise_ = raise_words(params, least_s)
    advice = f" (give it {' and '.join(raise_)})" if raise_ else ""
    return f"; judging needs {rounds} rounds, at least {seconds_text(least_s)} s{advice}"


def _unsteady_because(params: TortureParams, metrics: Metrics) -> str:
    range_pct, slope_pct = metrics.get("steady_range_pct"), metrics.get("steady_slope_excursion_pct")
    if not isinstance(range_pct, float) or not isinstance(slope_pct, float):
        return "the round means average zero (the drive stalled)"
    stretch = judged_stretch(params, metrics)
    return (f"in the last window judged{f' (from {stretch})' if stretch else ''} the range is "
            f"{_within(range_pct, PTS_MAX_RANGE_PCT)} % (limit {PTS_MAX_RANGE_PCT:g} %) and the slope excursion "
            f"{_within(slope_pct, PTS_MAX_SLOPE_PCT)} % (limit {PTS_MAX_SLOPE_PCT:g} %)")


def torture_time(p: TortureParams) -> str:
    """How long the torture ran: its runtime, or, stopping at steady state, its rounds (QA: an
    until-steady run that stopped after 10 rounds was captioned "for 3600 s")."""
    if not p.until_steady:
        return f"for {seconds_text(p.runtime_s)} s"
    return f"in rounds until steady state (at most {rounds_words(torture_lengths_s(p))})"


def filled_bytes(params: ConsistencyParams, span: int) -> int:
    """Data on the drive when the torture begins: the span, unless the method skips the fill."""
    return span if params.fill_passes else 0


def until_steady_notes(params: TortureParams, free_bytes: int) -> tuple[str, ...]:
    return (f"until steady: at most {rounds_words(torture_lengths_s(params))} in rounds; no steady "
            f"window before the rounds have written the drive's {free_bytes / 1e9:.1f} GB of free space",)


def short_run_notes(params: TortureParams) -> tuple[str, ...]:
    """A torture shorter than the method's window cannot show steady state: say so in the plan, in
    figures that read shorter (seconds_apart: 399.99 is not "400")."""
    if params.runtime_s >= params.steady_window_s:
        return ()
    runtime, window = seconds_apart(params.runtime_s, params.steady_window_s)
    return (f"runtime_s={number_text(params.runtime_s)} is shorter than the {window} s steady-state window: figures "
            f"will be for the last {runtime} s and cannot be called steady state",)


# The load the catalogue's title names: the method's default. A run's title names its own in its
# place (report/section_generic.run_title); the catalogue (`ssdlab list`, docs/methods) describes
# the method at its defaults.
def torture_load(params: TortureParams) -> str:
    """The torture's load in its title's words: '4 KiB random write'."""
    return f"{block_text(params.block_size_bytes)} random write"


DEFAULT_LOAD = torture_load(TortureParams())


def consistency_title(load: str) -> str:
    return f"Performance consistency ({load}, steady state)"


class ConsistencyTest(MethodTest[ConsistencyParams]):
    name = "consistency"
    title = consistency_title(DEFAULT_LOAD)
    summary = "purge, fill, 4 KiB QD32 random write 3600 s; steady mean/stddev of the last 400 s"
    params_model = ConsistencyParams

    def run_title(self, params: ConsistencyParams, load: str | None = None) -> str:
        return consistency_title(load or torture_load(params))

    def plan(self, params: ConsistencyParams, target: TargetInfo) -> TestPlan:
        span = usable_span_bytes(target, params.op_pct, params.span_bytes)
        prep: list[Action] = [Purge(), *fill_actions(span, params.fill_passes, seed=params.seed)]
        entry = filled_state(span, params.op_pct, params.fill_passes)
        notes = span_notes(target, params.op_pct, span, params.span_bytes) + short_run_notes(params)
        free = free_space_bytes(target, filled_bytes(params, span))
        if params.until_steady:
            notes += until_steady_notes(params, free)
        return self.make_plan(params, torture_actions(params, span, free), notes, prep=prep, entry=entry,
                              exit=tortured_state(params, span, entry))

    def skip(self, params: ConsistencyParams, action: Action, done: Mapping[str, Measurement]) -> bool:
        return skip_torture_round(params, action, done)

    def warnings(self, params: ConsistencyParams, target: TargetInfo) -> tuple[str, ...]:
        span = usable_span_bytes(target, params.op_pct, params.span_bytes)
        return torture_warnings(params, free_space_bytes(target, filled_bytes(params, span)))

    def metric_specs(self, params: ConsistencyParams, target: TargetInfo) -> MetricSet:
        return metric_set([*torture_specs(params), MetricSpec("fill_passes", "Sequential fill passes", kind="setting")])

    def analyze(self, params: ConsistencyParams, target: TargetInfo, results: TestResults) -> Metrics:
        span = usable_span_bytes(target, params.op_pct, params.span_bytes)
        _, metrics = torture_metrics(params, target, results, filled_bytes(params, span))
        metrics["fill_passes"] = params.fill_passes
        return metrics

    def verdicts(self, params: ConsistencyParams, metrics: Metrics) -> tuple[Verdict, ...]:
        return torture_verdicts(params, metrics)


class WsatTest(MethodTest[TortureParams]):
    name = "wsat"
    title = "Write saturation (SNIA PTS WSAT)"
    summary = "purge, then 4 KiB QD32 random write from fresh; IOPS against time and host GB written"
    params_model = TortureParams

    def plan(self, params: TortureParams, target: TargetInfo) -> TestPlan:
        span = usable_span_bytes(target, params.op_pct, params.span_bytes)
        entry = filled_state(span, params.op_pct, 0)
        notes = span_notes(target, params.op_pct, span, params.span_bytes) + short_run_notes(params)
        free = free_space_bytes(target, 0)
        if params.until_steady:
            notes += until_steady_notes(params, free)
        return self.make_plan(params, torture_actions(params, span, free), notes, prep=[Purge()], entry=entry,
                              exit=tortured_state(params, span, entry))

    def skip(self, params: TortureParams, action: Action, done: Mapping[str, Measurement]) -> bool:
        return skip_torture_round(params, action, done)

    def warnings(self, params: TortureParams, target: TargetInfo) -> tuple[str, ...]:
        return torture_warnings(params, free_space_bytes(target, 0))

    def metric_specs(self, params: TortureParams, target: TargetInfo) -> MetricSet:
        return metric_set([
            MetricSpec("fob_iops", f"Fresh out of box ({fresh_words(params)})", IOPS, better="higher"),
            MetricSpec("gb_written_to_steady", "Host data written before steady state", GB),
            MetricSpec("cliff_gb_written", "Host data written at the cliff (half-way down)", GB, better="higher"),
            *torture_specs(params),
        ])

    def analyze(self, params: TortureParams, target: TargetInfo, results: TestResults) -> Metrics:
        series, metrics = torture_metrics(params, target, results, 0)
        # The cliff is placed exactly where the cliff verdict judges one: after steady state, and not of
        # a window that began before the free space was written (window_before_free_s).
        judged = cliff_verdict(metrics, steady_verdict(params, metrics), params).conclusive
        return {**wsat_extras(series, metrics, judged), **metrics}

    def verdicts(self, params: TortureParams, metrics: Metrics) -> tuple[Verdict, ...]:
        return torture_verdicts(params, metrics)


def wsat_extras(series: RunSeries, metrics: Metrics, cliff_judged: bool) -> Metrics:
    """Where on the GB-written axis the drive fell off the cliff and settled. The cliff is placed
    only where cliff_verdict judges one (`cliff_judged`: the drive reached steady state). QA: a
    run with "Cliff not judged: no steady state" still listed "Host data written at the cliff",
    and compare and the library ranked it."""
    gb = series.cumulative_gb_written()
    fresh, steady = metrics.get("fresh_iops"), metrics.get("window_iops_mean")
    settle = metrics.get("time_to_steady_s")
    out: Metrics = {"fob_iops": fresh, "gb_written_to_steady": None, "cliff_gb_written": None}
    if isinstance(settle, float) and gb:
        periods = series.periods_before(settle)  # before the steady window began (by time: periods can be short)
        out["gb_written_to_steady"] = gb[min(len(gb), periods) - 1] if periods else 0.0
    # Only a fall the cliff verdict would call one has a cliff to place: half-way down a 1 % dip
    # is wherever the noise first crosses it.
    if cliff_judged and isinstance(fresh, float) and isinstance(steady, float) \
            and steady <= CLIFF_SHARE_PCT / 100 * fresh:
        out["cliff_gb_written"] = cliff_gb(series, (fresh + steady) / 2)
    return out


# The cliff is placed by a running mean over this many logging periods' time (10 s at 1 s
# periods): long enough that one slow period (a GC pause) does not place it where the noise
# first crosses half-way, short against the minutes a drive takes to fall. By time, not by
# count: rounds an early stop joined end a period short each, and such a period is no whole one.
CLIFF_SMOOTH_PERIODS = 10


def cliff_gb(series: RunSeries, threshold: float, smooth: int = CLIFF_SMOOTH_PERIODS) -> float | None:
    """GB written when the running mean over the last `smooth` logging periods' time, each
    period's IOPS weighed by its length, first drops below the threshold (at the end of the
    period that ends that stretch). A stretch is the periods whose middle lies within that time
    of its end (as RunSeries.tail_count takes a window), and the first one ends once the run
    has lasted that long; whole periods make it `smooth` of them, as it always was."""
    gb = series.cumulative_gb_written()
    iops, lengths = series.iops, series.lengths_s
    if all_whole(lengths, series.period_s):
        for end in range(smooth, len(iops) + 1):
            if fmean(iops[end - smooth:end]) < threshold:
                return gb[end - 1]
        return None
    span_s = smooth * series.period_s
    ends = np.cumsum(lengths)
    middles = ends - np.asarray(lengths) / 2
    for end in range(1, len(iops) + 1):
        if ends[end - 1] < span_s * (1 - WHOLE_REL_TOL):
            continue  # the run has not lasted one stretch yet
        start = min(end - 1, int(np.searchsorted(middles, ends[end - 1] - span_s, side="right")))
        if time_mean(iops[start:end], lengths[start:end]) < threshold:
            return gb[end - 1]
    return None


TESTS = (ConsistencyTest(), WsatTest())
# docs/methods/consistency.md's 25 % over-provisioning variant: the purged device with a quarter left unused.
CONSISTENCY_OP25 = suite_entry("consistency", name="consistency-op25", op_pct=25)
VARIANTS = (CONSISTENCY_OP25,)
SUITES = (
    Suite(name="consistency", title="Performance consistency, default and 25 % over-provisioning", entries=(
        suite_entry("consistency"), CONSISTENCY_OP25,
    )),
)
