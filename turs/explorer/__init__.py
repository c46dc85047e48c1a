"""Interactive explorer of a recorded TURS search (needs the ``explorer`` extra).

>>> from turs.explorer import SearchExplorer            # doctest: +SKIP
>>> SearchExplorer(TURSClassifier(record_trace=True).fit(X, y), X, y)   # doctest: +SKIP

``import turs`` never imports this package (nor ipywidgets); import it explicitly.
"""
try:
    import ipywidgets  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "turs.explorer needs ipywidgets, which is not installed. Install the explorer extra: "
        "pip install 'turs[explorer]'"
    ) from exc

from ._app import SearchExplorer
from ._view import TraceView, literal_interval, literal_key

__all__ = ["SearchExplorer", "TraceView", "literal_interval", "literal_key"]
