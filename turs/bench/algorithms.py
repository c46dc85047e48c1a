"""Registry of the benchmark's algorithms: a name -> an :class:`~turs.adapter.Adapter` factory.

Built in: ``turs`` (the estimator's defaults: the thesis settings, beam width 10 and 20 cut
points, with the model code and beam bookkeeping of the authors' implementation), the ablations
``turs-nopatience``, ``turs-nolocaltest``, ``turs-noaux``, ``turs-thesis`` (the thesis text:
``model_encoding="thesis", search="thesis"``), ``turs-turs2code`` (the thesis search with the
authors' model code), ``turs-turs2`` (that and their local-test fallback), ``turs-reference``
(the same as ``turs``, kept for older records) and ``cart``. Other modules add
algorithms with :func:`register_algorithm`; the competitor adapters in ``turs.competitors`` are
imported the first time the registry is read, if that package exists::

    from turs.bench import register_algorithm
    register_algorithm("ripper", RipperAdapter, requires=("wittgenstein",),
                       description="RIPPER (wittgenstein)")

``requires`` lists importable module names (default: the factory's ``requires`` attribute); a
task whose algorithm needs a module that is not installed, or whose factory raises
``ImportError``, is recorded with status ``"not_installed"`` (and the install hint) instead of
failing the run. If ``turs.competitors`` has ``register_all(register)``, it is called with a
``register(name, factory)`` that lower-cases the name (``"C45"`` -> ``"c45"``). A factory should import its optional library inside ``_fit`` (or the factory), never at
module level, so that registering it never needs the library.
"""
from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
from dataclasses import dataclass, field
from typing import Callable

from .adapters import Adapter, CARTAdapter, TURSAdapter

__all__ = [
    "Algorithm",
    "get_algorithm",
    "list_algorithms",
    "missing_requirements",
    "register_algorithm",
    "unregister_algorithm",
]

logger = logging.getLogger(__name__)

PLUGIN_MODULES = ("turs.competitors",)  # imported once, when the registry is first read
INSTALL_HINT = "pip install 'turs[competitors]'"


@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm.

    Attributes
    ----------
    name : str
        Registry name, as used on the command line (``--algorithms``) and in the results.
    factory : callable
        ``factory(**params)`` returns a new, unfitted :class:`Adapter`. It is sent to the worker
        processes by reference (its module must be importable there) or, for classes defined
        in ``__main__``, by value (cloudpickle).
    params : dict
        Default keyword arguments for ``factory``; a task's ``settings`` override them.
    requires : tuple of str
        Modules the algorithm needs at fit time (checked in the task's process).
    description : str
    install_hint : str
        Shown in the ``"not_installed"`` status message.
    """

    name: str
    factory: Callable[..., Adapter]
    params: dict = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    description: str = ""
    install_hint: str = INSTALL_HINT

    def make(self, **settings) -> Adapter:
        """A new adapter with ``{**params, **settings}``."""
        return self.factory(**{**self.params, **settings})


_REGISTRY: dict[str, Algorithm] = {}
_LOCK = threading.Lock()
_PLUGINS_LOADED = False
_PLUGIN_ERRORS: dict[str, str] = {}


def register_algorithm(
    name: str,
    factory: Callable[..., Adapter],
    *,
    params: dict | None = None,
    requires: tuple[str, ...] | list[str] = (),
    description: str = "",
    install_hint: str = INSTALL_HINT,
    replace: bool = False,
) -> Algorithm:
    """Register ``factory`` under ``name`` (lower case letters, digits, ``-``, ``_``, ``.``).

    Raises ``ValueError`` when the name is taken, unless ``replace=True``.
    """
    if not isinstance(name, str) or not name or not all(ch.isalnum() or ch in "-_." for ch in name):
        raise ValueError(
            f"Algorithm name must be a non-empty str of letters, digits, '-', '_' or '.'. Got {name!r}."
        )
    if name != name.lower():
        raise ValueError(f"Algorithm name must be lower case. Got {name!r}; use {name.lower()!r}.")
    if not callable(factory):
        raise TypeError(f"The factory of algorithm {name!r} must be callable. Got {factory!r}.")
    if isinstance(requires, str):
        requires = (requires,)
    if not requires:  # an adapter class may declare the modules it needs
        declared = getattr(factory, "requires", ())
        requires = (declared,) if isinstance(declared, str) else tuple(declared or ())
    algo = Algorithm(name, factory, dict(params or {}), tuple(requires), description, install_hint)
    with _LOCK:
        if name in _REGISTRY and not replace:
            raise ValueError(
                f"Algorithm {name!r} is already registered ({_REGISTRY[name].description or _REGISTRY[name].factory}). "
                "Pass replace=True to replace it, or choose another name."
            )
        _REGISTRY[name] = algo
    return algo


def unregister_algorithm(name: str) -> None:
    """Remove ``name`` from the registry (no error when it is not there)."""
    with _LOCK:
        _REGISTRY.pop(name, None)


def _load_plugins() -> None:
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    for module in PLUGIN_MODULES:
        if importlib.util.find_spec(module.split(".")[0]) is None:
            continue
        try:
            if importlib.util.find_spec(module) is None:
                continue
            mod = importlib.import_module(module)
            hook = getattr(mod, "register_all", None)
            if callable(hook):  # turs.competitors.register_all(register): names as the thesis prints them
                hook(_register_plugin)
        except Exception as exc:  # a broken plugin must not break the built-in algorithms
            _PLUGIN_ERRORS[module] = f"{type(exc).__name__}: {exc}"
            logger.warning("Could not import %s, its algorithms are not registered: %s", module, exc)


def _register_plugin(name: str, factory: Callable[..., Adapter], **kwargs) -> Algorithm:
    """``register_algorithm`` for a plugin's ``register_all``: the name is lower-cased ("C45" ->
    "c45") and ``requires`` defaults to the factory's ``requires`` attribute."""
    kwargs.setdefault("description", f"{name} ({getattr(factory, '__module__', '?')})")
    return register_algorithm(name.lower(), factory, replace=True, **kwargs)


def list_algorithms() -> dict[str, Algorithm]:
    """All registered algorithms by name (built-in and plugins)."""
    _load_plugins()
    with _LOCK:
        return dict(_REGISTRY)


def get_algorithm(name: str) -> Algorithm:
    """The registered algorithm ``name``; ``ValueError`` naming the known ones otherwise."""
    algos = list_algorithms()
    if name in algos:
        return algos[name]
    extra = "".join(f" Importing {m} failed ({e}), so its algorithms are missing." for m, e in _PLUGIN_ERRORS.items())
    raise ValueError(
        f"Unknown algorithm {name!r}. Registered: {', '.join(sorted(algos))}.{extra} "
        "Register more with turs.bench.register_algorithm(name, factory)."
    )


def missing_requirements(algo: Algorithm) -> list[str]:
    """The modules of ``algo.requires`` that cannot be imported in this process."""
    missing = []
    for module in algo.requires:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package is missing
            found = False
        if not found:
            missing.append(module)
    return missing


register_algorithm("turs", TURSAdapter,
                   description="TURS, thesis settings (beam width 10, 20 cut points), coded and searched as the "
                               "authors' implementation that produced the thesis' tables (the estimator's defaults)")
register_algorithm("turs-nopatience", TURSAdapter, params={"use_patience": False},
                   description="TURS without diverse patience (ablation, Fig. 3.5)")
register_algorithm("turs-nolocaltest", TURSAdapter, params={"use_local_test": False},
                   description="TURS without the MDL local test (ablation, Table 3.6)")
register_algorithm("turs-noaux", TURSAdapter, params={"use_auxiliary_beam": False},
                   description="TURS without the auxiliary beam")
register_algorithm("turs-thesis", TURSAdapter, params={"model_encoding": "thesis", "search": "thesis"},
                   description="TURS as the thesis text writes it: Eq. 3.13-3.17 model code, Algorithm 4 bookkeeping")
register_algorithm("turs-turs2code", TURSAdapter, params={"model_encoding": "turs2", "search": "thesis"},
                   description="the thesis text's search with the model code of the authors' implementation")
register_algorithm("turs-turs2", TURSAdapter,
                   params={"model_encoding": "turs2", "search": "thesis", "local_test_fallback": True},
                   description="the thesis text's search with the authors' model code and local-test fallback")
register_algorithm("turs-reference", TURSAdapter, params={"model_encoding": "turs2", "search": "turs2"},
                   description="the same as turs (the defaults), named explicitly; kept for older records")
register_algorithm("cart", CARTAdapter, description="scikit-learn DecisionTreeClassifier, defaults")
