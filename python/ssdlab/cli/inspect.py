"""Commands that look and change nothing: list, info, plan."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from ssdlab.bundle import RAW_DIR
from ssdlab.cli.app import (
    LibraryOpt,
    ParamOpt,
    RateOpt,
    SteadyOpt,
    SuiteOpt,
    TargetArg,
    TargetOpt,
    TestOpt,
    app,
    one_target,
    out,
    overrides_from,
    plain,
    print_readers,
    print_target_remarks,
    print_warnings,
    refuse_a_name_for_a_target,
)
from ssdlab.device_rates import with_measured_rates
from ssdlab.engines import engine_for
from ssdlab.engines.base import Engine
from ssdlab.engines.fio_multi import MultiHostFioEngine
from ssdlab.errors import EngineError, UsageError
from ssdlab.library import Library
from ssdlab.methods import REGISTRY, VARIANTS, all_suites
from ssdlab.methods.base import Measure
from ssdlab.planning import (
    PlannedTest,
    assumed_rates,
    engine_refusal,
    given_rates,
    plan_run,
    plan_warnings,
    run_refusal,
    select_entries,
    stops_early_by_fio,
)
from ssdlab.report.identity import link_text, member_text
from ssdlab.report.terminal import FittedTable, facts_table
from ssdlab.report.terminal import print_hanging as hanging
from ssdlab.steps import Idle, Purge, ReplayTrace
from ssdlab.suites import CUSTOM_SUITE
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target, TargetInfo, with_capacity
from ssdlab.targets.sysinfo import hctm_counts, recorded_threshold_kelvin
from ssdlab.units import decimal_capacity, format_duration, is_number, number_text, parse_rate

if TYPE_CHECKING:
    from ssdlab.engines.fio import FioEngine


@app.command("list")
def list_cmd(params: Annotated[bool, typer.Option("--params", help="Show each test's parameters.")] = False) -> None:
    """List suites and tests (every name shown runs with --test)."""
    # Laid out for the terminal's width (report.terminal): a name typed with --test or --suite and a
    # parameter's value are never broken mid-word ("consistenc|y", "size_bytes=107374|1824").
    out.print(FittedTable("Suites", "", ("suite", "tests", "description"), tuple(
        (suite.name, ", ".join(e.name for e in suite.entries), suite.title) for suite in all_suites().values())))
    rows = []
    for test in REGISTRY.values():
        defaults = ", ".join(f"{k}={v}" for k, v in test.params_model().model_dump().items())
        rows.append((test.name, test.title, test.summary, *([defaults] if params else [])))
    for variant in VARIANTS.values():
        given = ", ".join(f"{k}={v}" for k, v in variant.params.items())
        rows.append((variant.name, f"{REGISTRY[variant.test].title}, {given}", f"`{variant.test}` with {given}",
                     *([given] if params else [])))
    header = ("test", "title", "what it does", *(["parameters (default)"] if params else []))
    out.print(FittedTable("Tests", "", header, tuple(rows)))


def _show(value: object) -> str:
    """A fact as a reader says it: "yes"/"no" for a flag, "—" when it is not known."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "—" if value is None else str(value)


def confirm_text(info: TargetInfo, token: str) -> str:
    """What writing needs typed, as `run` checks it: the serial, or for a device without one (a loop
    device) its kernel name; a refusal of a wrong --yes points here."""
    without = " (no serial: its kernel name)" if info.kind == "block" and not info.serial else ""
    return f"--destroy --yes={token}{without}"


def write_setup_refusal(target: Target) -> str | None:
    """Why `run` would refuse a test that writes to the target whatever the flags, before writing
    (planning.run_refusal of a plan that writes: a kernel that cannot build the array, a scratch
    file it cannot grow), less its being in use, which the safety row says already."""
    return target.setup_refusal(True) or target.unavailable()


def info_rows(info: TargetInfo, token: str | None = None, refusal: str | None = None) -> list[tuple[str, str]]:
    """`info`'s rows; `refusal`: why run refuses to write it (write_setup_refusal), said as its
    safety in place of "writable" (QA: a RAID-0 on a kernel without md read "writable", and which
    --yes its writes needed, while plan and run refused it)."""
    safety = info.safety
    state = ("IN USE: " + "; ".join(safety.reasons) if not safety.writable
             else f"run refuses to write it: {refusal}" if refusal else "writable")
    member = member_text(info)  # an array's member facts: each member's (report/identity.py)

    def each(field: str) -> str:
        return member(lambda i: _show(getattr(i, field)))

    return [
        ("target", info.spec), ("kind", info.kind), ("path", _show(info.path)),
        ("model", _show(info.model)), ("serial", _show(info.serial)), ("firmware", each("firmware")),
        ("capacity", f"{info.capacity_bytes:,} bytes ({decimal_capacity(info.capacity_bytes)})"),
        ("logical / physical block", member(lambda i: f"{i.logical_block_size} / {i.physical_block_size} bytes")),
        ("transport", each("transport")), ("link", member(link_text)),
        ("write cache", each("write_cache")), ("FUA", each("fua")),
        ("discard", each("discard")), ("power-loss protection", each("plp")),
        *thermal_rows(info.extra.get("nvme")),
        ("direct I/O", "reaches the drive" if info.io_warning is None else f"NOT A DRIVE: {info.io_warning}"),
        ("safety", state),
        # not in use, yet not the drive's alone: another program reads it (SafetyState.readers)
        *(("competing I/O", reader.text) for reader in safety.readers),
        # what to type only where it can work: a device in use is refused whatever is typed (QA)
        *((("writes need", confirm_text(info, token)),) if token is not None and safety.writable and not refusal
          else ()),
        *(("note", note) for note in info.notes),
    ]


def thermal_rows(nvme: object) -> list[tuple[str, str]]:
    """The drive's own thermal facts from `nvme id-ctrl` (sysinfo.apply_nvme), each only where it
    said it: its warning and critical temperatures (WCTEMP, CCTEMP) as recorded, in °C on its
    readings' scale and in the whole kelvin it gave, and whether it supports host controlled
    thermal management (HCTMA), whose counters alone can say it throttled, and then only where the
    host enabled it (hctm_text). QA: `info --json` and the thermal test had them, `info` did not."""
    facts = nvme if isinstance(nvme, dict) else {}
    rows = []
    warning, critical = facts.get("warning_temp_c"), facts.get("critical_temp_c")
    if warning is not None or critical is not None:
        celsius = " / ".join("—" if c is None else number_text(c) for c in (warning, critical))
        kelvin = " / ".join(_show(recorded_threshold_kelvin(c)) for c in (warning, critical))
        # "temp": the label column stays as wide as it was (24, "logical / physical block")
        rows.append(("warning / critical temp", f"{celsius} °C ({kelvin} K)"))
    if isinstance(facts.get("hctm"), bool):
        rows.append(("host thermal management", hctm_text(facts)))
    return rows


def hctm_text(facts: dict[str, object]) -> str:
    """Whether the drive's HCTM can act (sysinfo.hctm_counts): "no" without it; with it, the host's
    thresholds (get-feature 0x10, "off" where unset), or that neither is set, so it never
    transitions, or that whether one is was not learnt."""
    counts = hctm_counts(facts)
    if facts.get("hctm") is not True:
        return "no"
    if counts is None:
        return "supported, enabled unknown (nvme get-feature gave no answer)"
    if not counts:
        return "supported, not enabled (TMT1 and TMT2 unset)"
    thresholds = facts["hctm_thresholds"]
    assert isinstance(thresholds, dict)  # hctm_counts knew them
    celsius = " / ".join(number_text(c) if is_number(c) else "off" for c in (thresholds.get("tmt1_c"),
                                                                              thresholds.get("tmt2_c")))
    return f"yes, TMT1 / TMT2 {celsius} °C ({thresholds['tmt1_k']} / {thresholds['tmt2_k']} K)"


@app.command()
def info(
    target: TargetArg = None,
    target_opt: TargetOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show a target's identity, capabilities and safety state."""
    spec = one_target(target, target_opt, default=None)
    tgt = parse_target(spec)
    facts = tgt.info()
    if as_json:
        print(facts.model_dump_json(indent=2))
        return
    # The heading soft-wrapped, not folded within the table: it quotes the target, a path to copy.
    out.print(f"ssdlab info {spec}", markup=False, highlight=False)
    out.print(facts_table("", list(info_rows(facts, tgt.confirmation_token(), write_setup_refusal(tgt)))))


@app.command()
def plan(
    target: TargetArg = None,
    target_opt: TargetOpt = None,
    suite: SuiteOpt = None,
    test: TestOpt = None,
    param: ParamOpt = None,
    fio: Annotated[bool, typer.Option("--fio", help="Print the exact fio job files (or simulator jobs).")] = False,
    until_steady: SteadyOpt = False,
    rate: RateOpt = None,
    library: LibraryOpt = None,
    host: Annotated[list[str] | None, typer.Option(
        "--host", help="Plan a run on HOST[:PORT] as `run --host` would (asks each host's fio; writes nothing).")]
    = None,
) -> None:
    """Show every test, step and job of a run, and its estimated duration, without running it."""
    given_rate = parse_rate(rate) if rate is not None else None
    lib = Library(library)
    lib.check_file()  # as run refuses a library that is not one, before anything is asked of the target
    refuse_a_name_for_a_target(target)
    tgt, engine, host_refusal = _plan_target(one_target(target, target_opt), host or [])
    facts = with_measured_rates(tgt.info(), lib)
    facts = facts.model_copy(update={"measured_rates": given_rates(given_rate, facts.measured_rates)})
    suite_name, entries = select_entries(suite, test or [])
    planned = plan_run(entries, overrides_from(entries, param, until_steady), facts, engine)
    clock = "simulated device time" if facts.kind == "sim" else "estimated duration"
    drive = with_capacity(facts.model or "model unknown", facts.capacity_bytes, ", ")
    with fio_comments(fio):
        if fio:
            out.print(FIO_PLAN_HEAD, markup=False, highlight=False)
        print_hanging("[bold]Plan[/] for ", f"{plain(facts.spec)} ({plain(drive)}), "
                      f"suite {suite_name or CUSTOM_SUITE}, engine {engine.name}", markup=True)
        print_hanging("  durations of byte-limited work: ", assumed_rates(facts).describe())
        if host:
            _print_hosts(tgt, engine, host_refusal)
        refusal = host_refusal or run_refusal(tgt, planned) or (None if host else engine_refusal(engine))
        if refusal:
            out.print(f"[red]run would refuse this:[/] {plain(refusal)}", highlight=False)
            facts = _without_said(facts, refusal)
        elif (token := tgt.confirmation_token()) and any(item.plan.destructive for item in planned):
            # Soft-wrapped, as errors are: a flag or command wrapped onto two lines would be copied broken.
            out.print(f"[yellow]run needs[/] {plain(f'--destroy --yes={token}')}: these tests write to it and "
                      "destroy its data (docs/safety.md)", highlight=False)
        print_target_remarks(out, facts)
        print_readers(out, facts)
        print_warnings(out, plan_warnings(planned, facts))
    for index, item in enumerate(planned):
        with fio_comments(fio):
            _print_plan(item, clock, engine)
        if fio and index == 0:
            _print_file_setup(tgt, engine)
        if fio:
            _print_jobs(item, tgt, engine, host_refusal)
    with fio_comments(fio):
        _print_totals(planned, clock)


# What `plan --fio` says first: its output is read by fio as it is (QA: the plan's lines were not
# fio comments), but it is many job files, which fio would run at once, each [global] carrying on.
FIO_PLAN_HEAD = ("Every line but the job files is a fio comment, so fio reads this output as it is "
                 "(fio --parse-only); each '--- TEST / WORKLOAD ---' block is the whole job file of one "
                 "workload: run one at a time, as ssdlab does (in one file fio runs every job at once, and "
                 "each [global] section carries on into the jobs after it), and between them, in their place, "
                 "the shell line under each 'not a fio job' block (making the file, purges, idles)")


@contextmanager
def fio_comments(on: bool) -> Iterator[None]:
    """With `plan --fio`, what is printed inside as fio comment lines ('# '), laid out 2 columns
    narrower in a terminal to make room for the mark."""
    if not on:
        yield
        return
    # The width as set (None: read from the terminal or COLUMNS at each print), put back as it was:
    # setting the width read fixed the console's width for whatever the process printed next.
    saved = out._width
    if out.is_terminal:
        out.width = max(20, out.width - 2)
    try:
        with out.capture() as captured:
            yield
    finally:
        out._width = saved
    for line in captured.get().splitlines():
        out.print(Text("# ") + Text.from_ansi(line) if line.strip() else "#", highlight=False)


def _without_said(facts: TargetInfo, refusal: str) -> TargetInfo:
    """The target's notes less one that states what the refusal states: a file's free space
    was said twice, once as "a run that writes would stop at once" when run refuses it."""
    kept = tuple(n for n in facts.notes if ":" not in n or n[:n.rfind(":")] not in refusal)
    return facts.model_copy(update={"notes": kept})


PLAN_RUN_ID = "RUNID"  # each run draws its own id for its hosts' file names


def _plan_target(spec: str, hosts: list[str]) -> tuple[Target, Engine, str | None]:
    """The target and engine `run` would use, and why `run` would refuse the hosts (unreachable,
    a directory missing or read-only there), asked of each host's fio without writing anything there.
    A device with --host is refused in one line, as `run` refuses it."""
    if not hosts:
        tgt = parse_target(spec)
        return tgt, engine_for(tgt), None
    from ssdlab.engines.fio_multi import MultiHostFioEngine, parse_host

    engine = MultiHostFioEngine(hosts=tuple(parse_host(h) for h in hosts), run_id=PLAN_RUN_ID)
    tgt = engine.target_for(spec)
    try:
        engine.check_reachable(tgt, writes=False)
    except (UsageError, EngineError) as refusal:
        return tgt, engine, str(refusal)
    return tgt, engine, None


def _print_hosts(target: Target, engine: Engine, refusal: str | None) -> None:
    """Where a --host run's I/O goes: one file on each host for the whole run (made at its first
    workload, deleted when it ends), none here."""
    from ssdlab.engines.fio_multi import MultiHostFioEngine

    assert isinstance(engine, MultiHostFioEngine)
    remote = engine.check_target(target)
    out.print(f"  each workload's I/O, on each host ({PLAN_RUN_ID}: each run draws its own id):", highlight=False)
    for index, address in enumerate(engine.addresses):
        fio = "" if refusal else f" ({engine.host_fio()[index].version}, {engine.host_fio()[index].ioengine})"
        out.print(f"    host {index} {plain(address)}{plain(fio)}: {plain(remote.host_file_name(index))}",
                  highlight=False)
    if not refusal:  # what a check that writes nothing cannot see (MultiHostFioEngine.check_reachable)
        out.print(f"  plan wrote nothing there, so it cannot see whether each fio server may create files in "
                  f"{plain(remote.directory)} (its permissions): run's probe writes 4 KiB there first", highlight=False)


def _print_totals(planned: list[PlannedTest], clock: str) -> None:
    """The total with shared preparation, and what it would be with every test preparing alone."""
    total = sum(item.estimate_s for item in planned)
    alone = sum(item.alone_s for item in planned)
    least = sum(item.least_s for item in planned)
    shared = sum(1 for item in planned if item.start.shared_from)
    out.print(f"\n[bold]Total {clock}:[/] {format_duration(total)}", highlight=False)
    # Every test after the first starts from what the test before left ("starts from:" above); only
    # a test whose own preparation that state is leaves it out (QA: "no test starts from the state
    # the test before left" under tests each said to start "as trim-validation left it").
    tests, leave, own = ("1 test", "leaves", "its") if shared == 1 else (f"{shared} tests", "leave", "their")
    sharing = ("no test's preparation is left out" if shared == 0 else
               f"{tests} {leave} out {own} preparation: the test before left the drive in the state it prepares")
    print_hanging("  before sharing preparation: ", f"{format_duration(alone)}; after: {format_duration(total)} "
                  f"({sharing})")
    if least < total:
        print_hanging("  ", f"{_least_words(planned)}: {format_duration(least)}")


def _least_words(planned: Sequence[PlannedTest]) -> str:
    """What the total's least assumes: until-steady phases steady at once, fio_ss stopping at once."""
    fio = any(stops_early_by_fio(item.plan) for item in planned)
    steady = any(item.least_s < item.estimate_s and not stops_early_by_fio(item.plan) for item in planned)
    if fio and not steady:
        return f"fio_ss tortures are counted at their whole runtime; if {FIO_SS_FIRST_CHANCE}"
    words = ("until-steady phases are counted at their longest; if each is steady at its first window after the "
             "drive's free space is written (at the assumed rate)")
    return f"{words}, and {FIO_SS_FIRST_CHANCE}" if fio else words


def print_hanging(label: str, text: str, markup: bool = False) -> None:
    """A plan line, `label` then `text`, wrapped under itself in a terminal (`params:` lines run to
    220 characters) and one line piped (report.terminal.print_hanging). `markup`: both hold rich
    markup, else plain. Not for a line the user copies a command or flag from (`run needs`)."""
    head, body = (Text.from_markup(label), Text.from_markup(text)) if markup else (Text(label), Text(text))
    hanging(out, head, body)


def test_duration_text(item: PlannedTest) -> str:
    """A test's duration as its plan line says it: of a test with until-steady phases, the longest
    and the least (QA: the line gave the longest as the estimate, and only the total said so)."""
    if item.least_s >= item.estimate_s:
        return format_duration(item.estimate_s)
    return f"at most {format_duration(item.estimate_s)} ({format_duration(item.least_s)} if {_first_chance(item)})"


def _first_chance(item: PlannedTest) -> str:
    """When a test takes its least: each early stop it has comes at its first chance (a test has
    either kind, not both: consistency's fio_ss and until_steady are refused together)."""
    if stops_early_by_fio(item.plan):
        return FIO_SS_FIRST_CHANCE
    return "each until-steady phase is steady at its first window"


# fio's own steady-state detector (consistency's fio_ss) ends a workload once its window is
# steady, first judged after ss_dur (engines/fio.ss_duration_s).
FIO_SS_FIRST_CHANCE = "fio's steady-state detector (fio_ss) ends the torture at its first check"


def _print_plan(item: PlannedTest, clock: str, engine: Engine) -> None:
    # A --host run skips some steps (MultiHostFioEngine.step): the plan says what the run does.
    remote = engine if isinstance(engine, MultiHostFioEngine) else None
    said = [remote.planned_step(action) if remote is not None and isinstance(action, Purge) else None
            for action in item.plan.actions]
    out.print()
    print_hanging(f"[bold cyan]{item.entry.name}[/] ", f"({item.entry.test}) — {clock} {test_duration_text(item)}",
                  markup=True)
    print_hanging("  params: ", ", ".join(f"{k}={v}" for k, v in item.params.items()))
    # On --host the planner's start already says what the hosts' files hold (planning.host_start_state).
    print_hanging("  starts from: ", item.start.state)
    print_hanging("    why: ", item.start.reason)
    for note in item.plan.notes:
        print_hanging("  [yellow]note:[/] ", plain(note), markup=True)
    for number, (action, text) in enumerate(zip(item.plan.actions, said, strict=True), start=1):
        print_hanging(f"  {number:3d}. ", text or action.describe())


PLAN_BUNDLE = Path("BUNDLE")  # each run names its own bundle (-o)


def verbatim(text: str, end: str = "\n") -> None:
    """A job file, or a line a user runs between them, as it is: never wrapped at the terminal's
    width (QA: in an 60-column terminal a job file's long filename= and the fallocate line under
    '--- not a fio job' broke over two lines, the second without '#', so fio and the shell read
    them wrong when copied); a terminal still shows a long line over several rows."""
    out.print(text, markup=False, highlight=False, soft_wrap=True, end=end)


def _print_file_setup(target: Target, engine: Engine) -> None:
    """The file a run makes (or grows) before its first job, where the job files start."""
    from ssdlab.engines.fio import FioEngine
    from ssdlab.engines.fio_steps import file_setup_command

    command = file_setup_command(target) if type(engine) is FioEngine else None
    if command is not None:
        verbatim(f"\n# --- {target.spec}: not a fio job; ssdlab makes the file first ---\n# {command}")


def _print_jobs(item: PlannedTest, target: Target, engine: Engine, host_refusal: str | None) -> None:
    from ssdlab.engines.fio import FioEngine
    from ssdlab.engines.fio_multi import MultiHostFioEngine
    from ssdlab.engines.fio_steps import step_command

    for action in item.plan.actions:
        if isinstance(action, ReplayTrace) and type(engine) is FioEngine:  # a --host run refuses a trace
            _print_replay(item, action, target, engine)
            continue
        # Every step between the job files, in its place (QA: idles were left out): a --host run purges nothing
        # (fio_multi), but waits as any run does.
        if not isinstance(action, Measure) and (type(engine) is FioEngine or isinstance(action, Idle)):
            verbatim(f"\n# --- {item.entry.name} / {action.name}: not a fio job; ssdlab runs ---\n"
                     f"# {step_command(target, action)}")
            continue
        if not isinstance(action, Measure):
            continue
        if not isinstance(engine, MultiHostFioEngine):
            verbatim(f"\n# --- {item.entry.name} / {action.name} ---")
            verbatim(engine.job_text(target, action.workload))
            continue
        if host_refusal:  # each host's job file is written for the fio it runs, which did not answer
            verbatim(f"\n# --- {item.entry.name} / {action.name}: no job files (the hosts were not asked) ---")
            continue
        for index, text in enumerate(engine.host_job_texts(target, action.workload)):
            verbatim(f"\n# --- {item.entry.name} / {action.name} / host {index} {engine.addresses[index]} ---")
            verbatim(text)


def _print_replay(item: PlannedTest, step: ReplayTrace, target: Target, engine: FioEngine) -> None:
    """A trace replay's fio command (the run keeps it, and fio's JSON, in raw/ beside the iologs)."""
    from ssdlab.trace.sim_step import fio_replay_plan

    raw_dir = PLAN_BUNDLE / RAW_DIR / item.entry.name / step.name
    verbatim(f"\n# --- {item.entry.name} / {step.name} (BUNDLE: the run's bundle) ---")
    # A shell command, not a job file: commented too, so the whole output stays fio's to read.
    text = fio_replay_plan(target, step, raw_dir, engine.ioengine_for, engine.binary)
    verbatim("".join(line if line.startswith("#") else f"# {line}" for line in text.splitlines(keepends=True)), end="")
