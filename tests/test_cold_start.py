"""A fit on a cold compile cache runs the kernels as Python (``turs._core._cold_start``): the
same rules and MDL scores as the compiled kernels, to the bit; the choice between the two; the
background compile and the switch to the compiled kernels."""
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pandas as pd
import pytest
from numba.core.dispatcher import Dispatcher
from sklearn.datasets import load_iris, load_wine

from turs import TURSClassifier
from turs._core import _cold_start
from turs.datasets import make_overlap_blockade_data


def _car_like():
    rng = np.random.default_rng(5)
    X = pd.DataFrame({f"c{j}": pd.Categorical(rng.choice(list("abc"), 400)) for j in range(4)})
    X["x"] = rng.normal(size=400)
    y = ((X["c0"] == "a") & (X["x"] > 0)) | (X["c2"] == "c")
    return X, np.where(rng.random(400) < 0.1, ~y, y).astype(int)


@pytest.mark.parametrize("data, kw", [
    ("iris", {}), ("wine", {}), ("wine", dict(search="thesis", model_encoding="thesis")),
    ("blockade", dict(record_trace=True)), ("car", dict(beam_width=5))])
@pytest.mark.slow
def test_the_kernels_as_python_fit_the_same_model_to_the_bit(monkeypatch, data, kw):
    X, y = {"iris": lambda: load_iris(return_X_y=True, as_frame=True),
            "wine": lambda: load_wine(return_X_y=True, as_frame=True),
            "blockade": lambda: make_overlap_blockade_data(n=600, seed=2), "car": _car_like}[data]()
    monkeypatch.setenv("TURS_KERNELS", "compiled")
    compiled = TURSClassifier(**kw).fit(X, y)
    monkeypatch.setenv("TURS_KERNELS", "python")
    python = TURSClassifier(**kw).fit(X, y)
    assert len(compiled.rules_) >= 2
    assert [str(r) for r in python.rules_] == [str(r) for r in compiled.rules_]
    assert python.mdl_score_ == compiled.mdl_score_
    assert np.array_equal(python.predict_proba(X), compiled.predict_proba(X))
    if kw.get("record_trace"):
        assert python.trace_.to_json() == compiled.trace_.to_json()


def test_the_kernels_are_python_inside_and_compiled_after(monkeypatch):
    """Every module's reference to a kernel is the kernel's Python inside, and a dispatcher
    again after, also in a module that took the reference while the kernels were Python."""
    import turs.search.growths as growths

    monkeypatch.setenv("TURS_KERNELS", "python")
    late = types.ModuleType("turs._late_import_for_test")
    monkeypatch.setitem(sys.modules, late.__name__, late)
    with _cold_start.kernels_for_fit(100) as choice:
        assert choice == "python"
        assert not isinstance(growths._score_base, Dispatcher) and callable(growths._score_base)
        late.kernel = growths._score_base
    assert isinstance(growths._score_base, Dispatcher)
    assert isinstance(late.kernel, Dispatcher)


def test_which_kernels_a_fit_gets(monkeypatch, tmp_path):
    monkeypatch.setattr(_cold_start, "cache_dir", lambda: str(tmp_path))
    monkeypatch.setattr(_cold_start, "_compiled_here", lambda: False)
    monkeypatch.delenv("TURS_KERNELS", raising=False)
    small, large = 150 * 4, _cold_start.INTERPRETED_MAX_CELLS + 1
    assert (_cold_start.choose(small), _cold_start.choose(large)) == ("python", "compiled")
    _cold_start.mark_ready()  # what turs.warmup() does when it has compiled every kernel
    assert _cold_start.cache_is_ready() and _cold_start.choose(small) == "compiled"
    os.remove(_cold_start._ready_file(str(tmp_path)))
    monkeypatch.setattr(_cold_start, "_compiled_here", lambda: True)  # a fit here compiled them
    assert _cold_start.choose(small) == "compiled"
    monkeypatch.setenv("TURS_KERNELS", "python")
    assert _cold_start.choose(large) == "python"
    monkeypatch.setenv("TURS_KERNELS", "fast")
    with pytest.raises(ValueError, match="TURS_KERNELS='fast'.*auto, compiled, python"):
        _cold_start.choose(small)
    monkeypatch.setattr(_cold_start, "cache_dir", lambda: None)  # the cache is off: compile
    monkeypatch.setenv("TURS_KERNELS", "auto")
    assert _cold_start.choose(small) == "compiled"
    with _cold_start.compiled_kernels():  # turs.warmup()'s fits
        monkeypatch.setenv("TURS_KERNELS", "python")
        assert _cold_start.choose(small) == "compiled"


def test_one_background_compile_at_a_time(monkeypatch, tmp_path):
    started = []

    class FakePopen:
        pid = 4242

        def __init__(self, args, env, **kw):
            started.append((args, env))

    monkeypatch.setattr(_cold_start, "cache_dir", lambda: str(tmp_path))
    monkeypatch.setattr(_cold_start.subprocess, "Popen", FakePopen)
    assert _cold_start.compile_in_background()
    args, env = started[0]
    assert args[0] == sys.executable and "turs.warmup()" in args[-1]
    assert env["TURS_KERNELS"] == "compiled"
    lock = tmp_path / "turs-compiling.pid"
    assert lock.read_text().strip() == "4242"
    assert not _cold_start.compile_in_background() and len(started) == 1  # one is running
    os.utime(lock, (0, 0))  # a lock 10 minutes old or more: its process died
    assert _cold_start.compile_in_background() and len(started) == 2


def test_a_python_fit_switches_to_the_compiled_kernels_when_the_cache_is_ready(monkeypatch, tmp_path):
    import turs.search.growths as growths

    monkeypatch.setattr(_cold_start, "cache_dir", lambda: str(tmp_path))
    monkeypatch.setattr(_cold_start, "_compiled_here", lambda: False)
    monkeypatch.setattr(_cold_start, "compile_in_background", lambda: True)
    monkeypatch.delenv("TURS_KERNELS", raising=False)
    with _cold_start.kernels_for_fit(600) as choice:
        assert choice == "python" and not _cold_start.switch_when_ready()
        _cold_start.mark_ready()  # the background compile has finished
        assert _cold_start.switch_when_ready()
        assert isinstance(growths._score_base, Dispatcher)
    assert isinstance(growths._score_base, Dispatcher)


@pytest.mark.subprocess
def test_a_first_fit_on_an_empty_cache_compiles_nothing(tmp_path):
    """A fresh process on an empty numba cache fits iris without compiling a kernel (numba's
    compile events) and gets the rules of the compiled kernels."""
    code = textwrap.dedent("""
        from numba.core import event
        compiled = []

        class Count(event.Listener):
            def on_start(self, e):
                compiled.append(str(e.data["dispatcher"]))

            def on_end(self, e):
                pass

        event.register("numba:compile", Count())
        from sklearn.datasets import load_iris
        import turs
        X, y = load_iris(return_X_y=True, as_frame=True)
        m = turs.TURSClassifier().fit(X, y)
        print(len(compiled), repr(m.mdl_score_), len(m.rules_))
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), TURS_KERNELS="auto")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    n_compiled, mdl, n_rules = out.stdout.split()
    X, y = load_iris(return_X_y=True, as_frame=True)
    assert int(n_compiled) == 0
    assert float(mdl) == TURSClassifier().fit(X, y).mdl_score_ and int(n_rules) == 2
    # it started one background compile into that cache; stop it
    lock = tmp_path / "turs-compiling.pid"
    if lock.exists():
        try:
            os.killpg(int(lock.read_text()), 15)
        except (ProcessLookupError, ValueError, PermissionError):
            pass
