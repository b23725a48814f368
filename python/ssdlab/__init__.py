"""ssdlab: a storage review lab for Linux."""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """`__version__`, looked up when first asked for: the lookup reads the installed package's
    metadata (tens of ms), which the `ssdlab` script must not spend before its Ctrl-C guard
    (ssdlab/entry.py) is in place."""
    if name != "__version__":
        raise AttributeError(f"module 'ssdlab' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("ssdlab")
    except PackageNotFoundError:  # running from a source tree without install
        found = "0.0.0+src"
    globals()["__version__"] = found
    return found
