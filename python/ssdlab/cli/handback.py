"""Under sudo, what ssdlab writes into the invoking user's folders is theirs.

A block device needs root, so `sudo ssdlab run -t /dev/sdX` is how a user runs ssdlab on a
drive. Its bundle was root's: in the user's folder, a root-owned `results/` made their next
run there fail (Permission denied), and they could neither delete that bundle nor write its
report again (QA). So when root runs ssdlab through sudo (SUDO_UID, SUDO_GID), what it made
inside a folder that user owns is handed to them, as if they had made it.

Only what is safe to hand over: entries root owns, inside a folder the user owns already (so
the user gains nothing they could not replace anyway), folders and regular files with one link
only (a hard link the user made to a file of root's elsewhere is not taken for ours), each
opened without following links and changed through its descriptor, so a link swapped in
meanwhile cannot turn the hand-over onto a file elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from ssdlab.engines.sim_cache import cache_dir
from ssdlab.errors import UsageError
from ssdlab.library import Library
from ssdlab.userdirs import xdg_base

# Opened only to read its owner and change it: no terminal taken, no FIFO waited on, no link followed.
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def sudo_user() -> tuple[int, int] | None:
    """The uid and gid of the user who ran ssdlab through sudo, when this process is root; else None."""
    if os.geteuid() != 0:
        return None
    try:
        uid, gid = int(os.environ["SUDO_UID"]), int(os.environ["SUDO_GID"])
    except (KeyError, ValueError):
        return None
    return (uid, gid) if uid > 0 and gid >= 0 else None


def first_missing(path: Path) -> Path:
    """What a command that writes `path` makes first: its highest folder that does not exist yet,
    else `path` itself. Read before writing, to hand back afterwards (hand_back)."""
    path = Path(os.path.abspath(path))
    top = path
    for parent in path.parents:
        if os.path.lexists(parent):
            break
        top = parent
    return top


def run_writes(bundle: Path, library: Path | None) -> list[Path]:
    """What a run writes, each as first_missing names it: its bundle, the results library, the
    sim cache and the report's script cache. The last three are the user's own only when sudo
    kept their HOME (`sudo -E`; Debian's sudo sets root's), where a root-owned library made the
    user's next runs say "not added to the results library"."""
    paths = [bundle]
    with contextlib.suppress(UsageError):  # no home to tell: the run says so itself
        paths += [Library(library).path, cache_dir(), xdg_base("XDG_CACHE_HOME", ".cache") / "ssdlab"]
    return [first_missing(path) for path in paths]


def hand_back_all(tops: Sequence[Path]) -> None:
    for top in tops:
        hand_back(top)


def hand_back(top: Path) -> None:
    """Give `top` and what is under it to the sudo user, where root owns it and the user owns
    the folder it is in; nothing happens outside sudo. Best effort: a file that cannot be
    changed (a file system without owners) stays as it is, and the run's results are the same."""
    user = sudo_user()
    if user is None:
        return
    top = Path(os.path.abspath(top))
    try:
        parent_fd = os.open(top.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if os.fstat(parent_fd).st_uid == user[0] and _give(parent_fd, top.name, user):
            _give_below(parent_fd, top.name, user)
    finally:
        os.close(parent_fd)


def _give(dir_fd: int, name: str, user: tuple[int, int]) -> bool:
    """Hand the entry `name` of the folder `dir_fd` to `user` when root owns it and it may be
    handed over; whether it is now the user's folder, whose own entries may be handed over too."""
    try:
        fd = os.open(name, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError:  # a link (ELOOP), a socket, gone meanwhile: not ours to hand over
        return False
    try:
        found = os.fstat(fd)
        is_dir = stat.S_ISDIR(found.st_mode)
        if not (is_dir or (stat.S_ISREG(found.st_mode) and found.st_nlink == 1)):
            return False
        if found.st_uid == 0:
            os.fchown(fd, *user)
        return is_dir and os.fstat(fd).st_uid == user[0]
    except OSError:
        return False
    finally:
        os.close(fd)


def _give_below(dir_fd: int, name: str, user: tuple[int, int]) -> None:
    """Each entry under the user's folder `name`, top down: a folder's entries only once the
    folder is the user's (os.fwalk opens each folder without following links)."""
    with contextlib.suppress(OSError):
        for _path, folders, files, fd in os.fwalk(name, dir_fd=dir_fd, follow_symlinks=False):
            for child in files:
                _give(fd, child, user)
            folders[:] = [child for child in folders if _give(fd, child, user)]
