"""Shared test set-up for turs.

- Matplotlib draws off-screen (Agg) unless MPLBACKEND is already set.
- Hypothesis: no per-example deadline (the first example of a numba kernel includes its
  compilation); under CI (CI set) examples are derandomized so a run is repeatable.
  HYPOTHESIS_PROFILE=dev|ci picks a profile by hand.
- ``turs_data_dir``: the benchmark datasets folder from TURS_DATA_DIR, or a skip.
- ``require_competitors(*names)``: skip (or, with TURS_REQUIRE_COMPETITORS=1, fail) when a
  benchmark algorithm's libraries are not installed.
- The terminal summary says whether TURS_DATA_DIR was set, i.e. whether tests that need
  the benchmark datasets could run.
"""

import os
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

import pytest  # noqa: E402

try:
    from hypothesis import settings
except ImportError:  # hypothesis comes with the dev extra
    pass
else:
    settings.register_profile("dev", deadline=None)
    settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


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
