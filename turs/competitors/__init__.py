"""Competitor learners of the thesis' benchmark (Section 3.6), each an :class:`turs.adapter.Adapter` the benchmark runs.

===========  =======================================  ==========================================
name         library                                  adapter
===========  =======================================  ==========================================
C45          Weka J48 (python-weka-wrapper3)          :class:`~turs.competitors.weka.C45Adapter`
RIPPER       Weka JRip                                :class:`~turs.competitors.weka.RIPPERAdapter`
OneR         Weka rules.OneR (hard predictions)       :class:`~turs.competitors.weka.OneRAdapter`
CN2          Orange3 CN2UnorderedLearner              :class:`~turs.competitors.orange.CN2Adapter`
CLASSY       rulelist 0.2.0 (the authors' code)       :class:`~turs.competitors.classy.CLASSYAdapter`
BRS          imodels BayesianRuleSetClassifier        :class:`~turs.competitors.imodels_.BRSAdapter`
BRL          imodels BayesianRuleListClassifier       :class:`~turs.competitors.imodels_.BRLAdapter`
RuleFit      imodels RuleFitClassifier                :class:`~turs.competitors.imodels_.RuleFitAdapter`
DRS, IDS     not installable: the thesis' numbers     :func:`~turs.competitors.reported.reported_results`
submodular   seed 004 re-implemented (numpy)          :class:`~turs.competitors.seeds.SubmodularAdapter`
lire         seed 002 re-implemented (numpy)          :class:`~turs.competitors.seeds.LIREAdapter`
lire-rulefit seed 002's RuleFit (Problem 1), same     :class:`~turs.competitors.seeds.LIRERuleFitAdapter`
===========  =======================================  ==========================================

The last three are beyond the thesis: the seed papers' own learners, written from their
equations (``docs/competitors.md``); they need no extra library. Their scikit-learn estimators
are here too: ``from turs.competitors import SubmodularRuleSetClassifier, LIREClassifier``.

(CART is scikit-learn's, :class:`turs.bench.adapters.CARTAdapter`.)

Importing this package imports none of those libraries and starts no JVM: each adapter imports
its library when it is constructed (a cheap check that it is installed) and fitted.
Install them with ``bash .ci/install-competitors.sh``; see ``docs/competitors.md``.
"""
from __future__ import annotations

import inspect
from typing import Callable

from ._common import INSTALL_HINT, missing_modules
from .classy import CLASSYAdapter
from .lire import LIREClassifier
from .imodels_ import BRLAdapter, BRSAdapter, RuleFitAdapter
from .orange import CN2Adapter
from .reported import REPORTED_ALGORITHMS, reported_results
from .seeds import LIREAdapter, LIRERuleFitAdapter, SubmodularAdapter
from .submodular import SubmodularRuleSetClassifier
from .weka import C45Adapter, OneRAdapter, RIPPERAdapter

__all__ = ["COMPETITORS", "REQUIRES", "INSTALL_HINT", "REPORTED_ALGORITHMS", "available",
           "register_all", "reported_results", "C45Adapter", "RIPPERAdapter", "OneRAdapter",
           "CN2Adapter", "CLASSYAdapter", "BRSAdapter", "BRLAdapter", "RuleFitAdapter", "SubmodularAdapter",
           "LIREAdapter", "LIRERuleFitAdapter", "SubmodularRuleSetClassifier", "LIREClassifier"]

#: name -> adapter class, in the thesis' order (the extras BRL, RuleFit, OneR, then the seed
#: papers' learners last).
COMPETITORS = {
    "BRS": BRSAdapter,
    "C45": C45Adapter,
    "CLASSY": CLASSYAdapter,
    "RIPPER": RIPPERAdapter,
    "CN2": CN2Adapter,
    "BRL": BRLAdapter,
    "RuleFit": RuleFitAdapter,
    "OneR": OneRAdapter,
    "submodular": SubmodularAdapter,
    "lire": LIREAdapter,
    "lire-rulefit": LIRERuleFitAdapter,
}

#: name -> top-level modules the adapter needs (checked without importing them).
REQUIRES = {name: cls.requires for name, cls in COMPETITORS.items()}


def available() -> dict[str, str | None]:
    """name -> ``None`` when its library is installed, else why not (nothing is imported)."""
    out = {}
    for name in COMPETITORS:
        missing = missing_modules(REQUIRES[name])
        out[name] = None if not missing else f"missing module(s) {', '.join(missing)}. {INSTALL_HINT}"
    return out


def register_all(register: Callable[[str, Callable], object]) -> None:
    """Call ``register(name, factory)`` for every competitor (factory = the adapter class).

    Competitors whose library is missing are registered too: constructing them raises an
    ImportError with the install hint, which the runner records as that task's failure.
    When ``register`` takes keyword arguments, ``install_hint`` and ``description`` are passed
    too (``turs.bench``'s registry does).
    """
    try:
        sig = inspect.signature(register)
        takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()) or \
            "install_hint" in sig.parameters
    except (TypeError, ValueError):
        takes_kwargs = False
    for name, cls in COMPETITORS.items():
        if takes_kwargs:
            doc = (cls.__doc__ or name).strip().splitlines()[0]
            register(name, cls, install_hint="bash .ci/install-competitors.sh", description=doc)
        else:
            register(name, cls)
