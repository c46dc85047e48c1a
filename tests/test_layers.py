"""The package's layout descends: no import cycles, no import of a higher layer
(``tools/check_layers.py`` draws the graph and declares the layers), and the checker finds
what it should on a small package with a known cycle and known climbs."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _checker():
    spec = importlib.util.spec_from_file_location("check_layers", REPO / "tools" / "check_layers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("check_layers", module)
    spec.loader.exec_module(module)
    return module


cl = _checker()

#: Imports allowed to climb, as (importer, imported) -> why and what would remove it; none
#: today. A stale entry fails test_every_allowed_violation_still_exists.
ALLOWED_CLIMBS: dict = {}
#: Cycles allowed, as the set of their modules -> the same kind of reason; none today.
ALLOWED_CYCLES: dict = {}


@pytest.fixture(scope="module")
def edges():
    return cl.import_graph()


def test_every_module_is_in_a_layer():
    assert cl.unplaced() == []


def test_no_import_cycles(edges):
    found = [c for c in cl.cycles(edges) if frozenset(c) not in ALLOWED_CYCLES]
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_import_climbs_to_a_higher_layer(edges):
    found = [e for e in cl.climbs(edges) if (e.source, e.target) not in ALLOWED_CLIMBS]
    assert found == [], "imports that climb:\n" + "\n".join(cl.edge_text(e) for e in found)


def test_every_allowed_violation_still_exists(edges):
    climbs = {(e.source, e.target) for e in cl.climbs(edges)}
    cycles = {frozenset(c) for c in cl.cycles(edges)}
    assert [k for k in ALLOWED_CLIMBS if k not in climbs] == []
    assert [k for k in ALLOWED_CYCLES if k not in cycles] == []


def test_the_layers_descend_as_the_project_says():
    """data and encoding -> kernels -> MDL -> search -> estimator -> explorer and harness ->
    notebooks; the adapter interface below the competitors, and both below the harness."""
    order = ["turs.datasets._load", "turs.encoding", "turs._core.growth", "turs.mdl", "turs.search.beam",
             "turs.estimator", "turs.bench.runner", "turs.reproduce"]
    layers = [cl.layer_of(m) for m in order]
    assert layers == sorted(layers) and len(set(layers)) == len(layers) - 1  # datasets and encoding share one
    assert cl.layer_of("turs.adapter") < cl.layer_of("turs.competitors.weka") < cl.layer_of("turs.bench")
    assert cl.layer_of("turs.metrics") < cl.layer_of("turs.edit") < cl.layer_of("turs.explorer._app")
    assert cl.layer_of("turs.union_estimate") < cl.layer_of("turs.estimator")


# ------------------------------------------------------------------ the checker on a known package
def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_checker_finds_a_known_cycle_and_known_climbs(tmp_path):
    _write(tmp_path, {
        "turs/__init__.py": "from .estimator import TURSClassifier\n",
        "turs/encoding.py": "def f():\n    from .estimator import TURSClassifier  # a climb inside a function\n",
        "turs/estimator.py": "from . import mdl\nfrom .search import beam\nTURSClassifier = object\n",
        "turs/mdl.py": "import turs.encoding\nimport numpy\n",
        "turs/search/__init__.py": "from .beam import search_rule\n",
        "turs/search/beam.py": "from .scoring import score\ndef search_rule():\n    pass\n",
        "turs/search/scoring.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    from .beam import search_rule\nscore = 1\n"),
        "turs/newmodule.py": "from .. import nothing_outside\n",
    })
    modules = cl.package_modules(tmp_path)
    assert set(modules) == {"turs", "turs.encoding", "turs.estimator", "turs.mdl", "turs.search",
                            "turs.search.beam", "turs.search.scoring", "turs.newmodule"}
    edges = cl.import_graph(tmp_path)
    pairs = {(e.source, e.target) for e in edges}
    assert pairs == {("turs", "turs.estimator"), ("turs.encoding", "turs.estimator"),
                     ("turs.estimator", "turs.mdl"), ("turs.estimator", "turs.search.beam"),
                     ("turs.mdl", "turs.encoding"), ("turs.search", "turs.search.beam"),
                     ("turs.search.beam", "turs.search.scoring"), ("turs.search.scoring", "turs.search.beam")}
    lazy = {(e.source, e.target): e.lazy for e in edges}
    assert lazy[("turs.encoding", "turs.estimator")] and not lazy[("turs.mdl", "turs.encoding")]
    assert cl.cycles(edges) == [
        ["turs.encoding", "turs.estimator", "turs.mdl", "turs.encoding"],
        ["turs.search.beam", "turs.search.scoring", "turs.search.beam"],
    ]
    assert [(e.source, e.target, e.line) for e in cl.climbs(edges)] == [("turs.encoding", "turs.estimator", 2)]
    assert cl.unplaced(tmp_path) == ["turs.newmodule"]


def test_checker_resolves_relative_imports_from_packages_and_modules():
    assert cl._resolve("turs.search.beam", False, 1, "scoring") == "turs.search.scoring"
    assert cl._resolve("turs.search.beam", False, 2, "mdl") == "turs.mdl"
    assert cl._resolve("turs.search", True, 1, "beam") == "turs.search.beam"
    assert cl._resolve("turs.search", True, 2, None) == "turs"
    assert cl._resolve("turs.bench.tasks", False, 2, None) == "turs"
    assert cl._resolve("x", False, 0, "turs.rules") == "turs.rules"
