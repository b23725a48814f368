"""What `ssdlab run` and `plan` say of options and parameters before anything runs, as people
meet it: in-process (`cli`), piped (a subprocess) and in a terminal (a pty).

- Options that clash are refused in one line, never resolved in silence (QA: `run --no-library
  --library PATH`, and `--resume DIR --library PATH` of a run started with --no-library, added the
  run to no library without a word).
- A parameter outside its bounds is refused in one line naming the parameter, the value, the bound
  with its unit and the values to give (QA: `-p runtime_s=0.0005` said "Input should be greater than
  or equal to 0.001").
- Parameters that can never give a figure as the method means it are warned of up front (QA: a
  round_s under the 1 s logging period was explained only by the verdict after the run).
"""

from __future__ import annotations

import math
import re
import subprocess
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from annotated_types import Ge, Gt, Le, Lt
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from pydantic.fields import FieldInfo

from pty_helpers import SSDLAB, run_in_terminal
from ssdlab.bundle import Bundle
from ssdlab.errors import SsdlabError
from ssdlab.methods import REGISTRY, VARIANTS, get_entry, get_test
from ssdlab.units import MAX_SIZE_BYTES

QUICK = ["--test", "quick", "-t", "fake:?capacity=2g", "-p", "runs=1", "-p", "runtime_s=1", "--no-report"]


def one_line_error(code: int, stderr: str, *needles: str) -> str:
    """The one error line, checked: exit code 2, nothing else on stderr, no traceback."""
    lines = [line for line in stderr.replace("\r", "\n").splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, stderr)
    assert "Traceback" not in stderr and "Input should" not in stderr, stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def piped(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """`ssdlab ARGS` as a script runs it: stdout and stderr pipes, no terminal."""
    done = subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          cwd=cwd, check=False, timeout=300)
    return done.returncode, done.stdout, done.stderr


def how_run(cli: Callable[..., Any], how: str, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `ssdlab ARGS` run `how`: in-process, piped, or in a terminal
    (where both streams are the screen: it is given as stderr, and stdout is empty)."""
    if how == "in-process":
        result = cli(*args)
        return result.code, result.stdout, result.stderr
    if how == "piped":
        return piped(*args)
    # Wide enough for the longest error on one line: a terminal wraps one at its words (cli/app.print_message).
    shown = run_in_terminal(*args, columns=1000)
    return shown.code, "", shown.screen


HOWS = ["in-process", "piped", "terminal"]


# 1. Options that clash ---------------------------------------------------------------------------

@pytest.mark.parametrize("how", HOWS)
def test_no_library_beside_library_is_refused_before_anything_runs(cli: Callable[..., Any], tmp_path: Path,
                                                                   how: str) -> None:
    out, library = tmp_path / "b", tmp_path / "lib.sqlite"
    code, _, stderr = how_run(cli, how, "run", *QUICK, "-o", str(out), "--no-library", "--library", str(library))
    one_line_error(code, stderr, f"--no-library and --library {library} clash", "give one of them")
    assert not out.exists() and not library.exists()


def stopped(bundle: Path) -> None:
    """Mark a finished run as a stop half-way leaves it."""
    run = Bundle(bundle).load_run()
    test = run.tests[0]
    test = test.model_copy(update={"status": "interrupted", "action_outcomes": test.action_outcomes[:3]})
    Bundle(bundle).write_run(run.model_copy(update={"status": "interrupted", "tests": (test,)}))


@pytest.mark.parametrize("how", HOWS)
def test_resuming_with_a_library_a_run_started_with_no_library_is_refused(cli: Callable[..., Any], tmp_path: Path,
                                                                          how: str) -> None:
    """The resumed run keeps --no-library (cli/run.Kept), so a --library given now would get nothing."""
    bundle, library = tmp_path / "b", tmp_path / "lib.sqlite"
    assert cli("run", *QUICK, "-o", str(bundle), "--no-library").code == 0
    stopped(bundle)
    before = (bundle / "run.json").read_bytes()
    code, _, stderr = how_run(cli, how, "run", "--resume", str(bundle), "--library", str(library))
    one_line_error(code, stderr, f"{bundle} was started with --no-library", "drop --library",
                   f"`ssdlab library add --library {library} {bundle}`")
    code, _, stderr = how_run(cli, how, "run", "--resume", str(bundle), "--no-library", "--library", str(library))
    one_line_error(code, stderr, "--no-library and --library", "clash")
    assert (bundle / "run.json").read_bytes() == before and not library.exists()  # nothing resumed, nothing made


def test_a_resumed_run_still_takes_its_own_options_and_a_new_library(cli: Callable[..., Any], tmp_path: Path) -> None:
    """What the refusal must not take away: a run started with --no-library resumes with it given
    again, and one started with a library takes another given now (it wins, as Kept says)."""
    bundle, own, other = tmp_path / "b", tmp_path / "own.sqlite", tmp_path / "other.sqlite"
    assert cli("run", *QUICK, "-o", str(bundle), "--no-library").code == 0
    stopped(bundle)
    resumed = cli("run", "--resume", str(bundle), "--no-library")
    assert resumed.code == 0, resumed.stderr
    again = tmp_path / "c"
    assert cli("run", *QUICK, "-o", str(again), "--library", str(own)).code == 0
    stopped(again)
    resumed = cli("run", "--resume", str(again), "--library", str(other))
    assert resumed.code == 0, resumed.stderr


@pytest.mark.parametrize("param", ["until_steady=false", "consistency.until_steady=0", "until_steady=no"])
@pytest.mark.parametrize("command", ["plan", "run"])
def test_until_steady_beside_a_param_that_turns_it_off_is_refused(cli: Callable[..., Any], tmp_path: Path,
                                                                 param: str, command: str) -> None:
    """--until-steady set until_steady=true over `-p until_steady=false` in silence."""
    out = tmp_path / "b"
    extra = ["-o", str(out), "--no-report", "--no-library"] if command == "run" else []
    result = cli(command, "--test", "consistency", "-t", "fake:?capacity=2g", "-p", param, "--until-steady", *extra)
    one_line_error(result.code, result.stderr, f"--until-steady and --param {param} clash", "give one of them")
    assert not out.exists()
    same = cli("plan", "--test", "consistency", "-t", "fake:", "-p", "until_steady=true", "--until-steady")
    assert same.code == 0, same.stderr  # saying it twice is no clash


@pytest.mark.parametrize("command", ["plan", "run"])
def test_a_param_given_twice_with_two_values_is_refused(cli: Callable[..., Any], tmp_path: Path, command: str) -> None:
    """`-p runtime_s=1 -p runtime_s=2` ran 2 s in silence; the same value twice is no clash."""
    out = tmp_path / "b"
    extra = ["-o", str(out), "--no-report", "--no-library"] if command == "run" else []
    result = cli(command, "--test", "quick", "-t", "fake:", "-p", "runtime_s=1", "-p", "runtime_s=2", *extra)
    one_line_error(result.code, result.stderr, "--param runtime_s is given twice, as '1' and '2'", "give it once")
    assert not out.exists()
    assert cli("plan", "--test", "quick", "-t", "fake:", "-p", "runtime_s=1", "-p", "runtime_s=1").code == 0


# 2. Bounds ---------------------------------------------------------------------------------------

def _walk(item: Any) -> Iterator[Any]:
    yield item
    inner = item.metadata if isinstance(item, FieldInfo) else typing.get_args(item)
    for part in inner:
        yield from _walk(part)


def bounds_of(info: FieldInfo) -> tuple[Any, Any, bool]:
    """(low bound, high bound, whole numbers) of a numeric parameter, its list's items' for a list."""
    found = [x for m in [*info.metadata, info.annotation] for x in _walk(m)]
    low = next((x for x in found if isinstance(x, Ge | Gt)), None)
    high = next((x for x in found if isinstance(x, Le | Lt)), None)
    return low, high, any(x is int for x in found)


def unit_of(field: str) -> str:
    """The unit a parameter's bound is given in: its name says it, a list's too (read_pcts)."""
    for suffix, unit in (("_bytes", "bytes"), ("_pcts", "%"), ("_pct", "%"), ("_us", "µs"), ("_s", "s")):
        if field.endswith(suffix):
            return unit
    return ""


def reachable(field: str, side: str, bound: Any) -> bool:
    """Whether a value past this bound reaches the bound's check: a size is no negative number,
    and sizes over 1 EiB are refused by the size parser itself, in its own one line (test_inputs_fuzz)."""
    if bound is None:
        return False
    if unit_of(field) != "bytes":
        return True
    return bool(bound.ge) if side == "low" else bound.le < MAX_SIZE_BYTES


def bounded_sides() -> list[tuple[str, str, str]]:
    """(test, parameter, "low" or "high") of every bound a value can break, variants' included."""
    out = []
    for name in sorted({*REGISTRY, *VARIANTS}):
        for field, info in get_test(get_entry(name).test).params_model.model_fields.items():
            low, high, _ = bounds_of(info)
            out += [(name, field, side) for side, bound in (("low", low), ("high", high))
                    if reachable(field, side, bound)]
    return out


SIDES = bounded_sides()
LISTS = {"queue_depths": "1", "read_pcts": "50", "block_sizes_bytes": "4096"}  # and a good value for each


@st.composite
def bad_values(draw: st.DrawFn) -> tuple[str, str, str, float]:
    """(test, parameter, value as typed, the bound it breaks) of a value outside the bounds."""
    name, field, side = draw(st.sampled_from(SIDES))
    low, high, whole = bounds_of(get_test(get_entry(name).test).params_model.model_fields[field])
    limit = low if side == "low" else high
    inclusive = isinstance(limit, Ge | Le)
    bound = limit.ge if isinstance(limit, Ge) else limit.gt if isinstance(limit, Gt) else \
        limit.le if isinstance(limit, Le) else limit.lt
    sign = -1 if side == "low" else 1
    if whole:
        value: float = bound + sign * draw(st.integers(1 if inclusive else 0, 10**6))
    elif not inclusive and draw(st.booleans()):
        value = bound
    else:
        value = bound + sign * draw(st.floats(1e-6, 1e6)) * max(1.0, abs(bound))
    if unit_of(field) == "bytes":
        value = max(0, value)  # a size is typed as a whole number of bytes
    text = str(int(value)) if whole else repr(float(value))
    if field in LISTS:  # one bad value among good ones
        text = f"{LISTS[field]},{text}"
    return name, field, text, bound


NUMBER_UNIT = re.compile(r"(?:is under|is over|is not above|is not under) (\d+(?:\.\d+)?)(?: (s|%|µs)|([KMGTE]i)?B)?"
                         r"(?=[,:;]|$)")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=bad_values())
@example(case=("quick", "runtime_s", "0.0005", 0.001))  # the QA case
@example(case=("consistency", "op_pct", "100", 100.0))
@example(case=("qd-sweep", "queue_depths", "1,5000", 4096))
def test_any_value_outside_a_parameters_bounds_is_one_line_that_says_what_to_give(
        cli: Callable[..., Any], case: tuple[str, str, str, float]) -> None:
    name, field, text, bound = case
    result = cli("plan", "-t", "fake:?capacity=2g", "--test", name, "-p", f"{field}={text}")
    method = get_entry(name).test  # a variant's parameters are refused in its method's name
    line = one_line_error(result.code, result.stderr, f"error: test {method}: parameter {field}={text}", "; give ")
    said = NUMBER_UNIT.search(line)
    assert said is not None, line
    number, unit, binary = said.groups()
    expected = unit_of(field)
    if expected == "bytes":
        factor = {"": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Ei": 1 << 60}[binary or ""]
        assert said.group(0).endswith("B") and int(number) * factor == bound, line
    else:
        assert (unit or "") == expected and math.isclose(float(number), bound), line


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_no_finite_number_is_one_line_with_the_range(cli: Callable[..., Any], value: str) -> None:
    result = cli("plan", "-t", "fake:", "--test", "quick", "-p", f"runtime_s={value}")
    one_line_error(result.code, result.stderr, f"parameter runtime_s={value} is not a finite number",
                   "give a number of seconds from 0.001 to 604800")


@pytest.mark.parametrize("how", HOWS)
def test_the_qa_case_as_people_type_it(cli: Callable[..., Any], tmp_path: Path, how: str) -> None:
    out = tmp_path / "b"
    code, _, stderr = how_run(cli, how, "run", "--test", "quick", "-t", "sim:", "-p", "runtime_s=0.0005",
                              "-o", str(out), "--no-library")
    one_line_error(code, stderr, "error: test quick: parameter runtime_s=0.0005 is under 0.001 s, the least it takes: "
                   "fio's job files count whole milliseconds", "; give a number of seconds from 0.001 to 604800")
    assert not out.exists()


# 3. Parameters that can never give a figure -------------------------------------------------------

ROUND = ["--test", "consistency", "-t", "fake:?capacity=2g", "-p", "runtime_s=6", "-p", "round_s=0.5",
         "-p", "steady_window_s=5"]
ROUND_WARNING = ("warning: test consistency: round_s=0.5 is under the 1 s logging period of the IOPS series: the "
                 "steady-state rule judges rounds of whole periods, so of 1 s; give round_s of at least 1")


@pytest.mark.parametrize("how", HOWS)
def test_plan_warns_of_a_round_under_the_logging_period_up_front(cli: Callable[..., Any], how: str) -> None:
    code, stdout, stderr = how_run(cli, how, "plan", *ROUND)
    shown = stdout if how != "terminal" else stderr
    assert code == 0, stderr
    lines = [line.strip() for line in shown.replace("\r", "\n").splitlines() if line.strip()]
    warnings = [line for line in lines if line.startswith("warning:")]
    assert warnings == [ROUND_WARNING], shown
    assert lines.index(ROUND_WARNING) < next(i for i, line in enumerate(lines) if line.startswith("consistency ("))


@pytest.mark.parametrize("how", HOWS)
def test_run_warns_of_a_round_under_the_logging_period_before_it_measures(cli: Callable[..., Any], tmp_path: Path,
                                                                          how: str) -> None:
    out = tmp_path / "b"
    code, _, stderr = how_run(cli, how, "run", *ROUND, "-o", str(out), "--no-report", "--no-library")
    assert code == 0, stderr
    lines = [line.strip() for line in stderr.replace("\r", "\n").splitlines() if line.strip()]
    assert lines.count(ROUND_WARNING) == 1, stderr
    first_progress = next(i for i, line in enumerate(lines) if "consistency" in line and not line.startswith("warn"))
    assert lines.index(ROUND_WARNING) < first_progress, stderr  # before anything is measured
    record = Bundle(out).load_run()
    assert record.tests[0].metrics["steady_round_s"] == 1.0  # what the warning said the rule would judge


@pytest.mark.parametrize(("params", "warned"), [
    # (runtime_s, round_s, steady_window_s, until_steady, max_rounds): warned exactly where the verdict
    # is inconclusive ("Too short to judge", or "Not judged": no window after the free space was
    # written, which on this drive takes 2 s). The drive always has free space, so no window may
    # begin in the first round: the rule needs 6 rounds at least (QA: 5 were not warned of).
    ((9, 2, 8, False, 25), True),  # 4 rounds of 2 s
    ((10, 2, 8, False, 25), True),  # 5 rounds: the first holds the free space's end
    ((12, 2, 8, False, 25), False),  # 6 rounds
    ((11.5, 1, 12, False, 25), True),  # shorter than the window
    ((12, 1, 12, False, 25), False),
    ((30, 1, 6, True, 5), True),  # max_rounds stops the rounds short of the window
    ((30, 1, 5, True, 5), True),  # 5 rounds at most: never a window after the first
    ((30, 1, 5, True, 7), False),
], ids=["4-rounds", "5-rounds", "6-rounds", "under-window", "window", "max-rounds-short", "max-rounds-5",
        "max-rounds-enough"])
def test_a_run_that_can_never_be_judged_is_warned_of_and_is_not(cli: Callable[..., Any], tmp_path: Path,
                                                                params: tuple[float, float, float, bool, int],
                                                                warned: bool) -> None:
    names = ("runtime_s", "round_s", "steady_window_s", "until_steady", "max_rounds")
    pairs = [x for key, value in zip(names, params, strict=True) for x in ("-p", f"{key}={value}")]
    out = tmp_path / "b"
    result = cli("run", "--test", "consistency", "-t", "sim:sm951-nvme-256?capacity_gib=1", *pairs, "-o", str(out),
                 "--no-report", "--no-library")
    assert result.code == 0, result.stderr
    said = [line for line in result.stderr.splitlines()
            if line.startswith("warning: test consistency: no steady-state verdict can come of these parameters")]
    assert len(said) == int(warned), result.stderr
    verdict = Bundle(out).load_run().tests[0].verdicts[0]
    assert (verdict.outcome == "inconclusive") == warned, (verdict.summary, verdict.because)


# 4. The verdict's own count of rounds, before the run --------------------------------------------

QA_SIM = "sim:?capacity_gib=8"
NEVER = "no steady-state verdict can come of these parameters"


def warnings_of(stderr: str) -> list[str]:
    return [line for line in stderr.replace("\r", "\n").splitlines() if line.startswith("warning:")]


@pytest.mark.parametrize("pairs", [["runtime_s=400"], ["runtime_s=479"], ["runtime_s=400", "steady_window_s=1"]],
                         ids=["400", "479", "400-window-1"])
def test_a_run_whose_first_round_holds_the_free_space_is_warned_of_as_its_verdict_says(
        cli: Callable[..., Any], tmp_path: Path, pairs: list[str]) -> None:
    """QA: a 400 s torture (also 401-479 s, and with steady_window_s=1) was warned of nothing, then
    judged "INCONCLUSIVE ... judging needs 6 rounds, at least 480 s (give it runtime_s of at least
    480)": the first round always holds the end of the writing of the free space. The warning
    before the run and the verdict after it say the same rounds and the same way out."""
    args = ["--test", "consistency", "-t", QA_SIM, *[x for p in pairs for x in ("-p", p)]]
    planned = cli("plan", *args)
    assert planned.code == 0, planned.stderr
    said = [w for w in warnings_of(planned.stdout) if NEVER in w]
    assert len(said) == 1 and "5 of the 6 rounds of 80 s" in said[0], planned.stdout
    assert said[0].endswith("; give runtime_s of at least 480"), said[0]
    out = tmp_path / "b"
    ran = cli("run", *args, "-o", str(out), "--no-report", "--no-library")
    assert ran.code == 0 and [w for w in warnings_of(ran.stderr) if NEVER in w] == said, ran.stderr
    verdict = Bundle(out).load_run().tests[0].verdicts[0]
    assert verdict.outcome == "inconclusive", verdict
    assert verdict.because.endswith("judging needs 6 rounds, at least 480 s (give it runtime_s of at least 480)"), \
        verdict.because


def test_a_run_as_long_as_the_warning_asks_is_judged(cli: Callable[..., Any], tmp_path: Path) -> None:
    out = tmp_path / "b"
    ran = cli("run", "--test", "consistency", "-t", QA_SIM, "-p", "runtime_s=480", "-o", str(out), "--no-report",
              "--no-library")
    assert ran.code == 0 and not warnings_of(ran.stderr), ran.stderr
    assert Bundle(out).load_run().tests[0].verdicts[0].outcome in ("yes", "no")


def test_wsat_is_warned_of_alike(cli: Callable[..., Any]) -> None:
    planned = cli("plan", "--test", "wsat", "-t", QA_SIM, "-p", "runtime_s=400")
    assert any(NEVER in w and "5 of the 6 rounds" in w for w in warnings_of(planned.stdout)), planned.stdout


SIDE_BY_SIDE = re.compile(r"runs at most ([\d.]+) s, shorter than the ([\d.]+) s steady-state window")
NOTE = re.compile(r"runtime_s=([\d.]+) is shorter than the ([\d.]+) s steady-state window: figures will be for "
                  r"the last ([\d.]+) s")


@pytest.mark.parametrize(("runtime", "window"), [("399.99", "400"), ("399.9999", "400"), ("400", "400.004"),
                                                 ("0.5", "0.501")])
def test_a_torture_shorter_than_its_window_says_numbers_that_are(cli: Callable[..., Any], runtime: str,
                                                                   window: str) -> None:
    """QA: runtime_s=399.99 "runs at most 400 s, shorter than the 400 s steady-state window"."""
    planned = cli("plan", "--test", "consistency", "-t", "fake:?capacity=2g", "-p", f"runtime_s={runtime}",
                  "-p", f"steady_window_s={window}")
    assert planned.code == 0, planned.stderr
    said = SIDE_BY_SIDE.search(planned.stdout)
    assert said is not None and float(said[1]) < float(said[2]), planned.stdout
    assert float(said[1]) == float(runtime) and float(said[2]) == float(window), said[0]
    note = NOTE.search(planned.stdout)
    assert note is not None and float(note[1]) < float(note[2]) and note[1] == note[3], planned.stdout


@pytest.mark.parametrize("pairs", [["runtime_s=400", "steady_window_s=1"], ["runtime_s=1"]], ids=["window", "run"])
def test_a_window_of_one_period_has_no_spread_and_is_warned_of(cli: Callable[..., Any], tmp_path: Path,
                                                               pairs: list[str]) -> None:
    """QA: steady_window_s=1 reported standard deviation 0 IOPS and CoV 0.0 % from one sample: a
    perfectly consistent drive, as it read. The spread of one sample is no spread (docs/methods/
    consistency.md: the population standard deviation of the window's per-second IOPS)."""
    args = ["--test", "consistency", "-t", "sim:sm951-nvme-256?capacity_gib=1",
            *[x for p in pairs for x in ("-p", p)]]
    planned = cli("plan", *args)
    assert any("so the window has no spread" in w for w in warnings_of(planned.stdout)), planned.stdout
    out = tmp_path / "b"
    assert cli("run", *args, "-o", str(out), "--no-report", "--no-library").code == 0
    metrics = Bundle(out).load_run().tests[0].metrics
    assert metrics["window_iops_mean"] > 0
    assert (metrics["window_iops_stddev"], metrics["window_cv_pct"], metrics["window_mean_stddev_ratio"]) == \
        (None, None, None), metrics
    two = cli("plan", "--test", "consistency", "-t", "fake:?capacity=2g", "-p", "steady_window_s=2")
    assert not any("no spread" in w for w in warnings_of(two.stdout)), two.stdout


GRID_RUNTIMES, GRID_WINDOWS = ("1.2", "300", "399.99", "479"), ("0.5", "200", "400")
NOT_JUDGED_COUNT = re.compile(r"judging needs (\d+) rounds, at least [\d.]+ s \(give it (.+)\)$")
HELD_COUNT = re.compile(r"(\d+) of the (\d+) rounds of [\d.]+ s the rule needs.*; give (.+)$")


def count_and_advice(text: str) -> tuple[str, str]:
    """(rounds the rule needs, what to give) as a warning or a verdict says them."""
    held, unjudged = HELD_COUNT.search(text), NOT_JUDGED_COUNT.search(text)
    assert held or unjudged, text
    return (held[2], held[3]) if held else (unjudged[1], unjudged[2])  # type: ignore[index]


@pytest.mark.parametrize("window", GRID_WINDOWS)
@pytest.mark.parametrize("runtime", GRID_RUNTIMES)
def test_the_warning_and_the_verdict_count_alike_and_advise_alike(cli: Callable[..., Any], tmp_path: Path,
                                                                  runtime: str, window: str) -> None:
    """QA: runtime_s=300 with steady_window_s=200 was warned of "3 of the 6 rounds of 80 s the rule
    needs … give runtime_s of at least 480" and judged "3 of the 5 rounds of 80 s the method needs",
    with no advice; runtime_s=399.99 was judged "the torture ran 400 s, shorter than the 400 s
    steady-state window", its figures "for the last 400 s". A "Too short" verdict says the warning's
    own words; a "Not judged" one its count and advice."""
    args = ["--test", "consistency", "-t", QA_SIM, "-p", f"runtime_s={runtime}", "-p", f"steady_window_s={window}"]
    out = tmp_path / "b"
    ran = cli("run", *args, "-o", str(out), "--no-report", "--no-library")
    assert ran.code == 0, ran.stderr
    said = [w for w in warnings_of(ran.stderr) if NEVER in w]
    assert len(said) == 1, ran.stderr
    verdict = Bundle(out).load_run().tests[0].verdicts[0]
    assert verdict.outcome == "inconclusive", verdict
    assert count_and_advice(said[0]) == count_and_advice(verdict.because), (said[0], verdict.because)
    if verdict.summary.startswith("Too short to judge"):
        assert verdict.because == said[0].split(f"{NEVER}: ", 1)[1].replace("runs at most", "ran"), \
            (said[0], verdict.because)
    if (runtime, window) == ("399.99", "400"):  # never a figure that reads as long as the bound it falls short of
        assert verdict.summary.startswith("Too short to judge: figures are for the last 399.99 s"), verdict.summary
        assert verdict.because.startswith("the torture ran 399.99 s, shorter than the 400 s"), verdict.because


def test_a_run_as_long_as_both_ask_is_warned_of_nothing_and_judged(cli: Callable[..., Any], tmp_path: Path) -> None:
    out = tmp_path / "b"
    ran = cli("run", "--test", "consistency", "-t", QA_SIM, "-p", "runtime_s=480", "-p", "steady_window_s=200",
              "-o", str(out), "--no-report", "--no-library")
    assert ran.code == 0 and not warnings_of(ran.stderr), ran.stderr
    assert Bundle(out).load_run().tests[0].verdicts[0].outcome in ("yes", "no")


def test_a_window_short_of_its_setting_is_titled_in_figures_that_read_shorter(cli: Callable[..., Any],
                                                                             tmp_path: Path) -> None:
    """QA: a 399.99 s torture's summary, table titles and charts said "last 400 s" of a 400 s window."""
    out = tmp_path / "b"
    ran = cli("run", "--test", "consistency", "-t", QA_SIM, "-p", "runtime_s=399.99", "-o", str(out), "--no-library")
    assert ran.code == 0, ran.stderr
    report = (out / "report.html").read_text()
    assert "last 400 s" not in report and "ast 399.99 s" in report
    assert "last 400 s" not in ran.stdout and "the last 399.99 s" in ran.stdout, ran.stdout


@pytest.mark.parametrize(("pairs", "warned"), [
    (["runtime_s=1.1"], True), (["runtime_s=1.2"], True), (["runtime_s=1.4"], True), (["runtime_s=1.6"], False),
    (["runtime_s=60", "steady_window_s=1.5"], True), (["runtime_s=60", "steady_window_s=1.4"], True),
    (["runtime_s=60", "steady_window_s=2"], False), (["runtime_s=10.3", "round_s=5", "until_steady=true"], False),
], ids=["1.1", "1.2", "1.4", "1.6", "window-1.5", "window-1.4", "window-2", "rounds-of-5.15"])
def test_no_spread_is_warned_of_exactly_where_the_run_has_none(cli: Callable[..., Any], tmp_path: Path,
                                                               pairs: list[str], warned: bool) -> None:
    """QA: runtime_s=1.1 (1.2, 1.4) and steady_window_s=1.5 were warned of nothing, and the run's
    window had one period and no standard deviation: the engines fold a tail under half a period
    into the last period, and a run's last period ends past its runtime, so its window is taken by
    time."""
    args = ["--test", "consistency", "-t", QA_SIM, *[x for p in pairs for x in ("-p", p)]]
    out = tmp_path / "b"
    ran = cli("run", *args, "-o", str(out), "--no-report", "--no-library")
    assert ran.code == 0, ran.stderr
    said = [w for w in warnings_of(ran.stderr) if "so the window has no spread" in w]
    stddev = Bundle(out).load_run().tests[0].metrics["window_iops_stddev"]
    assert len(said) == int(warned) and (stddev is None) == warned, (said, stddev)


# 0.9996 was a case too, until a run's time became whole milliseconds, as fio's job files count it
# (methods/params._whole_milliseconds): 0.999 is the closest under the period a run can be given.
@pytest.mark.parametrize("runtime", ["0.999"])
def test_a_window_just_under_its_period_reads_under_it(cli: Callable[..., Any], tmp_path: Path, runtime: str) -> None:
    """QA: `plan --test mixed-random -p runtime_s=0.999` said "run under one 1 s period … (the shortest: 1 s)"."""
    args = ["--test", "mixed-random", "-t", QA_SIM, "-p", f"runtime_s={runtime}"]
    planned = cli("plan", *args)
    said = [w for w in warnings_of(planned.stdout) if UNDER_A_PERIOD in w]
    assert len(said) == 1 and f"(the shortest: {runtime} s)" in said[0], planned.stdout
    out = tmp_path / "b"
    assert cli("run", *args, "-o", str(out), "--no-report", "--no-library").code == 0
    notes = [n for n in Bundle(out).load_run().tests[0].notes if n.startswith("figures unreliable")]
    shortest = re.search(r"the shortest: ([\d.]+) s", notes[0]) if notes else None
    assert shortest is not None and float(shortest[1]) < 1, notes


# 5. Parameters that clash with each other -----------------------------------------------------------

@pytest.mark.parametrize(("command", "pairs", "needles"), [
    ("transfer-sweep", ["min_block_bytes=1m", "max_block_bytes=4k"],
     ["parameter min_block_bytes=1m is over max_block_bytes, 4KiB", "give a min_block_bytes of at most 4KiB"]),
    ("transfer-sweep", ["min_block_bytes=4m", "length_bytes=1m"],
     ["parameter min_block_bytes=4m is over length_bytes, 1MiB", "give a min_block_bytes of at most 1MiB"]),
    ("transfer-sweep", ["min_block_bytes=1536"], ["parameter min_block_bytes=1536 is not a power of two"]),
    ("thermal", ["budget_bytes=2k"], ["parameter budget_bytes=2k is under seq_block_size_bytes, 128KiB",
                                      "give a budget_bytes of at least 128KiB, or none"]),
    ("quick", ["size_bytes=4k"], ["parameter size_bytes=4k is under 1MiB, the least it takes",
                                  "give a size from 1MiB to 1EiB"]),
    ("qd-sweep", ["span_bytes=4k"], ["workload fill: its span, 4KiB, is smaller than one 128KiB block",
                                     "give a span of at least one block"]),
], ids=["min-over-max", "min-over-length", "not-a-power", "budget-under-block", "region-under-1m", "span-under-block"])
@pytest.mark.parametrize("verb", ["plan", "run"])
def test_parameters_that_leave_nothing_to_measure_are_refused_in_one_line(
        cli: Callable[..., Any], tmp_path: Path, verb: str, command: str, pairs: list[str], needles: list[str]) -> None:
    """QA: transfer-sweep with min_block_bytes=1m and max_block_bytes=4k planned a purge alone and
    ended "failed: nothing was measured"; a budget under a block ran phases that wrote nothing."""
    out = tmp_path / "b"
    extra = ["-o", str(out), "--no-report", "--no-library"] if verb == "run" else []
    result = cli(verb, "--test", command, "-t", QA_SIM, *[x for p in pairs for x in ("-p", p)], *extra)
    one_line_error(result.code, result.stderr, f"error: test {command}: ", *needles, "; give ")
    assert not out.exists()


def test_transfer_sizes_the_target_cannot_take_are_refused_not_crashed_on(cli: Callable[..., Any]) -> None:
    """No size of the sweep is a multiple of a 4Kn drive's block: an IndexError (an internal error)."""
    result = cli("plan", "--test", "transfer-sweep", "-t", "sim:?identity.logical_block_size=4096",
                 "-p", "max_block_bytes=2k")
    one_line_error(result.code, result.stderr, "no transfer size from 512B to 2KiB fits",
                   "at least its 4096 B logical block", "; give sizes between them")


# 6. Values of the wrong type -------------------------------------------------------------------------

@pytest.mark.parametrize(("test", "given", "said"), [
    ("quick", "runtime_s=1s", "is not a number (runtime_s is in s already: write 1); give a number of seconds "
                              "from 0.001 to 604800"),
    ("quick", "runtime_s=abc", "is not a number; give a number of seconds from 0.001 to 604800"),
    ("iometer-mixed", "read_pct=50%", "is not a whole number (read_pct is in % already: write 50); give a "
                                      "percentage from 0 to 100"),
    ("consistency", "until_steady=maybe", "is not true or false; give true or false"),
    ("linear", "passes=write,foo", ": foo is not write or read; give each write or read"),
    ("qd-sweep", "queue_depths=", "is empty; give one or more values separated by commas, each a whole number "
                                  "from 1 to 4096"),
    ("qd-sweep", "queue_depths=1,x", ": x is not a whole number; give each a whole number from 1 to 4096"),
    ("quick", "aggregate=worst", "is not best or mean; give best or mean"),
    ("quick", "runs=2.5", "is not a whole number; give a whole number from 1 to 9"),
    ("quick", "size_bytes=16q", "is not a size (a number in digits 0-9 with an optional k/m/g/t suffix, e.g. 4k, "
                                "1g or 1 g); give a size from 1MiB to 1EiB"),
    ("pts-iops", "block_sizes_bytes=4k,zz", ": zz is not a size"),
    ("qd-sweep", "random_block_bytes=1000", "is not a whole number of 512-byte sectors; give a multiple of 512 bytes"),
    ("qd-sweep", "queue_depths=1,1", "gives 1 more than once; give each value once"),
    ("trace", "trace=", "is empty; give text, e.g. generated:heavy"),
    ("trace", "trace=generated:nope", "is no generated trace; give generated:heavy / generated:"),
])
def test_a_value_of_the_wrong_type_is_one_line_that_says_what_to_give(cli: Callable[..., Any], test: str, given: str,
                                                                       said: str) -> None:
    """QA: `runtime_s=1s` said "Input should be a valid number", `passes=write,foo` "parameter
    passes.1: Input should be 'write' or 'read'", `aggregate=worst` did not echo the value."""
    result = cli("plan", "-t", "fake:?capacity=2g", "--test", test, "-p", given)
    joint = "" if said.startswith(":") else " "  # a value of a list is named after the list
    one_line_error(result.code, result.stderr, f"error: test {test}: parameter {given}{joint}{said}")


# What people type where a parameter wants something else: words, units, lists, sizes, nothing.
WRONG = st.one_of(
    st.sampled_from(["", "abc", "1s", "50%", "5us", "maybe", "worst", "1,,2", "1,", ",", "4k,zz", "16q", "-1", "1.5",
                     "2.5", "1e3", "0x10", "none", "write,foo", "1,x", "true", "4k", "1,2", "yes please", "[red]x"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=8),
)
PYDANTIC_WORDS = ("Input should", "Value error", "Value should", "String should", "validation error", "Extra inputs")
FIELDS = sorted((name, field) for name in {*REGISTRY, *VARIANTS}
                for field in get_test(get_entry(name).test).params_model.model_fields)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(FIELDS), value=WRONG)
@example(case=("quick", "runtime_s"), value="1s")  # the QA cases
@example(case=("iometer-mixed", "read_pct"), value="50%")
@example(case=("consistency", "until_steady"), value="maybe")
@example(case=("linear", "passes"), value="write,foo")
@example(case=("qd-sweep", "queue_depths"), value="")
@example(case=("quick", "aggregate"), value="worst")
@example(case=("qd-sweep", "queue_depths"), value="1,,2")
def test_any_value_a_parameter_refuses_is_one_line_that_names_it_and_says_what_to_give(
        cli: Callable[..., Any], case: tuple[str, str], value: str) -> None:
    """The bounds test above, for values of any type: whatever a parameter refuses is refused in one
    line that leads with the parameter and the value as given, in no words of pydantic's."""
    name, field = case
    entry = get_entry(name)
    method = get_test(entry.test)
    assume(not (field == "trace" and Path(value.strip()).exists()))  # a file's own check says what it is
    try:
        method.parse_params({**entry.params, field: value.strip()})
    except SsdlabError:
        refused = True
    else:
        refused = False
    result = cli("plan", "-t", "fake:?capacity=2g", "--test", name, "-p", f"{field}={value}")
    assert not any(words in result.stderr for words in PYDANTIC_WORDS), result.stderr
    if refused:
        one_line_error(result.code, result.stderr, f"error: test {entry.test}: parameter {field}={value.strip()}",
                       "; give ")


# 7. Lists with an empty value, a parameter given twice -----------------------------------------------

@pytest.mark.parametrize(("test", "given"), [("qd-sweep", "queue_depths=1,,2"), ("qd-sweep", "queue_depths=1,2,"),
                                             ("mixed-random", "read_pcts=50, ,0"),
                                             ("pts-iops", "block_sizes_bytes=4k,,8k"),
                                             ("linear", "passes=write,,read")])
def test_an_empty_value_in_a_list_is_refused(cli: Callable[..., Any], test: str, given: str) -> None:
    """QA: `-p queue_depths=1,,2` planned (1, 2), whatever was meant between the commas."""
    result = cli("plan", "-t", "fake:?capacity=2g", "--test", test, "-p", given)
    one_line_error(result.code, result.stderr, f"error: test {test}: parameter {given} has an empty value",
                   "; give ")


@pytest.mark.parametrize("pair", [("runtime_s=1", "runtime_s=1.0"), ("runtime_s=1", "runtime_s=1.000"),
                                  ("quick.size_bytes=4m", "quick.size_bytes=4096k")])
def test_one_value_given_twice_in_two_spellings_is_taken(cli: Callable[..., Any], pair: tuple[str, str]) -> None:
    """QA: `-p runtime_s=1 -p runtime_s=1.0` was refused as "given twice, as '1' and '1.0'"."""
    result = cli("plan", "--test", "quick", "-t", "fake:", "-p", pair[0], "-p", pair[1])
    assert result.code == 0, result.stderr


def test_a_scoped_value_winning_over_a_plain_one_is_said_in_the_help(cli: Callable[..., Any]) -> None:
    """`-p runtime_s=1 -p quick.runtime_s=2` runs quick for 2 s (planning.resolve_params): said in
    `--help`, and the plan's params line shows the value taken."""
    helped = cli("plan", "--help")
    assert "wins over key=value" in " ".join(helped.stdout.replace("│", " ").split()), helped.stdout
    planned = cli("plan", "--test", "quick", "-t", "fake:", "-p", "runtime_s=1", "-p", "quick.runtime_s=2")
    assert planned.code == 0 and "runtime_s=2.0" in planned.stdout, planned.stdout


# 8. Windows shorter than a period of their series, before the run ------------------------------------

WINDOW_FIELDS = sorted((name, field) for name in REGISTRY for field in get_test(name).params_model.model_fields
                       if re.fullmatch(r"(?:.*_)?runtime_s|round_s", field))
UNDER_A_PERIOD = "run under one 1 s period of their series"


@pytest.mark.parametrize("how", HOWS)
def test_quick_with_windows_under_a_period_is_warned_of_before_it_runs(cli: Callable[..., Any], tmp_path: Path,
                                                                       how: str) -> None:
    """QA: `quick -p runtime_s=0.05` planned in silence though every window is under the 1 s period
    of its series, which the run then flagged in full (runner.short_window_notes)."""
    code, stdout, stderr = how_run(cli, how, "plan", "--test", "quick", "-t", QA_SIM, "-p", "runtime_s=0.05")
    shown = [w for w in warnings_of(stdout if how != "terminal" else stderr) if UNDER_A_PERIOD in w]
    assert code == 0 and len(shown) == 1, (stdout, stderr)
    assert shown[0].startswith("warning: test quick: 40 of 40 measured windows (") and \
        shown[0].endswith("raise runtime_s to at least 1 s"), shown[0]
    out = tmp_path / "b"
    code, _, stderr = how_run(cli, how, "run", "--test", "quick", "-t", QA_SIM, "-p", "runtime_s=0.05", "-p", "runs=1",
                              "-o", str(out), "--no-report", "--no-library")
    assert code == 0 and sum(UNDER_A_PERIOD in w for w in warnings_of(stderr)) == 1, stderr
    notes = Bundle(out).load_run().tests[0].notes
    assert any(note.startswith("figures unreliable: 8 of 8 measured windows") for note in notes), notes


@pytest.mark.parametrize(("name", "field"), WINDOW_FIELDS)
def test_every_time_bound_window_under_a_period_is_warned_of(cli: Callable[..., Any], name: str, field: str) -> None:
    extra = ["-p", "until_steady=true"] if field == "round_s" else []
    planned = cli("plan", "--test", name, "-t", "fake:?capacity=2g", "-p", f"{field}=0.5", *extra)
    said = [w for w in warnings_of(planned.stdout) if UNDER_A_PERIOD in w]
    measured = not (name == "trim-validation" and field == "torture_runtime_s")  # a preparation, not measured
    assert len(said) == int(measured), planned.stdout + planned.stderr
    if measured:
        assert said[0].endswith(f"raise {field} to at least 1 s"), said[0]
    whole = cli("plan", "--test", name, "-t", "fake:?capacity=2g", "-p", f"{field}=1", *extra)
    assert not any(UNDER_A_PERIOD in w for w in warnings_of(whole.stdout)), whole.stdout


# QA of the second pass --------------------------------------------------------------------------

def test_a_whole_number_in_a_list_reads_as_a_single_value_does() -> None:
    """`runs=2.0` was taken as 2 but `queue_depths=1,2.0` refused (and the two spellings of one list
    then clashed as two values)."""
    sweep = get_test("qd-sweep")
    assert sweep.parse_params({"queue_depths": "1,2.0"}).queue_depths == (1, 2)  # type: ignore[attr-defined]
    with pytest.raises(SsdlabError, match=r"queue_depths=1,2\.5: 2\.5 is not a whole number"):
        sweep.parse_params({"queue_depths": "1,2.5"})


def test_a_cool_down_of_no_time_is_none(cli: Callable[..., Any]) -> None:
    """QA: `cooldown_s=0` was refused with fio's millisecond reason; an idle is no fio job, and 0 s of
    idle is no idle, as `none` says."""
    thermal = get_test("thermal")
    for value in ("0", "0.0", "none"):
        assert thermal.parse_params({"cooldown_s": value}).cooldown_s is None  # type: ignore[attr-defined]
    result = cli("plan", "--test", "thermal", "-t", "sim:?capacity_gib=8", "-p", "cooldown_s=0")
    assert result.code == 0 and "cooldown-" not in result.stdout
    with pytest.raises(SsdlabError, match="cooldown_s=-1 "):
        thermal.parse_params({"cooldown_s": "-1"})


def test_a_misspelt_test_name_in_a_param_is_named(cli: Callable[..., Any]) -> None:
    """QA: `-p consistncy.op_pct=10` said "no selected test takes parameter", as of a parameter no
    test has; it is the test name that no selected test has."""
    result = cli("plan", "--suite", "consistency", "-t", "fake:", "-p", "consistncy.op_pct=10")
    one_line_error(result.code, result.stderr, "--param consistncy.op_pct: no selected test is named 'consistncy'",
                   "consistency, consistency-op25")
    result = cli("plan", "--suite", "consistency", "-t", "fake:", "-p", "consistency.nosuch=1")
    one_line_error(result.code, result.stderr, "no selected test takes parameter 'consistency.nosuch'")
    assert cli("plan", "--suite", "consistency", "-t", "fake:", "-p", "consistency-op25.op_pct=10").code == 0


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_a_locale_that_cannot_encode_a_character_prints_a_stand_in(encoding: str) -> None:
    """QA (stop 45): under an ISO-8859-1 locale `report` and `run` ended in "internal error:
    UnicodeEncodeError" (exit 70) after their work was done; `info`'s '—' did the same."""
    import os
    import subprocess

    from pty_helpers import SSDLAB

    done = subprocess.run([str(SSDLAB), "info", "sim:"], capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": encoding})
    assert done.returncode == 0, done.stderr
    assert b"| path " in done.stdout and b"| - " in done.stdout  # '—' (no path) as '-' in either


def test_micro_reads_as_u_where_it_cannot_be_encoded() -> None:
    """QA (stop 49): an ASCII or EUC-JP locale headed latency columns "?s" ("75.2 ?s mean latency");
    a stand-in of one character keeps the table's columns where rich measured them."""
    from ssdlab.cli import STAND_IN_ERRORS, text_in_any_locale  # noqa: F401  (registers the handler)

    assert "75.2 µs — 3\u00d7".encode("ascii", STAND_IN_ERRORS) == b"75.2 us - 3x"
    assert "45 °C ≥".encode("ascii", STAND_IN_ERRORS) == b"45 ?C ?"
    assert "µs".encode("euc_jp", STAND_IN_ERRORS) == b"us"
