"""`ssdlab sim …`: the SSD simulator (ssdsim)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ssdlab.cli.app import app, out
from ssdlab.errors import UsageError
from ssdlab.report.terminal import FittedTable
from ssdlab.units import counted

if TYPE_CHECKING:
    from ssdlab.engines.sim_cache import Part

sim_app = typer.Typer(help="The SSD simulator (ssdsim).", no_args_is_help=True)
app.add_typer(sim_app, name="sim")


@sim_app.command("presets")
def sim_presets() -> None:
    """List the simulator's drive presets."""
    from ssdlab.targets.sim import simulator

    # Laid out for the terminal's width: a preset's name is typed, so it is never cut ("sm951-nvme-…").
    rows = tuple((p["name"], p["title"], "yes" if p["default"] else "") for p in simulator().presets())
    out.print(FittedTable("ssdsim presets (use as sim:NAME)", "", ("preset", "drive", "default"), rows))


@sim_app.command("cache")
def sim_cache(
    clear: Annotated[bool, typer.Option(
        "--clear", help="Delete every cached prepared drive, and the parts a stopped ssdlab left (a running one's "
                        "stay).")] = False,
) -> None:
    """List (or --clear) the cache of prepared simulated drives that runs restore instead of re-simulating."""
    from ssdlab.engines.sim_cache import SimCache

    cache = SimCache.default()
    if cache.path.exists() and not cache.path.is_dir():  # runs then cache nothing, silently
        raise UsageError(f"the sim cache {cache.path} is not a directory; point SSDLAB_SIM_CACHE at a directory "
                         "(or unset it for ~/.cache/ssdlab/sim)")
    if clear:
        cleared = cache.clear()
        out.print(f"removed {counted(cleared.entries, 'cached prepared drive')}"
                  f"{_leftovers_text(cleared.leftovers)} from {cache.path}{_writing_text(cleared.writing)}",
                  highlight=False, markup=False)
        return
    entries, parts = cache.entries(), cache.parts()
    # What is on disk: the parts of entries not yet whole count too (QA: the listing left them out
    # until the clean-up removed them, ten minutes later, so its size was not the folder's).
    entries_bytes = sum(e.size_bytes for e in entries)
    total = entries_bytes + sum(p.size_bytes for p in parts)
    out.print(f"{counted(len(entries), 'cached prepared drive')} in {cache.path}: {total / 1e6:.1f} MB of at most "
              f"{cache.limit_bytes / 1e9:g} GB (least recently used go first)", highlight=False, markup=False)
    if entries_bytes > cache.limit_bytes:  # the bound was lowered since: nothing is trimmed until a run stores
        out.print(_over_bound_text(entries_bytes, cache.limit_bytes), highlight=False, markup=False)
    for line in _parts_lines(parts):
        out.print(line, highlight=False, markup=False)
    if not entries:
        return
    # Laid out for the width it gets, as report tables are: side by side where every word fits its
    # column, else each entry as a block (QA: at 40 columns the drive and what made it shrank to
    # nothing; at 80 the spec folded, "sm951-nvme-128?capacit" above "y_gib=1").
    rows = tuple((e.key[:8], _drive_text(e.meta), _made_by(e.meta), f"{e.size_bytes / 1e6:.1f}",
                  datetime.fromtimestamp(e.used, UTC).strftime("%m-%d %H:%M")) for e in entries)
    out.print(FittedTable("", "", ("key", "drive", "made by", "MB", "last used (UTC)"), rows))


def _leftovers_text(count: int) -> str:
    return f" and {counted(count, 'part')} a stopped ssdlab left" if count else ""


def _writing_text(count: int) -> str:
    """The parts `--clear` left: a running ssdlab's, which it is storing a drive with now."""
    if not count:
        return ""
    return (f"; {counted(count, 'part')} being written by a running ssdlab {'was' if count == 1 else 'were'} "
            "left (its drive is stored as it finishes)")


def _parts_lines(parts: Sequence[Part]) -> list[str]:
    """The cache's files that are no whole entry, by what they are, counted in the total above."""
    lines = []
    for state, words in (("writing", "being written by a running ssdlab"),
                         ("leftover", "left by a stopped ssdlab (removed by the next run that stores a drive, "
                                      "or `ssdlab sim cache --clear`)")):
        found = [p for p in parts if p.state == state]
        if found:
            size_mb = sum(p.size_bytes for p in found) / 1e6
            names = ", ".join(p.path.name for p in found[:3]) + (", …" if len(found) > 3 else "")
            lines.append(f"{counted(len(found), 'part')} {words}: {size_mb:.1f} MB, counted above ({names})")
    return lines


def _over_bound_text(total_bytes: int, limit_bytes: int) -> str:
    """What a cache over its bound (SSDLAB_SIM_CACHE_MAX_GB lowered since it filled) becomes, and when."""
    then = ("drops every entry, its own too (a bound of 0 keeps nothing)" if limit_bytes == 0 else
            "drops the least recently used until it fits")
    return (f"over its bound by {(total_bytes - limit_bytes) / 1e6:.1f} MB: the next run that stores a drive {then} "
            "(`ssdlab sim cache --clear` drops them all now)")


def _drive_text(meta: dict[str, Any]) -> str:
    """Preset, overrides and seed as a target spec would give them: `sm951-nvme-256?capacity_gib=4 seed 1`."""
    overrides = dict(meta.get("overrides") or {})
    query = "&".join(f"{k}={v}" for k, v in overrides.items())
    return f"{meta.get('preset')}{'?' + query if query else ''} seed {meta.get('seed')}"


def _made_by(meta: dict[str, Any]) -> str:
    actions = [str(a) for a in meta.get("actions") or []]
    shown = ", ".join(actions[:3]) + (", …" if len(actions) > 3 else "")
    noun = str(meta.get("unit", "steps")).removesuffix("s")  # stored plural: "1 tests" (QA)
    return f"{counted(len(actions), noun)}: {shown}"
