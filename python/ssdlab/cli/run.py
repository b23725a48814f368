"""`ssdlab run`: a suite or tests on a target, into a result bundle and its report."""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import click
import typer

from ssdlab.bundle import LOCK_FILE, RUN_FILE, Bundle, RunRecord, check_text_path
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
    err,
    one_target,
    out,
    overrides_from,
    plain,
    print_readers,
    print_target_remarks,
    print_warnings,
    refuse_a_name_for_a_target,
)
from ssdlab.cli.handback import hand_back_all, run_writes
from ssdlab.cli.library import add_finished_run, library_add_command
from ssdlab.cli.results import print_tables, write_report
from ssdlab.device_rates import rates_for
from ssdlab.engines import ENGINE_NAMES, engine_for
from ssdlab.engines.base import Engine
from ssdlab.errors import (
    EngineError,
    InternalError,
    Interrupted,
    SafetyError,
    SsdlabError,
    UsageError,
    check_stop,
    closed_output_held,
    hold_later_stops,
    os_error_line,
    stop_reason,
    stops_held,
)
from ssdlab.library import Library
from ssdlab.outputs import what_is
from ssdlab.planning import given_rates, param_warnings, select_entries
from ssdlab.progress import LiveObserver, QuietObserver
from ssdlab.report import BuiltReport, build_report
from ssdlab.report.contract import unreliable_metrics
from ssdlab.runner import Runner, completed_hint, load_for_resume, new_record
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target, TargetInfo
from ssdlab.units import parse_rate


def default_out(suite: str | None, tests: list[str], target: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", target).strip("-")[:40] or "target"
    label = suite or "-".join(tests)[:30]
    return Path("results") / f"{datetime.now():%Y%m%d-%H%M%S}-{label}-{slug}"


def yes_needs_destroy(destroy: bool, yes: str | None) -> None:
    """--yes confirms what --destroy allows and means nothing without it (docs/safety.md; a file
    ssdlab did not make needs both too), so it is refused in one line, not taken silently (QA:
    `run --yes=FOO` without --destroy ran, exit 0). Checked in the run's body, where a refusal under
    --json prints its object too (refusals_as_json; QA: as --yes's callback it printed none)."""
    if yes is not None and not destroy:
        raise UsageError("--yes confirms --destroy; add --destroy to write to that target, or drop --yes")


def confirm_serial(tgt: Target, destroy: bool, yes: str | None) -> str | None:
    """Ask for the confirmation token interactively when --destroy is given without --yes; a
    target in use is refused first: nobody is asked to confirm what ssdlab will not do."""
    token = tgt.confirmation_token()
    if token is None or not destroy or yes is not None:
        return yes
    refusal = tgt.write_refusal()
    if refusal:
        raise SafetyError(refusal)
    facts = tgt.info()
    if sys.stdin is None or not sys.stdin.isatty():  # closed (`<&-`, some cron jobs): None
        raise SafetyError(f"{facts.spec}: confirm with --yes={token} (no terminal to ask on)")
    model = facts.model or "model unknown"
    typed = str(typer.prompt(f"This DESTROYS all data on {facts.spec} ({model}). Type {token!r} to confirm"))
    if typed.strip() != token:  # said here: the target's own check would speak of a --yes never given
        raise SafetyError(f"{facts.spec}: you typed {typed.strip()!r}, not {token!r}; nothing was written")
    return typed


def confirmed(runner: Runner, record: RunRecord, tgt: Target, destroy: bool, yes: str | None,
              facts: TargetInfo) -> RunRecord:
    """The record with the confirmation typed at the prompt, asked only when a test writes (and
    after the in-use check: confirm_serial); `facts`: the target's info, as the caller read it."""
    if not any(p.plan.destructive for p in runner.pending(record, facts)):
        return record
    typed = confirm_serial(tgt, destroy, yes)
    return record.model_copy(update={"options": {**record.options, "confirmed_serial": typed}})


@dataclass(frozen=True)
class Asked:
    """What this invocation asked of the run, beside --resume: each must be what the run already
    is (or not given), or the resume is refused in one line, never silently ignored."""

    target: str | None = None
    suite: str | None = None
    tests: tuple[str, ...] = ()
    param: tuple[str, ...] = ()
    out_dir: Path | None = None
    engine_name: str = "auto"
    hosts: tuple[str, ...] = ()
    until_steady: bool = False


def check_resume_options(bundle: Bundle, record: RunRecord, asked: Asked) -> None:
    """A resumed run keeps its target, tests, parameters, engine, hosts and bundle: an option
    that would change one of them is refused, naming it (one that repeats the run's own is fine)."""
    path = bundle.path
    if asked.param:
        raise UsageError("a resumed run keeps its parameters; drop --param")
    if asked.target is not None and asked.target != record.target.spec:
        raise UsageError(f"{path} was run on {record.target.spec!r}, not {asked.target!r}; drop -t to resume it")
    if asked.suite is not None and asked.suite != record.suite:
        ran = f"suite {record.suite}" if record.suite else f"--test {', '.join(t.name for t in record.tests)}"
        raise UsageError(f"{path} ran {ran}, not suite {asked.suite!r}; drop --suite to resume it")
    if asked.tests and list(asked.tests) != [t.name for t in record.tests]:
        raise UsageError(f"{path} ran other tests; drop --test to resume it")
    if asked.out_dir is not None and asked.out_dir.expanduser().resolve() != path:
        raise UsageError(f"a resumed run continues in its own bundle, {path}, not in {asked.out_dir}; drop -o "
                         "(to keep the stopped run as it is, copy its bundle and resume the copy)")
    if asked.engine_name not in ("auto", record.engine):
        raise UsageError(f"{path} was run with the {record.engine} engine, not {asked.engine_name}; a resumed run "
                         "keeps its engine: drop --engine")
    hosts = list(record.options.get("hosts") or [])
    if asked.hosts and list(asked.hosts) != hosts:
        ran = ", ".join(hosts) if hosts else "this machine"
        raise UsageError(f"{path} ran on {ran}, not on {', '.join(asked.hosts)}; a resumed run keeps its hosts: "
                         "drop --host")
    steady = [t.params["until_steady"] for t in record.tests if "until_steady" in t.params]
    if asked.until_steady and not (steady and all(value is True for value in steady)):
        raise UsageError("a resumed run keeps its parameters, and this one did not run until steady; drop "
                         "--until-steady")


@dataclass(frozen=True)
class Kept:
    """What a run keeps in its options for --resume to honour (a resumed run ended in the default
    library, with a report, though started with --library, --no-report or --no-library); each is
    left out when not given, as in a run.json from before they were kept."""

    no_library: bool = False
    no_report: bool = False
    library: Path | None = None

    def options(self) -> dict[str, Any]:
        return {**({"no_library": True} if self.no_library else {}),
                **({"no_report": True} if self.no_report else {}),
                **({"library": str(self.library.absolute())} if self.library is not None else {})}

    def with_stored(self, stored: Mapping[str, Any]) -> Kept:
        """This invocation's, with the run's own from `stored` (its options): a flag given either
        time holds; a library given now wins over the one stored."""
        library = stored.get("library")
        return Kept(self.no_library or bool(stored.get("no_library")), self.no_report or bool(stored.get("no_report")),
                    self.library or (Path(library) if isinstance(library, str) and library else None))

    def check(self) -> None:
        """Refuse --no-library with --library: a run kept out of every library is added to none,
        so the library named would silently get nothing."""
        if self.no_library and self.library is not None:
            raise UsageError(f"--no-library and --library {self.library} clash: the first keeps the run out of "
                             "every results library, the second names one to add it to; give one of them")

    def check_resumed(self, path: Path, stored: Mapping[str, Any]) -> None:
        """Refuse a --library given to resume a run started with --no-library, which the resumed run
        keeps (with_stored): it would be added to no library, the one named included."""
        self.check()
        if self.library is not None and stored.get("no_library"):
            raise UsageError(f"{path} was started with --no-library, which a resumed run keeps, so it would not be "
                             f"added to {self.library}; drop --library, and once the run is complete add it with "
                             f"`{library_add_command(path, self.library)}`")


NOTHING_KEPT = Kept()


def _resumed(path: Path, asked: Asked, destroy: bool, yes: str | None, kept: Kept = NOTHING_KEPT) \
        -> tuple[Bundle, RunRecord, Target, Engine]:
    """The bundle to continue; this invocation's --destroy/--yes count, not the stored ones; the
    run keeps what it was started with (Kept: out of the library, no report, its library; a
    run.json from before has none of them), and this invocation may add to it; `kept.library`:
    also where a run id given for the bundle is looked up, to name its bundle."""
    bundle, record = load_for_resume(path, kept.library)  # first: a run id is looked up in --library
    check_resume_options(bundle, record, asked)
    kept.check_resumed(bundle.path, record.options)
    kept = kept.with_stored(record.options)
    if not kept.no_library:  # as a new run's library is (run): before anything is probed or measured
        Library(kept.library).check_file()
    options = {**record.options, "destroy": destroy, "confirmed_serial": yes,  # asked later if it writes
               **kept.options()}
    record = record.model_copy(update={"options": options})
    hosts = list(record.options.get("hosts") or [])
    if hosts:  # the run's id names its files on the hosts: the resumed run uses the same ones
        run_id = record.target.extra.get("remote_run_id")
        return bundle, record, *on_hosts(record.target.spec, hosts, str(run_id) if run_id else None)
    tgt = parse_target(record.target.spec)
    return bundle, record, tgt, engine_for(tgt, record.engine)


def on_hosts(spec: str, hosts: list[str], resumed_id: str | None = None) -> tuple[Target, Engine]:
    """fio in client/server mode on the given hosts (engines/fio_multi.py), and the target as the
    hosts see it: file:PATH is a file on each host, never looked at or made on this machine.
    Refuses unsafe targets, unreachable hosts and a directory missing on a host now.
    `resumed_id`: the run id of the run resumed, which names its files there."""
    from ssdlab.engines.fio_multi import MultiHostFioEngine, parse_host

    parsed = tuple(parse_host(h) for h in hosts)
    engine = MultiHostFioEngine(hosts=parsed) if resumed_id is None else \
        MultiHostFioEngine(hosts=parsed, run_id=resumed_id, resumed=True)
    tgt = engine.target_for(spec)
    engine.check_reachable(tgt)
    return tgt, engine


def _fresh(spec: str, suite: str | None, tests: list[str], param: list[str] | None, until_steady: bool,
           destroy: bool, yes: str | None, engine_name: str, out_dir: Path | None, hosts: list[str] | None = None,
           kept: Kept = NOTHING_KEPT) -> tuple[Bundle, RunRecord, Target, Engine]:
    if hosts:
        if engine_name not in ("auto", "fio"):
            raise UsageError(f"--host runs fio's client/server mode; drop --engine {engine_name}")
        tgt, engine = on_hosts(spec, hosts)
    else:
        tgt = parse_target(spec)
        engine = engine_for(tgt, engine_name)
    suite_name, entries = select_entries(suite, tests)
    options: dict[str, Any] = {"destroy": destroy, "confirmed_serial": yes, **({"hosts": hosts} if hosts else {}),
                               **kept.options()}
    record = new_record(tgt, engine, suite_name, entries, overrides_from(entries, param, until_steady), options)
    return Bundle(out_dir or default_out(suite_name, tests, spec)), record, tgt, engine


def bundle_around(path: Path) -> Path | None:
    """The bundle of another run that `path` lies inside, if any. QA: `run -o OTHER/charts/new`
    was taken, and the next `report OTHER` swapped its charts folder in and deleted that run."""
    return next((parent for parent in path.parents if (parent / RUN_FILE).is_file()), None)


def check_new_bundle(bundle: Bundle) -> None:
    """A new run gets a new or empty directory: never mixed into another run or other files."""
    check_text_path(bundle.path)
    if (holder := bundle_around(bundle.path)) is not None:
        raise UsageError(f"--out {bundle.path} is inside the bundle of another run ({holder}), whose `report` "
                         "replaces its folders: give a directory outside it")
    if bundle.run_file.exists():
        raise UsageError(f"{bundle.path} already holds a run; choose another --out or use --resume")
    if bundle.path.exists() and not bundle.path.is_dir():
        raise UsageError(f"--out {bundle.path} is {what_is(bundle.path)}; give a directory for the bundle")
    others = [p.name for p in bundle.path.iterdir() if p.name != LOCK_FILE] if bundle.path.is_dir() else []
    if others:
        raise UsageError(f"--out {bundle.path} already holds other files ({', '.join(sorted(others)[:3])}); "
                         "give a new or empty directory")


@app.command()
def run(
    target: TargetArg = None,
    target_opt: TargetOpt = None,
    suite: SuiteOpt = None,
    test: TestOpt = None,
    param: ParamOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Bundle directory (default results/…).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help=(
        "Print one JSON object on stdout, always: at the end (also when the run stops or fails: its status and "
        "why), or, for a run refused before it starts, status \"refused\" and why."))] = False,
    destroy: Annotated[bool, typer.Option("--destroy", help=(
        "Allow writes that destroy data: to a block device, a RAID-0's members, or an existing file ssdlab did "
        "not make (docs/safety.md)."))] = False,
    yes: Annotated[str | None, typer.Option("--yes", help=(
        "Confirm what --destroy writes: a device's serial (its kernel name, e.g. loop3, when it has none; "
        "`ssdlab info` shows it), a file's path, or SERIAL_A,SERIAL_B for RAID-0 members. Only with --destroy."))]
    = None,
    engine_name: Annotated[str, typer.Option("--engine", help=f"One of {', '.join(ENGINE_NAMES)}.")] = "auto",
    resume: Annotated[Path | None, typer.Option("--resume", help="Continue an interrupted bundle.")] = None,
    no_report: Annotated[bool, typer.Option("--no-report", help="Skip the HTML report.")] = False,
    until_steady: SteadyOpt = False,
    no_library: Annotated[bool, typer.Option("--no-library", help="Do not add the run to the results library.")]
    = False,
    host: Annotated[list[str] | None, typer.Option(
        "--host", help="Run fio on HOST[:PORT] through `fio --server` there (repeatable; file: targets).")] = None,
    rate: RateOpt = None,
    library: LibraryOpt = None,
) -> None:
    """Run a suite or tests on a target and write a result bundle (and its report)."""
    hold_later_stops()  # a second Ctrl-C must not cut short what stopping at the first records and says
    given = target if target is not None else target_opt
    # From here to the run's start a refusal ends it; with --json a script still reads one object.
    with refusals_as_json(as_json, given):
        yes_needs_destroy(destroy, yes)
        device_rate = parse_rate(rate) if rate is not None else None  # refused before anything is made
        # The run is added to the library at the end: a library it cannot be added to, or named beside
        # --no-library, is refused now, not after hours of measuring (a resumed run's in _resumed, once its
        # bundle is found, which a run id is looked up for in --library, and its own --no-library is read).
        kept = Kept(no_library, no_report, library)
        if resume is None:
            kept.check()
            if not no_library:
                Library(library).check_file()
        if resume is not None:
            asked = Asked(given, suite, tuple(test or ()), tuple(param or ()), out_dir, engine_name, tuple(host or ()),
                          until_steady)
            bundle, record, tgt, engine = _resumed(resume, asked, destroy, yes, kept)
        else:
            refuse_a_name_for_a_target(target)
            bundle, record, tgt, engine = _fresh(one_target(target, target_opt), suite, test or [], param,
                                                 until_steady, destroy, yes, engine_name, out_dir, host, kept)
        kept = Kept().with_stored(record.options)  # a resumed run's own, kept with its options
        no_library, no_report, library = kept.no_library, kept.no_report, kept.library
        if resume is None:
            check_new_bundle(bundle)  # before the lock puts its file there
        made = run_writes(bundle.path, library)  # under sudo, handed to the user at the end (cli/handback.py)
        runner, facts = Runner(bundle, tgt, engine), tgt.info()  # read once for the checks before the run
        if resume is not None:  # before --yes is checked against the device now there, which may be another
            runner.check_same_drive(record, facts)
        record = confirmed(runner, record, tgt, destroy, yes, facts)
        runner.preflight(record, facts)  # a refused run leaves nothing behind
        print_target_remarks(err, record.target)  # after: a refusal's one line says it all, once
        print_readers(err, facts)  # read now: a resumed run's readers are not those its bundle recorded
        print_warnings(err, [text for t in record.tests if t.status != "complete"
                             for text in param_warnings(t.name, t.test, t.params, record.target)])
    try:
        _measure_and_record(bundle, record, tgt, engine, as_json, no_report, device_rate, library, no_library,
                            fresh=resume is None)
    finally:  # finished, stopped or failed: what the run wrote is there, and is the sudo user's
        hand_back_all(made)


def _measure_and_record(bundle: Bundle, record: RunRecord, tgt: Target, engine: Engine, as_json: bool,
                        no_report: bool, device_rate: tuple[float, float | None] | None, library: Path | None,
                        no_library: bool, fresh: bool) -> None:
    """The run, once nothing refuses it: measured, added to the library, reported and said."""
    measured, added, said = False, no_library, False
    report_path: Path | None = None  # written (write_report_or_say) before a stop, or not
    try:
        with contextlib.ExitStack() as bookkeeping:
            # From here to the run's end a stop signal is raised only where the runner can record it;
            # one that comes as the display closes waits for check_stop() below.
            with stops_held(), bundle.lock():
                if fresh and bundle.run_file.exists():  # another run got here first
                    check_new_bundle(bundle)
                record = _execute(bundle, record, tgt, engine, as_json, no_report, device_rate, library)
                measured = True
                # The run is measured. Its library entry and report are files a reader that went away
                # (`… | head -3`) has no say in: a closed output is raised once they are done, and once
                # what still goes to an open stream (--json's object on stdout when stderr closed) is
                # said. Held from before the stops are let through: the output's watcher finds a
                # reader gone at any moment, between these two blocks too.
                bookkeeping.enter_context(closed_output_held())
            check_stop()  # a stop signal held while the display closed
            if not no_library:
                add_finished_run(bundle, record, quiet=as_json, library=library)
                added = True
                check_stop()  # one held while that was said: the run is in the library
            report = NO_REPORT if no_report else write_report_or_say(bundle, library)
            report_path = report.html
            with stops_held():  # said whole, once: a stop now is raised after it
                _finish(bundle, record, report, as_json)
                said = True
        check_stop()  # a closed output: the run is complete and its bookkeeping done; exit as on SIGPIPE
    except KeyboardInterrupt as stop:
        if not measured:
            raise
        # The run is measured and recorded: say so, and what the stop left undone.
        later = "" if added else f"; add it to the results library with `{library_add_command(bundle.path, library)}`"
        stopped = Interrupted(completed_hint(bundle.path, stop_reason(stop)) + later)
        if as_json and not said:  # a script still gets the finished run's figures (QA: nothing on stdout)
            with stops_held():
                print(run_json(bundle, record, report_path, error=str(stopped)))
        raise stopped from None
    if not no_report and report_path is None:
        raise typer.Exit(2)


@dataclass(frozen=True)
class RunReport:
    """What a run's report came to: its page (None: not written) and its sections as built for it
    (None: not built), which the terminal's tables are made of too, not built again (QA, scale: half
    a second of an 8-hour run's report, twice)."""

    html: Path | None = None
    built: BuiltReport | None = None


NO_REPORT = RunReport()  # --no-report


def write_report_or_say(bundle: Bundle, library: Path | None = None) -> RunReport:
    """The report, or one line saying why not: a report that cannot be written does not
    change what the run measured, and the bundle already holds it all. One built whose page could
    not be written still gives the tables."""
    built = None
    try:
        built = build_report(bundle.path)
        return RunReport(write_report(built, library), built)
    except (SsdlabError, OSError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        where = f" ({error.filename})" if isinstance(error, OSError) and error.filename else ""
        err.print(f"[red]error:[/] the report could not be written: {plain(reason)}{plain(where)}; the measurements "
                  f"are in {plain(bundle.path)} — write the report later with `ssdlab report {plain(bundle.path)}`",
                  highlight=False)
        return RunReport(None, built)


def _execute(bundle: Bundle, record: RunRecord, tgt: Target, engine: Engine, as_json: bool,
             no_report: bool, device_rate: tuple[float, float | None] | None, library: Path | None) -> RunRecord:
    # Simulated device time says nothing about wall time until some work has run.
    rate = None if tgt.kind == "sim" else 1.0
    observer = QuietObserver(err, rate) if as_json or not out.is_terminal else LiveObserver(out, rate)
    measured = rates_for(record.target, Library(library))
    runner = Runner(bundle, tgt, engine, observer, rates=given_rates(device_rate, measured))
    try:
        with observer:
            return runner.run(record)
    except (Interrupted, EngineError, InternalError) as error:
        # The report still shows what it measured.
        report_path = None if no_report else write_report_or_say(bundle, library).html
        if as_json:  # a script reads where the measurements are and why the run ended, as from a finished run
            print(run_json(bundle, bundle.load_run(), report_path, error=str(error)))
        raise
    finally:
        if runner.left_behind:
            err.print(f"[yellow]note:[/] {plain(runner.left_behind)}", highlight=False)
        print_warnings(err, runner.warnings)
        failed = runner.display_error or getattr(observer, "error", None)
        if failed:
            err.print(f"[yellow]note:[/] the progress display failed ({plain(failed)}); the run went on without it",
                      highlight=False)


@contextlib.contextmanager
def refusals_as_json(as_json: bool, spec: str | None) -> Iterator[None]:
    """With --json, a run refused before it starts (a target, test or parameter refused, a
    confirmation not given, a stop) prints its one object too, as a run that fails mid-way does
    (run_json): status "refused" (or "stopped") and the error, the line stderr gets; nothing was
    made, so no bundle, report or test. QA: `run --json -t sim:nope` printed nothing on stdout."""
    try:
        yield
    except (Exception, KeyboardInterrupt) as error:
        if as_json and not isinstance(error, click.exceptions.Exit):
            stopped = isinstance(error, KeyboardInterrupt | Interrupted | click.exceptions.Abort)
            print(status_json(None, "stopped" if stopped else "refused", spec, None, [], refusal_text(error)))
        raise


def usage_refusal_json(args: Sequence[str], ctx: click.Context | None, line: str) -> str | None:
    """`run --json`'s one object for a command line click refused before the run's body could
    (refusals_as_json): an unknown option, an option given no value. The help promises one object
    always (QA: `run --yes=X --json` printed none while --yes was checked in its callback). `line`:
    the error as stderr gets it; None for another command, or without --json."""
    words = list(itertools.takewhile(lambda arg: arg != "--", args))
    command = next((word for word in words if not word.startswith("-")), None)
    if command != "run" or "--json" not in words:
        return None
    params = ctx.params if ctx is not None and ctx.command.name == "run" else {}
    spec = params.get("target") or params.get("target_opt")
    return status_json(None, "refused", spec, None, [], line)


def refusal_text(error: BaseException) -> str:
    """An error's line as the CLI prints it on stderr (cli._main), without its 'error:' lead."""
    if isinstance(error, SsdlabError):
        return str(error)
    if isinstance(error, OSError):
        return os_error_line(error)
    if isinstance(error, click.ClickException):
        return error.format_message()
    if isinstance(error, KeyboardInterrupt):
        return stop_reason(error)
    return f"internal error: {type(error).__name__}: {error}"  # a bug: stderr says where its details are


def run_json(bundle: Bundle, record: RunRecord, report_path: Path | None, error: str | None = None) -> str:
    """What `run --json` prints: the bundle, how the run ended and each test's figures, notes and
    which of its figures are not to be trusted (QA: a script got the figures the report marks †
    unmarked); `error`: why a run that did not complete stopped (the same line as on stderr)."""
    tests = [{"name": t.name, "test": t.test, "status": t.status, "metrics": t.metrics, "notes": list(t.notes),
              "unreliable_metrics": unreliable_metrics(t, record.target, bundle.windows_too_short(t))}
             for t in record.tests]
    return status_json(bundle.path, record.status, record.target.spec, report_path, tests, error)


def status_json(bundle: Path | None, status: str, target: str | None, report: Path | None,
                tests: list[dict[str, Any]], error: str | None) -> str:
    """The one object `run --json` prints, whatever the run came to (run_json; refusals_as_json for
    a run refused before it made anything): `error` only where there is one."""
    return json.dumps({
        "bundle": str(bundle) if bundle else None, "status": status, "target": target,
        "report": str(report) if report else None, "tests": tests,
        **({"error": error} if error is not None else {}),
    }, indent=2)


def _finish(bundle: Bundle, record: RunRecord, report: RunReport, as_json: bool) -> None:
    if as_json:
        print(run_json(bundle, record, report.html))
        return
    print_tables(report.built or bundle.path)  # built for the page, else (--no-report, it failed) now
    out.print(f"\nBundle: {bundle.path}", markup=False)
    if report.html:
        out.print(f"Report: {report.html}", markup=False)
