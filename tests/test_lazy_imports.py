"""The command line starts without the chart libraries and the page template's (ssdlab/_lazy.py):
they took about 0.45 s of every command's start, `ssdlab --help` and one-line errors included."""

from __future__ import annotations

import subprocess
import sys

import altair as alt

from ssdlab._lazy import deferred
from ssdlab.report import charts

DEFERRED = ("altair", "vl_convert", "narwhals", "jsonschema", "jinja2", "markupsafe")


def test_the_command_line_imports_no_chart_library() -> None:
    code = f"import sys, ssdlab.cli, ssdlab.report; print(sorted(m for m in {DEFERRED!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", "imported with the command line: " + done.stdout


def test_a_deferred_module_is_the_real_one_on_first_use() -> None:
    lazy_json = deferred("json")
    assert lazy_json.dumps([1]) == "[1]" and lazy_json.loads is __import__("json").loads


def test_the_written_out_vega_lite_version_is_the_one_altair_writes() -> None:
    assert alt.SCHEMA_VERSION.lstrip("v").rsplit(".", 1)[0] == charts.VL_VERSION, \
        "altair changed its Vega-Lite version: set report/charts.py VL_VERSION to it"
