"""`ssdlab sim …`: the SSD simulator (ssdsim)."""

from __future__ import annotations

import typer
from rich.table import Table

from ssdlab.cli.app import app, out

sim_app = typer.Typer(help="The SSD simulator (ssdsim).", no_args_is_help=True)
app.add_typer(sim_app, name="sim")


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
