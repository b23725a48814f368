"""The cache of prepared simulated drives: a hit gives exactly what simulating gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.bundle import Bundle
from ssdlab.engines import sim as sim_engine
from ssdlab.engines.sim_cache import DEFAULT_MAX_BYTES, Cleared, SimCache, max_bytes
from ssdlab.errors import UsageError
from ssdlab.planning import parse_overrides, select_entries
from ssdlab.runner import run_entries
from ssdlab.targets import parse_target

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")

SIM = "sim:sm951-nvme-256?capacity_gib=4"
TRIM = ["torture_runtime_s=240", "seq_runtime_s=5"]


@pytest.fixture(autouse=True)
def _store_every_preparation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim_engine, "MIN_PREP_WALL_S", 0.0)
    monkeypatch.setattr(sim_engine, "RESTORE_FACTOR", 0.0)


def _trim(tmp_path: Path, spec: str = SIM) -> tuple[Any, Bundle]:
    _, entries = select_entries(None, ["trim-validation"])
    done = run_entries(tmp_path, parse_target(spec), sim_engine.SimEngine(), entries, overrides=parse_overrides(TRIM))
    return done.test("trim-validation"), Bundle(tmp_path)


def _prep_measurements(test: Any, bundle: Bundle) -> list[str]:
    return [bundle.load_measurement(r).model_dump_json() for r in test.measurements if r.role == "precondition"]


def test_a_cached_preparation_gives_what_simulating_it_gives(tmp_path: Path) -> None:
    cold, cold_bundle = _trim(tmp_path / "cold")
    assert len(SimCache.default().entries()) == 1
    warm, warm_bundle = _trim(tmp_path / "warm")
    assert not any("cache" in n for n in cold.notes)
    assert any("restored from the cache" in n for n in warm.notes)
    assert warm.metrics == cold.metrics
    assert warm.action_outcomes == cold.action_outcomes
    assert _prep_measurements(warm, warm_bundle) == _prep_measurements(cold, cold_bundle)
    assert [s.model_dump() for s in warm.steps] == [s.model_dump() for s in cold.steps]


@pytest.mark.parametrize("damage", ["snapshot cut short", "entry not JSON", "entry without its fields"])
def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path: Path, damage: str) -> None:
    """A disk that filled mid-write, a killed run or a hand edit: the preparation runs again."""
    cold, _ = _trim(tmp_path / "cold")
    (entry,) = SimCache.default().path.glob("*.snap")
    if damage == "snapshot cut short":
        entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    else:
        entry.with_suffix(".json").write_text("{" if damage == "entry not JSON" else '{"preset": "x"}\n')
    again, _ = _trim(tmp_path / "again")
    assert not any("cache" in n for n in again.notes)
    assert again.metrics == cold.metrics
    warm, _ = _trim(tmp_path / "warm")  # the entry the second run stored in its place serves
    assert any("restored from the cache" in n for n in warm.notes) and warm.metrics == cold.metrics


def test_another_seed_or_history_is_a_miss(tmp_path: Path) -> None:
    _trim(tmp_path / "a")
    other, _ = _trim(tmp_path / "b", SIM + "&seed=2")
    assert not any("cache" in n for n in other.notes)
    assert len(SimCache.default().entries()) == 2


def test_the_cache_drops_the_least_recently_used_first(tmp_path: Path) -> None:
    cache = SimCache(tmp_path, limit_bytes=3000)
    a, b, c, d = (letter * 32 for letter in "abcd")  # keys as prep_key makes them: 32 hex digits
    for key in (a, b, c):
        cache.put(key, b"x" * 900, {"preset": "p"})
    assert cache.get(a) is not None  # a is now the most recently used
    cache.put(d, b"x" * 900, {"preset": "p"})
    assert {e.key for e in cache.entries()} == {a, c, d}
    assert cache.clear().entries == 3 and cache.entries() == []


def test_parts_a_crash_left_are_removed_and_nothing_else_is(tmp_path: Path) -> None:
    """QA: a .snap without its .json (killed between the two writes), an unreadable .json or a
    half-written temporary file was never counted, evicted nor cleared: the cache outgrew its bound.
    Nobody holds their locks (a running writer does: tests/engines/test_sim_cache_parts.py)."""
    cache = SimCache(tmp_path, limit_bytes=10**9)
    whole, lone, bad = "a" * 32, "b" * 32, "c" * 32
    cache.put(whole, b"x" * 10, {"preset": "p"})
    (tmp_path / f"{lone}.snap").write_bytes(b"x" * 100)
    (tmp_path / f"{bad}.json").write_text("{cut", encoding="utf-8")
    (tmp_path / f"{bad}.snap").write_bytes(b"x")
    (tmp_path / f".{whole}.snap.k2j3h4.tmp").write_bytes(b"x")
    # notes.json with a notes.snap beside it is a pair, not an entry (it was listed and cleared)
    theirs = [tmp_path / "notes.json", tmp_path / "notes.snap", tmp_path / "photo.snap", tmp_path / f"{'d' * 31}.json"]
    for file in theirs:  # SSDLAB_SIM_CACHE may be a folder that holds other files
        file.write_text("{}", encoding="utf-8")
    left = {f"{lone}.snap", f"{bad}.json", f"{bad}.snap", f".{whole}.snap.k2j3h4.tmp"}
    assert {p.path.name: p.state for p in cache.parts()} == dict.fromkeys(left, "leftover")
    cache.evict()
    assert cache.parts() == [] and cache.get(whole) is not None
    assert [e.key for e in cache.entries()] == [whole]
    (tmp_path / f"{lone}.snap").write_bytes(b"x")
    assert cache.clear() == Cleared(entries=1, leftovers=1, writing=0)
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted(f.name for f in theirs)


def test_the_cache_command_lists_and_clears(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _trim(tmp_path)
    listed = cli("sim", "cache")
    assert listed.code == 0 and "1 cached prepared drive in" in listed.stdout and "sm951" in listed.stdout
    # Every column is readable at 80 characters: none is squeezed out, the text folds instead.
    # Each column's text, its lines joined at a space (the table wraps a cell at its words).
    rows = [line.strip().strip("│").split("│") for line in listed.stdout.splitlines() if line.count("│") >= 2]
    flat = " | ".join(" ".join(" ".join(part).split()) for part in zip(*rows, strict=True))
    assert "made by" in listed.stdout and "purge" in flat and "seed" in flat, listed.stdout
    assert "5 steps: purge," in flat, flat
    cleared = cli("sim", "cache", "--clear")
    assert cleared.code == 0 and "removed 1" in cleared.stdout
    assert "0 cached prepared drives in" in cli("sim", "cache").stdout


ENV_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)  # what os.environ holds


@given(ENV_TEXT | st.floats().map(str) | st.integers(-10, 10**7).map(str))
@settings(max_examples=200, deadline=None)
def test_any_cache_bound_setting_is_a_bound_or_a_one_line_error(raw: str) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SSDLAB_SIM_CACHE_MAX_GB", raw)
        try:
            bound = max_bytes()
        except UsageError as err:
            assert "\n" not in str(err) and "SSDLAB_SIM_CACHE_MAX_GB" in str(err)
            return
    assert 0 <= bound <= 10**15
    # the setting is read stripped as str.strip() strips (\x1c-\x1f too, which float() alone refuses)
    assert bound == (DEFAULT_MAX_BYTES if not raw.strip() else int(float(raw.strip()) * 1e9))


def test_a_bad_cache_bound_refuses_the_run_before_anything_is_written(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SSDLAB_SIM_CACHE_MAX_GB", "inf")  # once an OverflowError deep inside the cache
    done = cli("run", "--test", "qd-sweep", "-t", SIM, "-o", str(tmp_path / "b"))
    assert done.code != 0 and "SSDLAB_SIM_CACHE_MAX_GB" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "b").exists()


def test_the_cache_command_refuses_a_cache_path_that_is_a_file(cli, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: SSDLAB_SIM_CACHE naming a file listed '0 cached prepared drive(s) in FILE', and runs
    then cached nothing without a word."""
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv("SSDLAB_SIM_CACHE", str(tmp_path / "afile"))
    for args in (("sim", "cache"), ("sim", "cache", "--clear")):
        result = cli(*args)
        assert result.code == 2 and "is not a directory" in result.stderr and result.stderr.count("\n") == 1


def test_a_cached_drive_is_made_by_counts_in_their_number() -> None:
    """QA: `sim cache` listed a drive "made by 1 tests: quick"."""
    from ssdlab.cli.sim import _made_by

    assert _made_by({"actions": ["quick"], "unit": "tests"}) == "1 test: quick"
    assert _made_by({"actions": ["a", "b"], "unit": "steps"}) == "2 steps: a, b"


def test_a_cache_that_cannot_keep_a_drive_costs_the_run_nothing_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: a read-only cache folder stopped trim-validation ("Read-only file system: …/<key>.snap")."""
    def read_only(self: SimCache, key: str, data: bytes, meta: dict[str, Any]) -> None:
        raise OSError(30, "Read-only file system", str(self.path / f"{key}.snap"))

    monkeypatch.setattr(SimCache, "put", read_only)
    test, _ = _trim(tmp_path / "run")
    assert test.status == "complete"
    (note,) = [n for n in test.notes if "could not be kept in the cache" in n]
    assert "Read-only file system" in note and note.endswith("the next run simulates this preparation again")
