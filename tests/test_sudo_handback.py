"""Under sudo, what ssdlab writes into the invoking user's folders is theirs (cli/handback.py).
QA: `sudo ssdlab run …` in a user's folder left a root-owned results/ there; the user's next run
there failed with Permission denied, and they could neither delete the bundle nor report it again.
Root only: the hand-over changes owners."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ssdlab.cli.handback import first_missing, hand_back

pytestmark = pytest.mark.root

USER = 54321  # no such user is needed: owners are numbers
QUICK = ["--test", "quick", "-t", "fake:?capacity=2g", "-p", "runs=1", "-p", "runtime_s=1", "--no-library"]


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder the sudo user owns, as root run through sudo by that user sees it."""
    folder = tmp_path / "home"
    folder.mkdir()
    os.chown(folder, USER, USER)
    monkeypatch.setenv("SUDO_UID", str(USER))
    monkeypatch.setenv("SUDO_GID", str(USER))
    return folder


def owners(top: Path) -> set[int]:
    return {os.lstat(p).st_uid for p in [top, *top.rglob("*")]}


def test_a_run_under_sudo_leaves_the_user_a_bundle_of_their_own(user_folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                               cli: Callable) -> None:
    monkeypatch.chdir(user_folder)
    result = cli("run", *QUICK)
    assert result.code == 0, result.stderr
    assert owners(user_folder / "results") == {USER}
    assert os.stat(user_folder).st_uid == USER  # its own folder, as it was


def test_under_sudo_with_the_users_home_the_library_and_caches_stay_theirs(
        user_folder: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable) -> None:
    """`sudo -E` (or a sudo that keeps HOME): the library made in the user's home was root's, and
    the user's next runs said "not added to the results library (… read-only here)"."""
    monkeypatch.setenv("HOME", str(user_folder))
    for name in ("SSDLAB_LIBRARY", "SSDLAB_SIM_CACHE", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(user_folder)
    assert cli("run", *QUICK[:-1]).code == 0  # added to the library
    assert (user_folder / ".local/share/ssdlab/library.sqlite").exists()
    assert owners(user_folder) == {USER}


def test_reporting_under_sudo_leaves_the_report_the_users(user_folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                          cli: Callable) -> None:
    monkeypatch.chdir(user_folder)
    monkeypatch.delenv("SUDO_UID")  # the user's own run: their bundle
    assert cli("run", *QUICK).code == 0
    monkeypatch.setenv("SUDO_UID", str(USER))
    results = user_folder / "results"
    for path in [results, *results.rglob("*")]:
        os.chown(path, USER, USER, follow_symlinks=False)
    bundle = next(results.iterdir())
    (bundle / "report.html").unlink(missing_ok=True)
    assert cli("report", str(bundle)).code == 0  # reported again under sudo: its page and charts
    assert (bundle / "report.html").exists()
    assert owners(bundle) == {USER}
    assert cli("report", str(bundle), "-o", str(user_folder / "pages" / "r.html")).code == 0
    other = user_folder / "other"
    assert cli("run", *QUICK[:2], "-t", "fake:?capacity=4g", *QUICK[4:], "-o", str(other)).code == 0
    result = cli("compare", str(bundle), str(other), "-o", str(user_folder / "pages" / "cmp" / "c.html"))
    assert result.code == 0, result.stderr
    assert (user_folder / "pages/cmp/c.html").exists() and any((user_folder / "pages").rglob("*.png"))
    assert owners(user_folder / "pages") == {USER}


def test_nothing_changes_hands_outside_sudo_or_outside_the_users_folders(tmp_path: Path, user_folder: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    made = user_folder / "results" / "run" / "x.json"
    made.parent.mkdir(parents=True)
    made.write_text("{}")
    monkeypatch.delenv("SUDO_UID")
    hand_back(user_folder / "results")  # root, but not through sudo: root's files stay root's
    assert owners(user_folder / "results") == {0}
    monkeypatch.setenv("SUDO_UID", str(USER))
    roots = tmp_path / "roots"  # root's own folder: what is made in it is not handed over
    (roots / "run").mkdir(parents=True)
    hand_back(first_missing(roots / "run"))
    assert owners(roots) == {0}


def test_links_in_the_users_folder_hand_over_nothing_of_roots(tmp_path: Path, user_folder: Path) -> None:
    secret = tmp_path / "secret"  # root's file elsewhere, reached by a link the user put in the bundle
    secret.write_text("root's")
    bundle = user_folder / "results" / "run"
    bundle.mkdir(parents=True)
    (bundle / "via-symlink").symlink_to(secret)
    os.link(secret, bundle / "via-hardlink")
    (bundle / "dir-link").symlink_to(tmp_path)
    (bundle / "run.json").write_text("{}")
    hand_back(first_missing(user_folder / "results"))
    assert os.stat(secret).st_uid == 0 and os.stat(tmp_path).st_uid == 0
    assert os.stat(bundle / "run.json").st_uid == USER and os.stat(bundle).st_uid == USER


def test_a_capture_under_sudo_leaves_the_user_its_trace_and_events(user_folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   cli: Callable) -> None:
    import ssdlab.trace.capture as tracing

    def captured(device: str, out_path: Path, **_: object) -> tracing.CaptureResult:
        out_path.parent.mkdir(parents=True, exist_ok=True)  # as the capture does: the folder -o names
        out_path.write_text("")  # no I/O in the time
        return tracing.CaptureResult(lines=0, seconds=1.0, command_status=None)

    monkeypatch.setattr(tracing, "capture", captured)
    result = cli("trace", "capture", "-d", "/dev/null", "--seconds", "1", "-o", str(user_folder / "traces/cap.parquet"))
    assert result.code == 0, result.stderr
    assert (user_folder / "traces/cap.parquet").exists() and owners(user_folder / "traces") == {USER}
