"""numba's compile cache of the kernels: what its stamp covers, and where it lives.

numba compiles the module-level values a kernel reads (``MAX_SUBSET_RULES``, ``REGRET_LANES``,
the union builds' cost constants ...) into its machine code, and its cache keys that code by
the kernel's own source file only; ``turs/_compile.py`` stamps every kernel with all the
files the kernels are compiled from. These tests check that every such value is defined in a
stamped file, that changing one changes the stamp, that no test changes such a value at run
time (a compiled kernel would not see it), and that the package and the Makefile use one
cache folder.
"""
from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

import turs._core as core
from turs._core import _cache

ROOT = Path(__file__).resolve().parents[1]
STAMPED = [Path(_cache._CORE_DIR) / name for name in os.listdir(_cache._CORE_DIR) if name.endswith(".py")]
STAMPED.append(Path(_cache._CONFIG_FILE))


def _kernels():
    for info in pkgutil.iter_modules(core.__path__):
        module = importlib.import_module(f"turs._core.{info.name}")
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                yield value


def _names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _frozen_globals():
    """(kernel, name) of every module-level value a kernel reads that numba compiles in."""
    out = []
    for kernel in _kernels():
        glb = kernel.py_func.__globals__
        for name in _names(kernel.py_func.__code__):
            value = glb.get(name)
            if isinstance(value, (bool, int, float, tuple, np.number, np.ndarray)):
                out.append((kernel.py_func.__name__, name))
    return out


def _assigned_names(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        for target in targets:
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    names.add(n.id)
    return names


def test_every_value_a_kernel_compiles_in_is_defined_in_a_stamped_file():
    frozen = _frozen_globals()
    names = {name for _, name in frozen}
    assert {"MAX_SUBSET_RULES", "ROWS_PREFIX_COST", "BITS_RANK_COST", "PATH_AUTO", "NO_BIN"} <= names
    defined = set().union(*(_assigned_names(p) for p in STAMPED))
    assert [(k, n) for k, n in frozen if n not in defined] == []
    # the tuning constants among them live in the one configuration module
    tuning = {"MAX_SUBSET_RULES", "ROWS_PREFIX_COST", "BITS_RANK_COST", "PATH_AUTO", "REGRET_LANES"}
    assert tuning <= names and tuning <= _assigned_names(Path(_cache._CONFIG_FILE))


def test_changing_a_constant_changes_the_stamp(tmp_path):
    core_copy = tmp_path / "_core"
    core_copy.mkdir()
    for path in STAMPED[:-1]:
        (core_copy / path.name).write_bytes(path.read_bytes())
    config = tmp_path / "_config.py"
    config.write_bytes(Path(_cache._CONFIG_FILE).read_bytes())
    before = _cache.sources_stamp(str(core_copy), (str(config),))
    assert before == _cache.sources_stamp()  # the same files give the package's stamp
    text = config.read_text()
    assert "REGRET_LANES = 64\n" in text  # a tuning constant the regret kernel compiles in
    config.write_text(text.replace("REGRET_LANES = 64\n", "REGRET_LANES = 32\n"))
    assert _cache.sources_stamp(str(core_copy), (str(config),)) != before
    config.write_text(text)
    regret = core_copy / "regret.py"
    regret.write_text(regret.read_text() + "\nEXTRA = 1\n")
    assert _cache.sources_stamp(str(core_copy), (str(config),)) != before


def test_no_test_changes_a_value_kernels_compile_in():
    """A test that monkeypatches a value a kernel reads would see the compiled kernel ignore it
    (or, with a cold cache, compile it in and leave it in the cache)."""
    frozen = {name for _, name in _frozen_globals()}
    patched = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        patched |= set(re.findall(r"monkeypatch\.setattr\(\s*[\w.]+,\s*[\"'](\w+)[\"']", path.read_text()))
    assert patched, "no monkeypatched names found: the pattern above needs updating"
    assert sorted(patched & frozen) == []


@pytest.mark.subprocess
def test_the_package_and_the_makefile_use_one_cache_folder(tmp_path):
    """Without NUMBA_CACHE_DIR, a kernel of this checkout caches into build/numba_cache, the
    Makefile's NUMBA_CACHE_DIR; with it set, into that folder."""
    makefile = (ROOT / "Makefile").read_text()
    assert "NUMBA_CACHE_DIR ?= $(ROOT)/build/numba_cache" in makefile
    assert _cache.checkout_cache_dir() == str(ROOT / "build" / "numba_cache")
    # where numba put a kernel, and where turs._compile says the kernels are (its ready mark)
    probe = ("import turs._core.overlap_groups as k, turs._compile as c; "
             "print(k._group_subsets._cache._impl.locator.get_cache_path()); print(c.cache_dir())")
    env = {key: v for key, v in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    unset, said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                                 cwd=tmp_path, check=True).stdout.split()
    assert Path(unset).parent == ROOT / "build" / "numba_cache" and said == unset
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "elsewhere")
    given, said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                                 cwd=tmp_path, check=True).stdout.split()
    assert Path(given).parent == tmp_path / "elsewhere" and said == given
