"""Where ssdlab keeps a user's own files by default: the XDG base directories (the results
library in $XDG_DATA_HOME, the sim cache in $XDG_CACHE_HOME), as the XDG Base Directory
specification defines them, and the home folder they default to."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from ssdlab.errors import UsageError


def home_dir() -> Path:
    """$HOME, else the user's home in the system's user record. An empty (or relative) HOME is
    no home: taken as given it put files at the file system's root (QA: /.cache/ssdlab/sim)."""
    given = os.environ.get("HOME", "")
    if os.path.isabs(given):
        return Path(given)
    try:
        recorded = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        recorded = ""
    if not os.path.isabs(recorded):
        raise UsageError(f"cannot tell your home folder (HOME is {'empty' if not given else repr(given)} and user "
                         f"{os.getuid()} has no home in the system's user record); set HOME to an absolute path")
    return Path(recorded)


def xdg_base(variable: str, default_under_home: str) -> Path:
    """An XDG base directory ($XDG_DATA_HOME, $XDG_CACHE_HOME): the variable when it holds an
    absolute path, else its default under the home folder. The specification makes a relative
    path invalid, to be ignored: it would be taken from whatever folder a command runs in."""
    given = os.environ.get(variable, "")
    return Path(given) if os.path.isabs(given) else home_dir() / default_under_home
