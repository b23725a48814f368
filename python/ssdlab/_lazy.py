"""Libraries that only drawing a chart needs, imported when a chart is first drawn.

altair (with narwhals, jsonschema and referencing) and vl-convert take about 0.4 s to import, a
quarter of every command's start, and most commands (`plan`, `list`, errors, `--help`) draw
nothing. A module that draws names them so:

    if TYPE_CHECKING:
        import altair as alt
    else:
        alt = deferred("altair")

and the first attribute read (`alt.Chart`) imports the real module. A module-level attribute read
undoes it for every command: tests/test_lazy_imports.py checks that the command line starts
without them. (importlib.util.LazyLoader in sys.modules does not hold on Python 3.11: the next
`import altair` reads the module's `__spec__`, which loads it.)
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class Deferred:
    """A module imported on its first attribute read."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)


def deferred(name: str) -> Any:
    """`name`, imported when first used (typed Any: callers annotate with the real module under
    TYPE_CHECKING)."""
    return Deferred(name)
