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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic.fields import FieldInfo

from pty_helpers import SSDLAB, run_in_terminal
from ssdlab.bundle import Bundle
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
    shown = run_in_terminal(*args, columns=400)
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
    # is "Too short to judge". On the simulator: the fake engine logs whole seconds, so its 11.5 s run
    # lasts 12 s.
    ((9, 2, 8, False, 25), True),  # 4 rounds of 2 s
    ((10, 2, 8, False, 25), False),  # 5 rounds
    ((11.5, 1, 12, False, 25), True),  # shorter than the window
    ((12, 1, 12, False, 25), False),
    ((30, 1, 6, True, 5), True),  # max_rounds stops the rounds short of the window
    ((30, 1, 5, True, 5), False),
], ids=["4-rounds", "5-rounds", "under-window", "window", "max-rounds-short", "max-rounds-enough"])
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
    assert verdict.summary.startswith("Too short to judge") == warned, (verdict.summary, verdict.because)
