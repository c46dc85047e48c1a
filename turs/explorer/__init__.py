"""Interactive explorer of a recorded TURS search (needs the ``explorer`` extra).

>>> from turs.explorer import explore, SearchExplorer   # doctest: +SKIP
>>> explore(X, y, beam_width=5)                         # doctest: +SKIP
>>> SearchExplorer(TURSClassifier(record_trace=True).fit(X, y), X, y)   # doctest: +SKIP
>>> search_page(model, X, y, "search.html")             # doctest: +SKIP

``explore`` / :class:`Explorer`: data, settings, a cancellable Re-fit, Compare and Edit rules
(type a rule, see the MDL change it makes) around the :class:`SearchExplorer` of the current
fit; ``explore(X, y, initial_rules=[...])`` starts the first fit from given rules.
:func:`search_page`: a recorded search as one self-contained HTML file (no widgets, no
server, no Python to view it; ``turs.explorer.page``).

``import turs`` never imports this package (nor ipywidgets); import it explicitly. The widget
names are imported on first use, so ``search_page`` works without ipywidgets installed.
"""
from ._view import TraceView, literal_interval, literal_key
from .page import SearchPage, search_page

#: The names that need ipywidgets, and the module each comes from.
_WIDGET_NAMES = {"Explorer": "._studio", "available_datasets": "._studio", "explore": "._studio",
                 "load_dataset": "._studio", "SearchExplorer": "._app"}


def __getattr__(name):
    if name not in _WIDGET_NAMES:
        raise AttributeError(f"module 'turs.explorer' has no attribute {name!r}")
    try:
        import ipywidgets  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"turs.explorer.{name} needs ipywidgets, which is not installed. Install the explorer extra: "
            "pip install 'turs[explorer]' (turs.explorer.search_page needs no widgets)"
        ) from exc
    import importlib

    value = getattr(importlib.import_module(_WIDGET_NAMES[name], __name__), name)
    globals()[name] = value
    return value


__all__ = ["Explorer", "SearchExplorer", "SearchPage", "TraceView", "available_datasets", "explore",
           "literal_interval", "literal_key", "load_dataset", "search_page"]
