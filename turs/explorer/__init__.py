"""Interactive explorer of a recorded TURS search (needs the ``explorer`` extra).

>>> from turs.explorer import explore, SearchExplorer   # doctest: +SKIP
>>> explore(X, y, beam_width=5)                         # doctest: +SKIP
>>> SearchExplorer(TURSClassifier(record_trace=True).fit(X, y), X, y)   # doctest: +SKIP

``explore`` / :class:`Explorer`: data, settings, a cancellable Re-fit, Compare and Edit rules
(type a rule, see the MDL change it makes) around the :class:`SearchExplorer` of the current
fit; ``explore(X, y, initial_rules=[...])`` starts the first fit from given rules.

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
from ._studio import Explorer, available_datasets, explore, load_dataset
from ._view import TraceView, literal_interval, literal_key

__all__ = ["Explorer", "SearchExplorer", "TraceView", "available_datasets", "explore", "literal_interval",
           "literal_key", "load_dataset"]
