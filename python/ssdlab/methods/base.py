"""A method from the catalogue (docs/methods/README.md): the actions it needs and how to analyse them.

A test is data plus two pure functions: `plan` (target facts -> actions, shown by
`ssdlab plan` before anything runs) and `analyze` (measurements -> flat metrics).
`skip` lets a plan stop early (steady state) while the plan itself stays static.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ssdlab.errors import UsageError
from ssdlab.measurement import Measurement
from ssdlab.methods.metrics import MetricSet
from ssdlab.methods.params import ParamValueError, none_from_text, param_refusal
from ssdlab.steps import Idle, Purge, ReplayTrace, SetWriteCache, StepResult
from ssdlab.targets.base import TargetInfo
from ssdlab.units import human_size
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

Metric = float | int | bool | str | None
Metrics = dict[str, Metric]


class Measure(BaseModel):
    """Run a workload. Preconditioning runs (fills, tortures) are kept but not analysed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["measure"] = "measure"
    workload: Workload
    role: Literal["measure", "precondition"] = "measure"
    group: str | None = None  # rounds of one steady-state window share a group
    # Rounds of a group: host bytes the group writes before a steady window may begin (the
    # drive's free space; docs/methods/steady-state.md, "Free space first").
    steady_after_bytes: int = Field(default=0, ge=0)

    @property
    def name(self) -> str:
        return self.workload.name

    def describe(self) -> str:
        tag = " (precondition)" if self.role == "precondition" else ""
        return f"{self.workload.name}: {self.workload.describe()}{tag}"


Action = Measure | Purge | Idle | SetWriteCache | ReplayTrace

StateKind = Literal["clean", "filled", "tortured"]


class DriveState(BaseModel):
    """A drive state a test starts from or leaves (docs/architecture.md, "Shared preparation").

    Two states are the same when every field is: `recipe` names how the state was made
    (block sizes, depths, passes, the steady-state stop), so a test only reuses a state made
    exactly as its own preparation would make it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: StateKind
    span_bytes: int  # the region written (filled, tortured); the device for `clean`
    op_pct: float = 0.0
    recipe: str = ""

    def describe(self) -> str:
        what = {"clean": "clean (purged)", "filled": "filled sequentially", "tortured": "tortured"}[self.kind]
        op = f", OP {self.op_pct:g} %" if self.op_pct else ""
        recipe = f": {self.recipe}" if self.recipe else ""
        return f"{what}, span {human_size(self.span_bytes)}{op}{recipe}"


# A plan note that starts with this states what the device is (its cache, its FUA), not what
# the method does: comparisons of drives ignore it (effective.method_notes), the report shows it.
DEVICE_FACT = "on this device: "


class TestPlan(BaseModel):
    """The concrete actions of one test on one target, in order."""

    __test__ = False  # not a pytest test class

    model_config = ConfigDict(frozen=True)

    test: str
    params: dict[str, Any]
    actions: tuple[Action, ...] = Field(default=())
    notes: tuple[str, ...] = ()  # e.g. spans scaled down for a small target
    # Shared preparation: the first `prep_actions` actions only bring the drive to `entry`;
    # a suite may leave them out when the test before left the drive in exactly that state.
    # `exit` is the state the whole plan leaves (None: nothing a later test can reuse).
    prep_actions: int = Field(default=0, ge=0)
    entry: DriveState | None = None
    exit: DriveState | None = None

    def body(self) -> tuple[Action, ...]:
        """The actions after the preparation: what runs when the entry state is shared."""
        return self.actions[self.prep_actions:]

    def measures(self) -> list[Measure]:
        return [a for a in self.actions if isinstance(a, Measure)]

    @property
    def destructive(self) -> bool:
        """Whether any action changes the drive's data or settings: read from the actions
        themselves, so no method can forget to ask for the safety checks."""
        return any(action_writes(a) for a in self.actions)


ActionRole = Literal["prepare", "measure", "setting"]


def action_role(action: Action) -> ActionRole:
    """What an action is to the test: "prepare" brings the drive to a state (a purge, a fill or a
    torture run as preconditioning), "measure" is what the test is for (a measured workload, a
    trace replay), run on the drive as the steps before it left it; "setting" is neither (an idle,
    a write-cache switch: they change nothing the drive holds). QA: a trace replay without its
    purge was told as "the test prepares the drive itself" from its first step, the replay."""
    if isinstance(action, Measure):
        return "prepare" if action.role == "precondition" else "measure"
    if isinstance(action, Purge):
        return "prepare"
    if isinstance(action, ReplayTrace):
        return "measure"
    return "setting"


def action_writes(action: Action) -> bool:
    if isinstance(action, Measure):
        return action.workload.is_write
    return not isinstance(action, Idle)  # purge (TRIM / erase) and write-cache switches change the drive


class TestResults(BaseModel):
    """What running a plan produced, fed to `analyze`."""

    __test__ = False  # not a pytest test class

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    measurements: dict[str, Measurement] = Field(default_factory=dict)
    steps: dict[str, StepResult] = Field(default_factory=dict)


P = TypeVar("P", bound=BaseModel)


class MethodTest(ABC, Generic[P]):
    """Base of every method in the catalogue."""

    name: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    params_model: ClassVar[type[BaseModel]]

    def run_title(self, params: P, load: str | None = None) -> str:
        """The title of a run with these parameters. `title` is the catalogue's, which describes
        the method at its defaults; a method whose title names its load (a block size, a queue
        depth) says a run's own here, and gives `title` as this at its defaults, so a run of
        another load is never titled with the default's (QA: a 16 KiB QD8 mixed sweep titled
        "(4 KiB, QD3)"). `load`: the load in the title's words where a caller says it (compare:
        each drive's, when the compared runs ran unlike loads)."""
        return self.title

    def parse_params(self, raw: Mapping[str, Any]) -> P:
        """Validate user parameters; unknown keys are errors so typos don't pass silently."""
        try:
            return self.params_model.model_validate(dict(raw))  # type: ignore[return-value]
        except ValidationError as err:
            first = err.errors()[0]
            refusal = param_refusal(self.params_model, first, raw)
            if refusal is not None:
                raise UsageError(f"test {self.name}: {refusal}") from None
            where = ".".join(str(part) for part in first["loc"])
            # a check of several fields has no location; pydantic prefixes our own ValueErrors
            message = str(first["msg"]).removeprefix("Value error, ")
            raise UsageError(f"test {self.name}: " + (f"parameter {where}: " if where else "") + message) from None

    @abstractmethod
    def plan(self, params: P, target: TargetInfo) -> TestPlan:
        """Actions for this target; pure, so `ssdlab plan` shows exactly what `run` does."""

    def make_plan(
        self, params: P, actions: Iterable[Action], notes: Iterable[str] = (), *,
        prep: Iterable[Action] = (), entry: DriveState | None = None, exit: DriveState | None = None,
    ) -> TestPlan:
        """The plan of this method with these parameters: what every `plan` ends with.

        `prep` (run first) brings the drive to `entry`; `actions` are the test proper."""
        prep = tuple(prep)
        return TestPlan(test=self.name, params=params.model_dump(), actions=(*prep, *actions), notes=tuple(notes),
                        prep_actions=len(prep), entry=entry, exit=exit)

    def skip(self, params: P, action: Action, done: Mapping[str, Measurement]) -> bool:
        """Whether to leave out an action given what ran so far (early steady-state stop)."""
        return False

    def steady_round(self, params: P, action: Measure) -> tuple[str, str] | None:
        """(phase, round) of a measure that an early steady-state stop (skip) may leave out, for
        the plan's least estimate (planning.least_left_out): a phase stops a whole round at a time;
        None for a measure that always runs. By default each measure of a group is one round of
        it (a torture's rounds); a method whose round is several measures says its own."""
        return (action.group, action.name) if action.group is not None else None

    def early_stops(self, actions: Sequence[Action], outcomes: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
        """(phase, rounds run, rounds planned) of each until-steady phase that skip stopped early,
        the runner's note (bundle.EARLY_STOP_NOTE): by default groups_stopped_early. A method
        whose round is several actions says its own."""
        return groups_stopped_early(actions, outcomes)

    def warnings(self, params: P, target: TargetInfo) -> tuple[str, ...]:
        """What in these parameters keeps a figure or verdict from ever coming out as the method
        means it on this target (a round under the logging period, a window no run of them
        reaches), each one line `plan` and `run` print before anything runs; none by default."""
        return ()

    @abstractmethod
    def analyze(self, params: P, target: TargetInfo, results: TestResults) -> Metrics:
        """Flat snake_case metrics with units in their names (_iops, _mb_s, _us, _pct): exactly
        the ones `metric_specs` declares for these parameters and this target."""

    @abstractmethod
    def metric_specs(self, params: P, target: TargetInfo) -> MetricSet:
        """Every metric `analyze` writes, with label, unit and kind (methods/metrics.py)."""

    def verdicts(self, params: P, metrics: Metrics) -> tuple[Verdict, ...]:
        """The method's yes/no answers, from its metrics; none by default."""
        return ()

    def measured_sizes(self, params: P, target: TargetInfo) -> dict[str, int]:
        """Size parameters as the run measured them on this target, where the method cuts them to
        fit a small one and no setting metric records the cut size: compare takes these, not the
        sizes asked (effective.differences). None by default."""
        return {}


class Params(BaseModel):
    """Base for parameter models: frozen, unknown keys rejected, no list parameter holding a
    value twice (each value names its measurements and metrics, which must be distinct)."""

    # defer_build: a model's validator is built when it first validates, not as the catalogue is
    # imported; a command uses one or two of the tests' models, and building all of them was
    # most of the catalogue's import time.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    # A parameter that acts only while a switch (a bool parameter) is on -> that switch: with the
    # switch off it changes nothing the run does, so two runs that differ in it alone ran one method
    # (acting_params; the effective method, compare and the library's rankings all read it there).
    ACTS_ONLY_WITH: ClassVar[Mapping[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _none_from_text(cls, data: Any) -> Any:
        return none_from_text(cls.model_fields, data)

    @model_validator(mode="after")
    def _no_repeated_values(self) -> Self:
        for name, value in self:
            if isinstance(value, tuple) and len(set(value)) != len(value):
                repeated = sorted({str(v) for v in value if value.count(v) > 1})
                raise ParamValueError(f"gives {', '.join(repeated)} more than once", give="each value once",
                                      field=name)
        return self

    def acting_params(self) -> dict[str, Any]:
        """The parameters as the run acted on them: one whose switch is off (ACTS_ONLY_WITH) at its
        default, whatever it was given, since it did nothing; the others as given."""
        fields = type(self).model_fields
        idle = {name: fields[name].get_default(call_default_factory=True)
                for name, switch in self.ACTS_ONLY_WITH.items() if getattr(self, switch) is not True}
        return {**self.model_dump(), **idle}


def groups_stopped_early(actions: Sequence[Action], outcomes: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
    """(phase, rounds run, rounds planned) of each group of rounds (Measure.group: one action a
    round) that did not run all its rounds."""
    ran: dict[tuple[str, str], list[bool]] = {}
    for action, outcome in zip(actions, outcomes, strict=False):
        if isinstance(action, Measure) and action.group is not None:
            ran.setdefault((action.group, action.role), []).append(outcome == "done")
    return tuple(("preparation torture" if role == "precondition" else f"{group} phase", sum(done), len(done))
                 for (group, role), done in ran.items() if not all(done))
