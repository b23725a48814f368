"""`ssdlab sim …`: the SSD simulator (ssdsim)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

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


@sim_app.command("cache")
def sim_cache(
    clear: Annotated[bool, typer.Option("--clear", help="Delete every cached prepared drive.")] = False,
) -> None:
    """List (or --clear) the cache of prepared simulated drives that runs restore instead of re-simulating."""
    from ssdlab.engines.sim_cache import SimCache

    cache = SimCache.default()
    if clear:
        out.print(f"removed {cache.clear()} cached prepared drive(s) from {cache.path}", highlight=False)
        return
    entries = cache.entries()
    total = sum(e.size_bytes for e in entries)
    out.print(f"{len(entries)} cached prepared drive(s) in {cache.path}: {total / 1e6:.1f} MB of at most "
              f"{cache.limit_bytes / 1e9:g} GB (least recently used go first)", highlight=False)
    if not entries:
        return
    table = Table()
    for column in ("key", "preset", "overrides", "seed", "preparation", "MB", "last used (UTC)"):
        table.add_column(column, no_wrap=column in ("key", "preset"))
    for e in entries:
        overrides = ",".join(f"{k}={v}" for k, v in dict(e.meta.get("overrides", {})).items()) or "-"
        actions = list(e.meta.get("actions", []))
        shown = ", ".join(actions[:3]) + (", …" if len(actions) > 3 else "")
        what = f"{len(actions)} {e.meta.get('unit', 'steps')} ({shown})"
        used = datetime.fromtimestamp(e.used, UTC).strftime("%Y-%m-%d %H:%M")
        table.add_row(e.key[:12], str(e.meta.get("preset")), overrides, str(e.meta.get("seed")),
                      what,
                      f"{e.size_bytes / 1e6:.1f}", used)
    out.print(table)
