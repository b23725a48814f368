"""A report's charts folder, replaced as a whole with its page: the charts are drawn into a new
hidden folder beside it, then swapped in as the page is written. An error or a stop while
drawing leaves the report that was there as it was, and charts the new page no longer has go
with the old folder.

In a bundle (`inside`), nothing here follows a link: the hidden folders are made new
(mkdtemp), renames move a link rather than what it points to, and shutil.rmtree removes the
links it meets without following them (and none at the top).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from ssdlab.bundle import new_folder_mode, not_a_folder


def new_folder_beside(final: Path, tag: str = "") -> Path:
    """A new, empty hidden folder in `final`'s folder, named after it (`.NAME.xxxxxxxx`, made
    by mkdtemp, so no file of the user's can be at that name): same file system, so a rename
    moves it to `final`. It gets the permissions mkdir() gives (mkdtemp's are private), as the
    charts folder had."""
    path = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.{tag}"))
    try:
        path.chmod(new_folder_mode())
    except BaseException:
        path.rmdir()
        raise
    return path


def old_folder_at(final: Path, inside: Path | None) -> bool:
    """Whether there is something at `final` to move aside: a folder (the old charts) or, in a
    user's folder, a link (moved aside and removed, never followed: what it points to may hold
    anything). A link in a bundle is refused, as make_dirs_inside refuses one; so is a file or
    a device, which is not ssdlab's to remove (outside a bundle with the error writing into it
    gave: 'File exists')."""
    try:
        mode = final.lstat().st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(mode) or (stat.S_ISLNK(mode) and inside is None):
        return True
    if inside is not None:
        raise not_a_folder(final)
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(final))


def swap_in(drawn: Path, final: Path, inside: Path | None, write_page: Callable[[], None]) -> None:
    """Put the folder `drawn` at `final`, then write the page: the old folder is moved aside
    (into a new hidden folder, so no name can clash), `drawn` renamed into place, the page
    written (atomically), and only then the old folder removed. An error or a stop before the
    page is written puts both folders back, so the old page keeps the charts it links."""
    aside = new_folder_beside(final, "old.")
    moved = aside / final.name
    try:
        if old_folder_at(final, inside):  # asked again: it may have changed while the charts were drawn
            os.rename(final, moved)
        os.rename(drawn, final)
        write_page()
    except BaseException:
        _put_back(drawn, final, moved)
        raise
    remove_folder(aside)


def _put_back(drawn: Path, final: Path, moved: Path) -> None:
    """Undo swap_in, from what the file system shows (a stop may come between any two steps):
    the new folder back to its hidden name (its maker removes it), the old one back at `final`.
    Should a rename fail, the old charts stay in the hidden folder rather than be removed."""
    if not os.path.lexists(drawn) and os.path.lexists(final):
        os.rename(final, drawn)
    if os.path.lexists(moved):
        os.rename(moved, final)
    moved.parent.rmdir()  # empty now (rmdir removes nothing else)


def remove_folder(path: Path) -> None:
    """Remove a folder this module made, if still there (swapped in, it is not). rmtree
    removes a link it meets inside, not what it points to, and refuses one at `path`."""
    shutil.rmtree(path, ignore_errors=True)
