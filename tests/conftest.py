"""Shared test set-up for turs.

- Matplotlib draws off-screen (Agg) unless MPLBACKEND is already set.
- Hypothesis: the example counts come from its profiles only (no ``max_examples`` in a test's
  decorator). ``dev`` (the default) and ``ci`` (CI set: derandomized, so a run is repeatable)
  draw 200 examples, ``check`` (``make check``) 25; none has a per-example deadline (the first
  example of a numba kernel includes its compilation). HYPOTHESIS_PROFILE=dev|ci|check picks one.
- Seeds: a test parametrized over ``seed`` runs its first seed only, unless TURS_TEST_SEEDS=all
  (``make test`` and CI set it) runs every seed; the ``seed`` fixture gives a test that is not
  parametrized the one seed 0 (as scikit-learn's ``global_random_seed``).
- Subprocesses: a test that starts a Python interpreter (``sys.executable``: a script, a notebook
  kernel, a server) is marked ``subprocess`` (or ``slow`` / ``browser``), which ``make check``
  leaves out; an unmarked one fails and says to mark it.
- ``turs_data_dir``: the benchmark datasets folder from TURS_DATA_DIR, or a skip.
- ``require_competitors(*names)``: skip (or, with TURS_REQUIRE_COMPETITORS=1, fail) when a
  benchmark algorithm's libraries are not installed.
- The terminal summary says whether TURS_DATA_DIR was set, i.e. whether tests that need
  the benchmark datasets could run.
"""

import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

import pytest  # noqa: E402

try:
    from hypothesis import settings
except ImportError:  # hypothesis comes with the dev extra
    pass
else:
    settings.register_profile("dev", max_examples=200, deadline=None)
    settings.register_profile("ci", max_examples=200, deadline=None, derandomize=True, print_blob=True)
    settings.register_profile("check", max_examples=25, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


#: TURS_TEST_SEEDS=all: every seed of a test parametrized over ``seed``; otherwise its first.
ALL_SEEDS = os.environ.get("TURS_TEST_SEEDS", "").strip().lower() == "all"
#: Markers of the tests ``make check`` leaves out; a test with one may start an interpreter.
OUTSIDE_CHECK = ("slow", "browser", "subprocess")


@pytest.fixture
def seed() -> int:
    """The random seed of a test that is not parametrized over seeds."""
    return 0


def pytest_collection_modifyitems(config, items):
    """Without TURS_TEST_SEEDS=all, a test parametrized over ``seed`` keeps its first seed only."""
    if ALL_SEEDS:
        return
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.indices.get("seed", 0) != 0:
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


_current_item = None
_execute_child = subprocess.Popen._execute_child


def _guarded_execute_child(self, args, executable, *rest, **kw):
    """``Popen`` refuses to start Python from a test not marked to (see the module docstring)."""
    item = _current_item
    program = executable or (args if isinstance(args, (str, bytes, os.PathLike)) else args[0])
    if (item is not None and not any(item.get_closest_marker(m) for m in OUTSIDE_CHECK)
            and _same_program(program, sys.executable)):
        raise RuntimeError(f"{item.nodeid} starts a Python interpreter ({sys.executable}) but is not marked "
                           "`@pytest.mark.subprocess` (or slow / browser): mark it, so that `make check` "
                           "leaves it out, or test in this process.")
    return _execute_child(self, args, executable, *rest, **kw)


def _same_program(program, python: str) -> bool:
    try:
        return os.path.realpath(os.fsdecode(program)) == os.path.realpath(python)
    except (TypeError, ValueError):
        return False


subprocess.Popen._execute_child = _guarded_execute_child


def _as_current(item):
    """The guard's test while ``item`` sets up and runs (a hook wrapper's body)."""
    global _current_item
    _current_item = item
    try:
        yield
    finally:
        _current_item = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _as_current(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _as_current(item)


def _data_dir_line() -> str:
    value = os.environ.get("TURS_DATA_DIR")
    if not value:
        return "TURS_DATA_DIR is not set: tests that need the benchmark datasets are skipped"
    state = "exists" if Path(value).is_dir() else "DOES NOT EXIST"
    return f"TURS_DATA_DIR={value} ({state})"


@pytest.fixture(scope="session")
def turs_data_dir() -> Path:
    """The benchmark datasets folder (TURS_DATA_DIR); skips the test when it is not set or missing."""
    value = os.environ.get("TURS_DATA_DIR")
    if not value:
        pytest.skip("TURS_DATA_DIR is not set (the benchmark datasets, see docs/datasets.md)")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"TURS_DATA_DIR={value} is not a directory")
    return path


@pytest.fixture(scope="session")
def require_competitors():
    """``require_competitors("c45", "cn2")``: skip the test when a benchmark algorithm's libraries
    are not installed (reason names `make competitors`), or fail when TURS_REQUIRE_COMPETITORS=1
    (CI installs them, so there a missing one is an error)."""
    def need(*algorithms: str) -> None:
        from turs.bench.algorithms import get_algorithm, missing_requirements

        missing = {a: missing_requirements(get_algorithm(a)) for a in algorithms}
        missing = {a: m for a, m in missing.items() if m}
        if not missing:
            return
        text = "; ".join(f"{a} needs {', '.join(m)}" for a, m in missing.items())
        msg = f"competitor libraries not installed ({text}): install them with `make competitors`"
        if os.environ.get("TURS_REQUIRE_COMPETITORS") == "1":
            pytest.fail(f"TURS_REQUIRE_COMPETITORS=1 but {msg}")
        pytest.skip(msg)

    return need


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    terminalreporter.write_sep("-", "turs test data")
    terminalreporter.write_line(_data_dir_line())
