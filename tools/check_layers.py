"""Draw the import graph of ``turs/`` and print its import cycles and the imports that climb.

    python tools/check_layers.py            # the layers, then every cycle and climb; exit 1 if any
    python tools/check_layers.py --edges    # also every import edge, by layer

The graph is read from the source (``ast``), not by importing it: every ``import`` and
``from ... import`` in a module counts, at module level or inside a function or an
``if TYPE_CHECKING:`` block, because each says the module needs the other to mean what it says.
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``
(its ``__init__``). A package's ``__init__`` is the module named by the package. Modules
imported by name at run time (``importlib.import_module``) are not edges: the harness loads the
competitors that way (``turs.bench.algorithms.PLUGIN_MODULES``), a descent.

The layers below are the project's layout, lowest first. A module may import a module of its
own layer or of a lower one; an import of a higher layer is a *climb*. Two modules of one layer
may import each other only without closing a cycle. Every module of ``turs/`` must be placed
(a new module outside every layer is reported, so that placing it is a decision).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "turs"

#: (layer name, module names or prefixes), lowest layer first. A pattern ``p`` places ``p``
#: itself and every ``p.*`` (``turs``, the package's ``__init__``, only itself); the longest
#: pattern that matches a module decides its layer.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundations: settings, compile cache, input checks, metrics, figure style", ("turs._config", "turs._compile", "turs._validation", "turs._fit_control", "turs.metrics", "turs.style")),
    ("data and encoding", ("turs.datasets", "turs.encoding", "turs.rules")),
    ("kernels", ("turs._core",)),
    ("MDL", ("turs.mdl", "turs.parse", "turs.union_estimate", "turs.row_passes")),
    ("search", ("turs.search", "turs.guided", "turs.trace")),
    # Editing a fitted model and its model file work on the model they are given (they never
    # import the estimator); the estimator's methods (without_rule, with_rule, to_json, ...)
    # delegate to them, so they sit directly below it.
    ("fitted-model operations: its fields, editing, model files, explanations",
     ("turs.fitted", "turs.edit", "turs.model_file", "turs._model_fields", "turs.explain")),
    ("estimator", ("turs.estimator", "turs.learn", "turs._params", "turs._warmup", "turs.__main__", "turs")),
    # The fit from Dask collections: the estimator's fit on a row store of partitions on workers.
    ("distributed fit", ("turs.dask",)),
    # What the harness asks of a learner; the competitors implement it, the harness runs them.
    ("adapter interface", ("turs.adapter",)),
    ("competitors", ("turs.competitors",)),
    ("explorer", ("turs.explorer",)),
    ("harness", ("turs.bench",)),
    ("notebooks", ("turs.reproduce",)),
]


class Edge(NamedTuple):
    """``source`` imports ``target`` at ``path:line``; ``lazy`` when inside a function or class."""

    source: str
    target: str
    path: str
    line: int
    lazy: bool


def module_name(path: Path, root: Path = ROOT) -> str:
    """``turs/search/beam.py`` -> ``turs.search.beam``; ``turs/search/__init__.py`` -> ``turs.search``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package: name -> file."""
    return {module_name(p, root): p for p in sorted((root / PACKAGE).rglob("*.py"))}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module of ``from <level dots><name> import ...`` written in ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([name] if name else []))


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Edge]:
    """The edges from ``module`` to other modules of the package, with where they are written."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    rel = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    edges: list[Edge] = []

    def add(target: str, node: ast.AST, lazy: bool) -> None:
        # `import turs.a.b` needs turs.a.b: the nearest enclosing module that exists in the package
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != module:
            edges.append(Edge(module, target, rel, node.lineno, lazy))

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                        add(alias.name, child, lazy)
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(module, is_package, child.level, child.module)
                if base != PACKAGE and not base.startswith(PACKAGE + "."):
                    continue
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    add(sub if sub in modules else base, child, lazy)
            visit(child, inner)

    visit(tree, False)
    return edges


def import_graph(root: Path = ROOT) -> list[Edge]:
    """Every import edge between modules of the package (one per import statement and name)."""
    modules = package_modules(root)
    edges: list[Edge] = []
    for name, path in modules.items():
        edges.extend(imports_of(name, path, modules))
    return edges


def layer_of(module: str) -> int | None:
    """Index of the module's layer in :data:`LAYERS` (longest matching pattern), None if unplaced."""
    best, best_len = None, -1
    for i, (_, patterns) in enumerate(LAYERS):
        for p in patterns:
            inside = p != PACKAGE and module.startswith(p + ".")  # the package itself places only itself
            if (module == p or inside) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def unplaced(root: Path = ROOT) -> list[str]:
    """Modules of the package that no layer places."""
    return [m for m in package_modules(root) if layer_of(m) is None]


def climbs(edges: list[Edge]) -> list[Edge]:
    """Edges whose target sits in a higher layer than their source (one per import statement)."""
    out = {}
    for e in edges:
        s, t = layer_of(e.source), layer_of(e.target)
        if s is not None and t is not None and t > s:
            out.setdefault((e.source, e.target, e.path, e.line), e)
    return sorted(out.values())


def cycles(edges: list[Edge]) -> list[list[str]]:
    """One shortest cycle through each strongly connected group of modules (Tarjan), as
    ``[a, b, ..., a]``; sorted, so the output is stable."""
    succ: dict[str, set[str]] = {}
    for e in edges:
        succ.setdefault(e.source, set()).add(e.target)
        succ.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:  # recursion depth is bounded by the number of modules (~100)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(succ):
        if v not in index:
            strong(v)

    out = []
    for group in sorted(groups):
        members = set(group)
        start = group[0]
        # breadth-first from start back to start inside the group: a shortest cycle
        prev: dict[str, str] = {}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(succ[v] & members):
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        back = []  # found, its predecessor, ..., the successor of start
        v = found
        while v != start:
            back.append(v)
            v = prev[v]
        out.append([start] + back[::-1] + [start])
    return out


def edge_text(e: Edge) -> str:
    lazy = " (inside a function)" if e.lazy else ""
    return (f"{e.source} [{LAYERS[layer_of(e.source)][0]}] -> {e.target} [{LAYERS[layer_of(e.target)][0]}]"
            f"  {e.path}:{e.line}{lazy}")


def report(root: Path = ROOT, show_edges: bool = False) -> int:
    """Print the layers, the cycles and the climbs; the number of problems found."""
    edges = import_graph(root)
    print("layers, lowest first:")
    for i, (name, patterns) in enumerate(LAYERS):
        print(f"  {i:2d} {name}: {', '.join(patterns)}")
    if show_edges:
        print("\nimports:")
        for e in sorted(edges, key=lambda e: (layer_of(e.source) or 0, e.source, e.target)):
            print("  " + edge_text(e))
    missing = unplaced(root)
    found_cycles = cycles(edges)
    found_climbs = climbs(edges)
    print(f"\nmodules in no layer: {len(missing)}")
    for m in missing:
        print(f"  {m}")
    print(f"\nimport cycles: {len(found_cycles)}")
    for c in found_cycles:
        print("  " + " -> ".join(c))
    print(f"\nimports that climb to a higher layer: {len(found_climbs)}")
    for e in sorted(found_climbs):
        print("  " + edge_text(e))
    return len(missing) + len(found_cycles) + len(found_climbs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="also print every import edge")
    args = parser.parse_args(argv)
    return 1 if report(show_edges=args.edges) else 0


if __name__ == "__main__":
    sys.exit(main())
