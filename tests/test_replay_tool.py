"""``tools/replay_kernel.py fit-costs``: the cost model of the union build is refitted from it, so
its instrumented kernel must still find its lines in the kernel, and its fit must recover
known constants (``docs/performance.md``, eleventh stop)."""
from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("replay_kernel", REPO / "tools" / "replay_kernel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_instrumented_kernel_takes_the_components_argument(tool):
    module = tool._instrumented_kernel(str(REPO / "turs" / "_core" / "growth_kernel.py"))
    names = list(inspect.signature(module._grow_chunk_serial.py_func).parameters)
    assert names[-2:] == ["k_split", "stats"]
    assert all(f"stats[f, {i}]" in inspect.getsource(module._grow_chunk_impl) for i in range(8))


@pytest.mark.parametrize("seed", range(3))
def test_the_fit_recovers_the_constants_of_simulated_timings(tool, seed):
    """Per-feature times made from known constants (each build's terms, a time common to the
    three builds, and the per-bucket term fixed) give those constants back."""
    rng = np.random.default_rng(seed)
    truth = {"rows": np.array([1.0, 2.3]), "bins": np.array([300.0, 0.29]), "bits": np.array([1000.0, 3.0, 0.27, 1.4])}
    bucket = 0.5
    data = []
    for _ in range(2):
        X = rng.uniform(0, 1000, size=(400, 8))
        X[:, 0] = 1.0
        common = rng.uniform(0, 5000, size=400)
        T = np.c_[tuple(common + X[:, tool._TERMS[b][0]] @ truth[b] for b in ("rows", "bins", "bits"))]
        T[:, 1] += bucket * X[:, 3]
        data.append((X * 1.0, T * 1e-9))  # seconds
    fitted = tool._fit(data, bucket * 1e-9)
    for build, coef in zip(("rows", "bins", "bits"), fitted):
        np.testing.assert_allclose(coef / 1e-9, truth[build], rtol=1e-6)
