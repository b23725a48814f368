"""ssdlab: a storage review lab for Linux."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ssdlab")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+src"

__all__ = ["__version__"]
