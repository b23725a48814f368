"""The catalogue -> report contract: every method writes exactly the metrics it declares.

The report and compare take metric names, labels and kinds from `metric_specs`; if an
analysis renamed or dropped a metric, this fails instead of a chart going silently empty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from run_helpers import short_overrides
from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.methods import REGISTRY, VARIANTS, get_entry, get_test
from ssdlab.report.sections import build_section
from ssdlab.runner import run_entries
from ssdlab.targets import parse_target

NAMES = sorted({*REGISTRY, *VARIANTS})


@pytest.mark.parametrize("name", NAMES)
def test_analysis_writes_exactly_the_declared_metrics(name: str, tmp_path: Path) -> None:
    entry = get_entry(name)
    target = parse_target("fake:?capacity=2g")
    done = run_entries(tmp_path, target, FakeEngine(), [entry], short_overrides([entry])).test(name)
    test = get_test(entry.test)
    specs = test.metric_specs(test.parse_params(done.params), target.info())
    assert done.status == "complete"
    assert set(done.metrics) == set(specs.names), (
        f"undeclared: {sorted(set(done.metrics) - set(specs.names))}; "
        f"declared, not written: {sorted(set(specs.names) - set(done.metrics))}"
    )
    measured = {ref.name for ref in done.measurements if ref.role == "measure"}
    for spec in specs:
        assert spec.label and spec.label != spec.name, spec.name  # a human label, not the key
        # The windows a figure names are the run's (a figure of one too short to trust is marked by them).
        assert set(spec.windows) <= measured, (spec.name, sorted(set(spec.windows) - measured))
    # The report does not check chart specs against the Vega-Lite schema (two thirds of its time,
    # report/charts.chart_spec); this does, for every chart of every method's section.
    section = build_section(Bundle(tmp_path), done)
    assert not any("could not be drawn" in note for note in section.notes), section.notes
    for figure in section.figures:
        figure.chart.to_dict(validate=True)


def test_every_name_list_shows_runs_on_its_own(cli: object) -> None:
    from ssdlab.methods import all_suites

    shown = {e.name for suite in all_suites().values() for e in suite.entries} | set(REGISTRY)
    for name in shown:
        assert get_entry(name).name == name
