"""`ssdlab trace stats`: each size of the size mix stays on one line with its share, however
narrow the screen (report/terminal.WholeParts). QA: at 40 columns "<4K 17.2%  4K" / "53.4%  8K"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console

from ssdlab.cli.trace import stats_table

PAIR = re.compile(r"[<>]?\d+K \d+\.\d%")


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ssdlab.trace.generate import generate
    from ssdlab.trace.model import write_trace

    path = tmp_path_factory.mktemp("trace") / "heavy.parquet"
    provenance, chunks = generate("heavy", scale=0.001, seed=1)
    write_trace(path, chunks, provenance)
    return path


def shown(trace: Path, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(stats_table(trace))
    return console.export_text().splitlines()


def size_mix_lines(lines: list[str]) -> list[str]:
    """The size mix row's value cells, from its label to the next row's."""
    start = next(n for n, line in enumerate(lines) if "size mix" in line)
    end = next(n for n, line in enumerate(lines) if "sequential" in line)
    return [line.split("│")[2].strip() for line in lines[start:end]]


@pytest.mark.parametrize("width", range(36, 121, 4))
def test_each_size_keeps_its_share_on_its_line(trace: Path, width: int) -> None:
    cells = size_mix_lines(shown(trace, width))
    pairs = [pair for cell in cells for pair in PAIR.findall(cell)]
    assert len(pairs) == 8 and "".join(cells).replace(" ", "") == "".join(pairs).replace(" ", ""), cells


def test_a_wide_screen_prints_the_mix_on_one_line_as_before(trace: Path) -> None:
    (cell,) = size_mix_lines(shown(trace, 160))
    assert re.fullmatch(r"<4K \d+\.\d%(  \d+K \d+\.\d%){6}  >128K \d+\.\d%", cell), cell
