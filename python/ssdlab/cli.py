"""The ssdlab command line. The only place that prints and exits."""

from __future__ import annotations

import json
import re
import signal
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from rich.console import Console
from rich.table import Table

from ssdlab import __version__
from ssdlab.bundle import Bundle, RunRecord
from ssdlab.engines import ENGINE_NAMES, engine_for
from ssdlab.errors import EngineError, InternalError, Interrupted, SafetyError, SsdlabError
from ssdlab.planning import PlannedTest, parse_overrides, plan_run, select_entries, with_until_steady
from ssdlab.progress import LiveObserver, QuietObserver
from ssdlab.runner import Runner, load_for_resume, new_record
from ssdlab.suites import SuiteEntry, all_suites
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target, TargetInfo
from ssdlab.targets.sim import DEFAULT_SIM_SPEC
from ssdlab.tests_catalog import REGISTRY
from ssdlab.tests_catalog.base import Measure
from ssdlab.units import format_duration

app = typer.Typer(
    help="ssdlab: SSD review methodology on real drives, scratch files and a simulated SSD.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)
sim_app = typer.Typer(help="The SSD simulator (ssdsim).", no_args_is_help=True)
app.add_typer(sim_app, name="sim")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

TargetOpt = Annotated[str, typer.Option("--target", "-t", help="file:PATH[?size=4g], /dev/NAME, sim:PRESET[?op=25]")]
SuiteOpt = Annotated[str | None, typer.Option("--suite", "-s", help="Suite to run (see `ssdlab list`).")]
TestOpt = Annotated[list[str] | None, typer.Option("--test", help="Run one test (repeatable) instead of a suite.")]
ParamOpt = Annotated[list[str] | None, typer.Option("--param", "-p", help="key=value or test.key=value (repeatable).")]
SteadyOpt = Annotated[bool, typer.Option("--until-steady", help="Stop long tests once steady (SNIA PTS rule).")]


@app.command("list")
def list_cmd(params: Annotated[bool, typer.Option("--params", help="Show each test's parameters.")] = False) -> None:
    """List suites and tests."""
    suites = Table(title="Suites")
    suites.add_column("suite")
    suites.add_column("tests")
    suites.add_column("description")
    for suite in all_suites().values():
        suites.add_row(suite.name, ", ".join(e.name for e in suite.entries), suite.title)
    out.print(suites)
    tests = Table(title="Tests")
    for column in ("test", "title", "what it does"):
        tests.add_column(column)
    if params:
        tests.add_column("parameters (default)")
    for test in REGISTRY.values():
        row = [test.name, test.title, test.summary]
        if params:
            defaults = test.params_model()
            row.append(", ".join(f"{k}={v}" for k, v in defaults.model_dump().items()))
        tests.add_row(*row)
    out.print(tests)


def _info_rows(info: TargetInfo) -> list[tuple[str, str]]:
    def show(value: object) -> str:
        return "—" if value is None else str(value)

    safety = info.safety
    state = "writable" if safety.writable else "IN USE: " + "; ".join(safety.reasons)
    return [
        ("target", info.spec), ("kind", info.kind), ("path", show(info.path)),
        ("model", show(info.model)), ("serial", show(info.serial)), ("firmware", show(info.firmware)),
        ("capacity", f"{info.capacity_bytes:,} bytes ({info.capacity_bytes / 1e9:.1f} GB)"),
        ("logical / physical block", f"{info.logical_block_size} / {info.physical_block_size} bytes"),
        ("transport", show(info.transport)), ("PCIe link", _link(info)),
        ("write cache", show(info.write_cache)), ("FUA", show(info.fua)),
        ("discard", show(info.discard)), ("power-loss protection", show(info.plp)),
        ("safety", state),
    ]


def _link(info: TargetInfo) -> str:
    if info.pcie_link_speed is None:
        return "—"
    width = f" x{info.pcie_link_width}" if info.pcie_link_width else ""
    return f"{info.pcie_link_speed}{width}"


@app.command()
def info(
    target: Annotated[str, typer.Argument(help="file:PATH, /dev/NAME or sim:PRESET")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show a target's identity, capabilities and safety state."""
    facts = parse_target(target).info()
    if as_json:
        print(facts.model_dump_json(indent=2))
        return
    table = Table(show_header=False, title=f"ssdlab info {target}")
    for key, value in _info_rows(facts):
        table.add_row(key, value)
    out.print(table)


@app.command()
def plan(
    target: TargetOpt = DEFAULT_SIM_SPEC,
    suite: SuiteOpt = None,
    test: TestOpt = None,
    param: ParamOpt = None,
    fio: Annotated[bool, typer.Option("--fio", help="Print the exact fio job files (or simulator jobs).")] = False,
    until_steady: SteadyOpt = False,
) -> None:
    """Show every test, step and job of a run, and its estimated duration, without running it."""
    tgt = parse_target(target)
    facts = tgt.info()
    suite_name, entries = select_entries(suite, test or [])
    planned = plan_run(entries, _overrides(entries, param, until_steady), facts)
    engine = engine_for(tgt)
    clock = "simulated device time" if facts.kind == "sim" else "estimated duration"
    out.print(f"[bold]Plan[/] for {facts.spec} ({facts.model}, {facts.capacity_bytes / 1e9:.1f} GB), "
              f"suite {suite_name or '-'}, engine {engine.name}")
    for item in planned:
        _print_plan(item, clock)
        if fio:
            _print_jobs(item, tgt, facts)
    total = sum(item.estimate_s for item in planned)
    out.print(f"\n[bold]Total {clock}:[/] {format_duration(total)}")


def _overrides(entries: list[SuiteEntry], param: list[str] | None, until_steady: bool) -> dict[str, str]:
    overrides = parse_overrides(param or [])
    return with_until_steady(entries, overrides) if until_steady else overrides


def _print_plan(item: PlannedTest, clock: str) -> None:
    out.print(f"\n[bold cyan]{item.entry.name}[/] ({item.entry.test}) — {clock} {format_duration(item.estimate_s)}")
    out.print("  params: " + ", ".join(f"{k}={v}" for k, v in item.params.items()))
    for note in item.plan.notes:
        out.print(f"  [yellow]note:[/] {note}")
    for number, action in enumerate(item.plan.actions, start=1):
        out.print(f"  {number:3d}. {action.describe()}")


def _print_jobs(item: PlannedTest, target: Target, facts: TargetInfo) -> None:
    for action in item.plan.actions:
        if not isinstance(action, Measure):
            continue
        if facts.kind in ("sim", "fake"):
            from ssdlab.engines.sim import job_dict

            text = json.dumps(job_dict(action.workload, facts.capacity_bytes), indent=2)
        else:
            from ssdlab.engines.fio import FioEngine

            text = FioEngine().job_text(target, action.workload)
        out.print(f"\n# --- {item.entry.name} / {action.name} ---", markup=False)
        out.print(text, markup=False, highlight=False)


def _default_out(suite: str | None, tests: list[str], target: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", target).strip("-")[:40] or "target"
    label = suite or "-".join(tests)[:30]
    return Path("results") / f"{datetime.now():%Y%m%d-%H%M%S}-{label}-{slug}"


def _confirm_serial(facts: TargetInfo, destroy: bool, yes: str | None) -> str | None:
    """Block devices: ask for the serial interactively when --yes is not given."""
    if facts.kind != "block" or not destroy or yes is not None:
        return yes
    if not sys.stdin.isatty():
        raise SafetyError(f"{facts.spec}: confirm with --yes=SERIAL (no terminal to ask on)")
    token = facts.serial or str(facts.extra.get("kernel_name") or Path(facts.spec).name)
    return str(typer.prompt(f"This DESTROYS all data on {facts.spec} ({facts.model}). Type {token!r} to confirm"))


@app.command()
def run(
    target: TargetOpt = DEFAULT_SIM_SPEC,
    suite: SuiteOpt = None,
    test: TestOpt = None,
    param: ParamOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Bundle directory (default results/…).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object at the end.")] = False,
    destroy: Annotated[bool, typer.Option("--destroy", help="Allow writes to a block device.")] = False,
    yes: Annotated[str | None, typer.Option("--yes", help="Confirm a block device by its serial.")] = None,
    engine_name: Annotated[str, typer.Option("--engine", help=f"One of {', '.join(ENGINE_NAMES)}.")] = "auto",
    resume: Annotated[Path | None, typer.Option("--resume", help="Continue an interrupted bundle.")] = None,
    no_report: Annotated[bool, typer.Option("--no-report", help="Skip the HTML report.")] = False,
    until_steady: SteadyOpt = False,
) -> None:
    """Run a suite or tests on a target and write a result bundle (and its report)."""
    if resume is not None:
        bundle, record = load_for_resume(resume)
        tgt = parse_target(record.target.spec)
        engine = engine_for(tgt, record.engine)
        record = record.model_copy(update={"options": {**record.options, "confirmed_serial": yes}})
    else:
        tgt = parse_target(target)
        engine = engine_for(tgt, engine_name)
        suite_name, entries = select_entries(suite, test or [])
        facts = tgt.info()
        confirmed = _confirm_serial(facts, destroy, yes)
        options: dict[str, Any] = {"destroy": destroy, "confirmed_serial": confirmed}
        overrides = _overrides(entries, param, until_steady)
        record = new_record(tgt, engine, suite_name, entries, overrides, options)
        bundle = Bundle(out_dir or _default_out(suite_name, test or [], target))
        if bundle.run_file.exists():
            raise SsdlabError(f"{bundle.path} already holds a run; choose another --out or use --resume")
    tgt.prepare()
    # Simulated device time says nothing about wall time until some work has run.
    rate = None if tgt.kind == "sim" else 1.0
    observer = QuietObserver(err, rate) if as_json or not out.is_terminal else LiveObserver(out, rate)
    runner = Runner(bundle, tgt, engine, observer)
    try:
        with observer:
            record = runner.run(record)
    except (Interrupted, EngineError, InternalError):
        if not no_report:
            _write_report(bundle)  # an interrupted or failed run still shows what it measured
        raise
    finally:
        failed = runner.display_error or getattr(observer, "error", None)
        if failed:
            err.print(f"[yellow]note:[/] the progress display failed ({failed}); the run went on without it",
                      highlight=False)
    report_path = None if no_report else _write_report(bundle)
    _finish(bundle, record, report_path, as_json)


def _write_report(bundle: Bundle) -> Path:
    from ssdlab.report import render_report

    return render_report(bundle.path).html


def _finish(bundle: Bundle, record: RunRecord, report_path: Path | None, as_json: bool) -> None:
    if as_json:
        print(json.dumps({
            "bundle": str(bundle.path), "status": record.status, "target": record.target.spec,
            "report": str(report_path) if report_path else None,
            "tests": [{"name": t.name, "test": t.test, "status": t.status, "metrics": t.metrics}
                      for t in record.tests],
        }, indent=2))
        return
    _print_tables(bundle.path)
    out.print(f"\nBundle: {bundle.path}")
    if report_path:
        out.print(f"Report: {report_path}")


def _print_tables(bundle_dir: Path) -> None:
    from ssdlab.report import terminal_tables

    for table in terminal_tables(bundle_dir):
        out.print(table)


@app.command()
def report(
    bundle: Annotated[Path, typer.Argument(help="A bundle directory made by `ssdlab run`.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="HTML file to write.")] = None,
) -> None:
    """Write the HTML report (with PNG charts) of a bundle and print its tables."""
    Bundle(bundle).load_run()  # a clear error for a non-bundle before any rendering
    from ssdlab.report import render_report

    files = render_report(bundle, output)
    _print_tables(bundle)
    out.print(f"Report: {files.html}")


@app.command()
def compare(
    bundles: Annotated[list[Path], typer.Argument(help="Two or more bundles; the first is the baseline.")],
    force: Annotated[bool, typer.Option("--force", help="Compare even if method parameters differ.")] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Also write an HTML comparison.")] = None,
) -> None:
    """Put drives side by side with a Difference % column."""
    from ssdlab.compare import compare_bundles, comparison_tables, render_compare_html

    if len(bundles) < 2:
        raise SsdlabError("compare needs at least two bundles")
    comparison = compare_bundles(bundles, force=force)
    for table in comparison_tables(comparison):
        out.print(table)
    if output:
        out.print(f"Comparison: {render_compare_html(comparison, output).html}")


@sim_app.command("presets")
def sim_presets() -> None:
    """List the simulator's drive presets."""
    from ssdlab.targets.sim import simulator

    table = Table(title="ssdsim presets (use as sim:NAME)")
    for column in ("preset", "drive", "default"):
        table.add_column(column)
    for preset in simulator().presets():
        table.add_row(preset["name"], preset["title"], "yes" if preset["default"] else "")
    out.print(table)


@app.command()
def version() -> None:
    """Print the ssdlab version."""
    print(f"ssdlab {__version__}")


def _stop_on_sigterm(signum: int, frame: object) -> None:
    # A kill or a CI timeout stops like Ctrl-C: engines halt and the bundle keeps its data.
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: errors become one line on stderr and an exit code, never a traceback."""
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        app(standalone_mode=False)
    except Interrupted as error:
        err.print(f"[yellow]stopped:[/] {error}", highlight=False)
        sys.exit(error.exit_code)
    except SsdlabError as error:
        err.print(f"[red]error:[/] {error}", highlight=False)
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        err.print("[yellow]stopped[/]")
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        err.print("[yellow]stopped by the user[/]")
        sys.exit(130)
    except Exception as error:  # a bug: one line for the user, the traceback in a file for the report
        where = _save_traceback(error)
        err.print(f"[red]internal error:[/] {type(error).__name__}: {error} (details in {where}; "
                  "please report it)", highlight=False)
        sys.exit(InternalError.exit_code)


def _save_traceback(error: BaseException) -> str:
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(error))
    with tempfile.NamedTemporaryFile("w", prefix="ssdlab-crash-", suffix=".txt", delete=False) as handle:
        handle.write(text)
    return handle.name


if __name__ == "__main__":
    main()
