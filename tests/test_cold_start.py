"""A fit on a cold compile cache runs the kernels as Python (``turs._core.kernels``): the
same rules and MDL scores as the compiled kernels, to the bit; the kernel set chosen once per
fit and kept per thread (no module attribute changes); the choice between the two
(``turs._compile``); the background compile and the switch to the compiled kernels."""
import glob
import os
import subprocess
import sys
import textwrap
import threading
import time
import types
import warnings

import numpy as np
import pandas as pd
import pytest
from numba.core.dispatcher import Dispatcher
from sklearn.datasets import load_iris, load_wine

from turs import TURSClassifier, _compile
from turs._core import kernels as kernel_sets
from turs._core import score_base
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


def test_the_python_set_is_built_without_changing_a_module():
    """The twins are plain functions whose globals name twins; the modules keep their kernels."""
    python, compiled = kernel_sets.python_set(), kernel_sets.compiled_set()
    assert (python.kind, compiled.kind) == ("python", "compiled")
    assert compiled._score_base is score_base._score_base and isinstance(score_base._score_base, Dispatcher)
    twin = python._score_base
    assert isinstance(twin, types.FunctionType) and twin.__code__ is score_base._score_base.py_func.__code__
    assert twin.__globals__ is not vars(score_base)
    # a twin calls twins, all the way down (a kernel imported from another module included)
    assert twin.__globals__["_finish_growths"] is python._finish_growths
    assert python._grow_candidates.__globals__["_grow_chunk_serial"] is python._grow_chunk_serial
    assert python.log2_regret_table.__globals__["_log2_regret_blocks"] is python._log2_regret_blocks
    assert python._log2_regret_blocks.__globals__["_r2_lanes"] is python._r2_lanes
    # every jitted kernel has its twin, under the same name
    jitted = [n for n, v in vars(compiled).items() if isinstance(v, Dispatcher)]
    assert len(jitted) >= 40
    assert all(isinstance(getattr(python, n), types.FunctionType) for n in jitted)


def _rows(model):
    return [str(r) for r in model.rules_], model.mdl_score_


def _choose_by_size(limit):
    """``_compile.choose`` as on a cold cache, with ``limit`` cells as the largest Python fit."""
    return lambda n_cells, compiled_here=False: "python" if n_cells <= limit else "compiled"


@pytest.fixture
def cold(monkeypatch):
    """A cold cache for the kernel choice: tables up to 1,000 cells run the kernels as Python,
    larger ones compiled; no background compile, no notice."""
    monkeypatch.delenv("TURS_KERNELS", raising=False)
    monkeypatch.setattr(_compile, "choose", _choose_by_size(1_000))
    monkeypatch.setattr(_compile, "compile_in_background", lambda: False)
    monkeypatch.setattr(_compile, "compile_pending", lambda compiled_here: False)
    monkeypatch.setattr(_compile, "cache_is_ready", lambda: False)


class _KernelCalls:
    """Counts the calls, in the thread that installs it, that ran a jitted kernel's Python."""

    def __init__(self):
        self.codes = kernel_sets.kernel_codes()
        self.n = 0

    def __call__(self, frame, event, arg):
        if event == "call" and frame.f_code in self.codes:
            self.n += 1


def test_a_python_fit_and_a_compiled_fit_in_two_threads_keep_their_kernels(cold):
    """While one thread fits a small table with the kernels as Python, a large fit in another
    thread calls only compiled kernels, and both give the models they give alone, to the bit."""
    Xs, ys = load_iris(return_X_y=True, as_frame=True)  # 600 cells: Python
    Xl, yl = load_wine(return_X_y=True, as_frame=True)  # 2,314 cells: compiled
    small_alone, large_alone = TURSClassifier().fit(Xs, ys), TURSClassifier().fit(Xl, yl)
    counts, models, errors = {}, {"small": [], "large": []}, []
    small_done = threading.Event()

    def run(name, X, y, repeat):
        calls = _KernelCalls()
        sys.setprofile(calls)
        try:
            while True:
                models[name].append(TURSClassifier().fit(X, y))
                if not repeat or small_done.is_set():
                    break
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)
        finally:
            sys.setprofile(None)
            counts[name] = calls.n
            if name == "small":
                small_done.set()

    threads = [threading.Thread(target=run, args=("small", Xs, ys, False)),
               threading.Thread(target=run, args=("large", Xl, yl, True))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert counts["small"] > 1000  # the small fit ran the kernels as Python
    assert counts["large"] == 0  # every kernel call of the large fits went to the compiled set
    assert len(models["large"]) >= 2  # large fits ran while the small one did
    assert _rows(models["small"][0]) == _rows(small_alone)
    assert np.array_equal(models["small"][0].predict_proba(Xs), small_alone.predict_proba(Xs))
    for model in models["large"]:
        assert _rows(model) == _rows(large_alone)
        assert np.array_equal(model.predict_proba(Xl), large_alone.predict_proba(Xl))


def _module_values() -> dict:
    return {(name, key): id(value) for name, module in list(sys.modules.items())
            if module is not None and (name == "turs" or name.startswith("turs."))
            for key, value in list(vars(module).items())}


def test_no_module_attribute_is_rebound_during_a_fit(cold, monkeypatch):
    """A Python fit that switches to the compiled kernels midway rebinds no name of any module
    of ``turs``: the same objects before, during and after."""
    ready = {"now": False}
    monkeypatch.setattr(_compile, "cache_is_ready", lambda: ready["now"])
    X, y = load_wine(return_X_y=True, as_frame=True)
    monkeypatch.setattr(_compile, "choose", _choose_by_size(10_000))  # wine as Python
    kinds = []
    original = kernel_sets.switch_when_ready

    def switch():  # the background compile is done after the first rule
        ready["now"] = True
        compiled = original()
        kinds.append(kernel_sets.current().kind)
        return compiled

    import turs.learn

    monkeypatch.setattr(turs.learn, "switch_when_ready", switch)
    before = _module_values()
    changed = []
    thread = threading.Thread(target=lambda: TURSClassifier(max_rules=3).fit(X, y))
    thread.start()
    while thread.is_alive():
        now = _module_values()
        changed += [key for key, value in before.items() if key in now and now[key] != value]
        time.sleep(0.002)
    thread.join()
    after = _module_values()
    changed += [key for key, value in before.items() if key in after and after[key] != value]
    assert changed == []
    assert kinds and set(kinds) == {"compiled"}  # it did switch, without rebinding anything


def test_which_kernels_a_fit_gets(monkeypatch, tmp_path):
    monkeypatch.setattr(_compile, "cache_dir", lambda: str(tmp_path))
    monkeypatch.delenv("TURS_KERNELS", raising=False)
    small, large = 150 * 4, _compile.INTERPRETED_MAX_CELLS + 1
    assert (_compile.choose(small), _compile.choose(large)) == ("python", "compiled")
    _compile.mark_ready()  # what turs.warmup() does when it has compiled every kernel
    assert _compile.cache_is_ready() and _compile.choose(small) == "compiled"
    os.remove(_compile.ready_file(str(tmp_path)))
    assert _compile.choose(small, compiled_here=True) == "compiled"  # this process has them
    monkeypatch.setenv("TURS_KERNELS", "python")
    assert _compile.choose(large) == "python"
    monkeypatch.setenv("TURS_KERNELS", "fast")
    with pytest.raises(ValueError, match="TURS_KERNELS='fast'.*auto, compiled, python"):
        _compile.choose(small)
    monkeypatch.setenv("TURS_KERNELS", "auto")
    monkeypatch.setattr(_compile, "cache_folder", lambda: _compile.CacheFolder(None, None, "off"))
    assert _compile.choose(small) == "compiled"  # the cache is off (TURS_NUMBA_CACHE=0): compile
    monkeypatch.setattr(_compile, "cache_folder", lambda: _compile.CacheFolder(None, None, "not writable"))
    monkeypatch.setattr(_compile, "cache_dir", lambda: None)
    assert (_compile.choose(small), _compile.choose(large)) == ("python", "compiled")  # no cache to fill
    monkeypatch.setenv("TURS_KERNELS", "python")
    with kernel_sets.compiled_kernels():  # turs.warmup()'s fits
        with kernel_sets.kernels_for_fit(small) as fit:
            assert fit.kernels.kind == "compiled"


class _FakeLaunch:
    """``subprocess.run`` of the launcher: records it and prints a process id."""

    def __init__(self, pid):
        self.pid, self.calls = pid, []

    def __call__(self, args, env, **kw):
        self.calls.append((args, env))
        return subprocess.CompletedProcess(args, 0, stdout=f"{self.pid}\n", stderr="")


def test_one_background_compile_at_a_time(monkeypatch, tmp_path):
    launch = _FakeLaunch(os.getpid())  # a process that runs: this one
    monkeypatch.setattr(_compile, "cache_dir", lambda: str(tmp_path))
    monkeypatch.setattr(_compile.subprocess, "run", launch)
    assert _compile.compile_in_background()
    args, env = launch.calls[0]
    assert args[0] == sys.executable and "turs.warmup()" in args[-1]
    assert env["TURS_KERNELS"] == "compiled"
    lock = tmp_path / "turs-compiling.pid"
    assert lock.read_text().strip() == str(os.getpid())
    assert not _compile.compile_in_background() and len(launch.calls) == 1  # one is running
    os.utime(lock, (0, 0))  # a lock 10 minutes old or more: taken over whatever its process
    assert _compile.compile_in_background() and len(launch.calls) == 2


@pytest.mark.subprocess
def test_a_lock_whose_process_died_is_taken_over_at_once(monkeypatch, tmp_path):
    """A killed background compile leaves its lock; the next fit starts a compile at once."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = tmp_path / "turs-compiling.pid"
    lock.write_text(f"{dead.pid}\n")  # written a moment ago by a process that is gone
    launch = _FakeLaunch(4242)
    monkeypatch.setattr(_compile, "cache_dir", lambda: str(tmp_path))
    monkeypatch.setattr(_compile.subprocess, "run", launch)
    assert _compile.lock_is_stale(str(lock))
    assert _compile.compile_in_background() and len(launch.calls) == 1
    assert lock.read_text().strip() == "4242"


def test_a_python_fit_switches_to_the_compiled_kernels_when_the_cache_is_ready(monkeypatch, tmp_path):
    monkeypatch.setattr(_compile, "cache_dir", lambda: str(tmp_path))
    monkeypatch.setattr(_compile, "compile_in_background", lambda: True)
    monkeypatch.setattr(kernel_sets, "_serial_growth_compiled", lambda: False)
    monkeypatch.delenv("TURS_KERNELS", raising=False)
    with kernel_sets.kernels_for_fit(600) as fit:
        assert fit.kernels.kind == "python" and not kernel_sets.switch_when_ready()
        with kernel_sets.kernels_for_fit(600) as inner:  # a fit inside a fit keeps the outer set
            assert inner is fit
        _compile.mark_ready()  # the background compile has finished
        assert kernel_sets.switch_when_ready() and fit.kernels is kernel_sets.compiled_set()
        assert kernel_sets.current() is kernel_sets.compiled_set()
    assert kernel_sets.current_fit() is None


def test_a_first_compile_says_so_once(monkeypatch, tmp_path):
    """A fit about to compile (cold cache, a table above the Python bound) warns once per
    process: what, about how long, and how to do it ahead."""
    monkeypatch.setattr(_compile, "_said", set())
    monkeypatch.setattr(_compile, "cache_dir", lambda: str(tmp_path))
    monkeypatch.setattr(kernel_sets, "_serial_growth_compiled", lambda: False)
    monkeypatch.delenv("TURS_KERNELS", raising=False)
    large = _compile.INTERPRETED_MAX_CELLS + 1
    with pytest.warns(_compile.CompileWarning) as said:
        with kernel_sets.kernels_for_fit(large) as fit:
            assert fit.compiling and fit.kernels.kind == "compiled"
    assert len(said) == 1
    text = str(said[0].message)
    assert "compiling the numba kernels" in text and "about 1 to 2 minutes" in text
    assert "turs.warmup()" in text and "python -m turs warmup" in text and f"{large:,}" in text
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with kernel_sets.kernels_for_fit(large):  # once per process
            pass
        _compile.mark_ready()
        with kernel_sets.kernels_for_fit(large) as fit:  # a filled cache: nothing to say
            assert not fit.compiling
    assert [w for w in caught if issubclass(w.category, _compile.CompileWarning)] == []


def test_the_compile_bar_counts_what_numba_compiles():
    from numba import njit

    class Bar:
        n, postfix = 0, ""

        def update(self, k):
            self.n += k

        def set_postfix_str(self, text, refresh=True):
            self.postfix = text

    @njit(cache=False)
    def _fresh_kernel_for_the_bar(x):
        return x + 1

    bar = Bar()
    with _compile.compile_progress(bar):
        assert _fresh_kernel_for_the_bar(1) == 2
    assert bar.n >= 1 and bar.postfix
    n = bar.n
    _fresh_kernel_for_the_bar(2.5)  # outside: not counted
    assert bar.n == n


def test_a_verbose_fit_that_compiles_shows_a_bar(monkeypatch, capsys):
    """``verbose=True`` on a fit about to compile: a bar of the compile beside the rules' bar;
    without a compile to come, none."""
    monkeypatch.setattr(_compile, "_said", {"first compile"})  # the notice was given already
    monkeypatch.setattr(_compile, "choose", lambda n_cells, compiled_here=False: "compiled")
    X, y = load_iris(return_X_y=True, as_frame=True)
    monkeypatch.setattr(_compile, "compile_pending", lambda compiled_here: True)
    TURSClassifier(verbose=1).fit(X, y)
    assert "compiling the turs kernels (once)" in capsys.readouterr().err
    monkeypatch.setattr(_compile, "compile_pending", lambda compiled_here: False)
    TURSClassifier(verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert "TURS rules" in err and "compiling the turs kernels" not in err


_FIRST_FIT = textwrap.dedent("""
    import gc, warnings
    warnings.simplefilter("always", ResourceWarning)
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
    gc.collect()
    print(len(compiled), repr(m.mdl_score_), len(m.rules_))
""")


def _stop_background(folder):
    for lock in glob.glob(os.path.join(str(folder), "**", "turs-compiling.pid"), recursive=True):
        try:
            os.killpg(int(open(lock).read().split()[0]), 15)
        except (ProcessLookupError, ValueError, PermissionError, IndexError):
            pass


@pytest.mark.subprocess
def test_a_first_fit_on_an_empty_cache_compiles_nothing(tmp_path):
    """A fresh process on an empty numba cache fits iris without compiling a kernel (numba's
    compile events), gets the rules of the compiled kernels, and leaves no ResourceWarning
    for the background compile it started."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), TURS_KERNELS="auto")
    out = subprocess.run([sys.executable, "-c", _FIRST_FIT], env=env, capture_output=True, text=True, timeout=300)
    try:
        assert out.returncode == 0, out.stderr
        n_compiled, mdl, n_rules = out.stdout.split()
        X, y = load_iris(return_X_y=True, as_frame=True)
        assert int(n_compiled) == 0
        assert float(mdl) == TURSClassifier().fit(X, y).mdl_score_ and int(n_rules) == 2
        assert "ResourceWarning" not in out.stderr and "CompileWarning" not in out.stderr
        assert glob.glob(os.path.join(str(tmp_path), "**", "turs-compiling.pid"), recursive=True)  # it started one
    finally:
        _stop_background(tmp_path)


def _not_a_folder(tmp_path, name):
    """A path no process can make a folder at (its parent is a file): unwritable, even for root."""
    blocker = tmp_path / f"{name}-is-a-file"
    blocker.write_text("")
    return str(blocker / name)


@pytest.mark.subprocess
def test_no_writable_cache_folder_runs_the_kernels_uncached_and_says_so(tmp_path):
    """The package in a folder it cannot write to, ``NUMBA_CACHE_DIR`` unset and ``HOME`` not
    writable: ``import turs`` works (numba alone raises "no locator available"), one warning
    names ``NUMBA_CACHE_DIR``, and a small fit runs the kernels as Python."""
    import shutil

    import turs

    package = tmp_path / "site"
    shutil.copytree(os.path.dirname(turs.__file__), package / "turs",
                    ignore=shutil.ignore_patterns("__pycache__", "*.ready", "*.pid"))
    (package / "turs" / "_core" / "__pycache__").write_text("")  # numba's in-tree folder cannot be made
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "TURS_KERNELS")}
    env.update(PYTHONPATH=str(package), HOME=_not_a_folder(tmp_path, "home"), PYTHONDONTWRITEBYTECODE="1")
    code = textwrap.dedent("""
        import warnings
        warnings.simplefilter("always")
        import turs
        from turs import _compile
        from turs._core import kernels
        from sklearn.datasets import load_iris
        assert turs.__file__.startswith(%r), turs.__file__
        X, y = load_iris(return_X_y=True, as_frame=True)
        with kernels.kernels_for_fit(600) as fit:
            kind = fit.kernels.kind
        print(_compile.cache_dir(), kind, repr(turs.TURSClassifier().fit(X, y).mdl_score_))
    """ % str(package))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    folder, kind, mdl = out.stdout.split()
    X, y = load_iris(return_X_y=True, as_frame=True)
    assert (folder, kind) == ("None", "python") and float(mdl) == TURSClassifier().fit(X, y).mdl_score_
    said = [line for line in out.stderr.splitlines() if "CompileWarning" in line]
    assert len(said) == 1 and "no folder for numba's compile cache is writable" in said[0]
    assert "NUMBA_CACHE_DIR" in said[0]


@pytest.mark.subprocess
def test_a_read_only_cache_folder_says_so_and_info_shows_where(tmp_path):
    """``NUMBA_CACHE_DIR`` not writable: one warning says so and where the kernels go instead
    (the next folder numba can write to), and ``python -m turs info`` shows both."""
    home = tmp_path / "home"
    home.mkdir()
    asked = _not_a_folder(tmp_path, "cache")
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "TURS_KERNELS")}
    env.update(NUMBA_CACHE_DIR=asked, HOME=str(home))
    out = subprocess.run([sys.executable, "-W", "always", "-m", "turs", "info"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    said = [line for line in out.stderr.splitlines() if "CompileWarning" in line]
    assert len(said) == 1 and f"{asked} is not writable" in said[0]
    lines = out.stdout.splitlines()
    folder = next(line for line in lines if line.startswith("cache folder: "))
    taken = folder[len("cache folder: "):-len(" (writable)")]
    assert folder.endswith("(writable)") and f"compiled into {taken} instead" in said[0]
    assert not taken.startswith(asked) and os.path.isdir(taken)  # the next folder numba can write
    assert f"asked for: {asked} (not writable)" in lines
    assert "every kernel compiled into it: no (turs.warmup() or python -m turs warmup)" in lines


@pytest.mark.subprocess
def test_info_names_the_cache_and_what_is_compiled():
    """Under ``make`` the cache is ``build/numba_cache``, filled and marked by ``turs.warmup()``."""
    out = subprocess.run([sys.executable, "-m", "turs", "info"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    folder = next(line for line in lines if line.startswith("cache folder: "))
    assert folder.startswith(f"cache folder: {_compile.cache_dir()}") and folder.endswith("(writable)")
    assert "every kernel compiled into it: yes" in lines
    assert "compiled or loaded in this process: 0 kernels" in lines


@pytest.mark.slow
def test_twenty_small_fits_while_a_large_fit_compiles(tmp_path):
    """One large fit compiles the kernels on an empty cache in one thread while 20 small fits
    start in other threads and run them as Python: none crashes (numba once found a Python
    function where it expected a kernel), and all give the models they give alone."""
    code = textwrap.dedent("""
        import threading
        import turs
        from turs import _compile
        from sklearn.datasets import load_iris, load_wine
        _compile.INTERPRETED_MAX_CELLS = 1_000  # wine compiles, iris runs as Python
        _compile.compile_in_background = lambda: False  # one compile: the large fit's
        Xs, ys = load_iris(return_X_y=True, as_frame=True)
        Xl, yl = load_wine(return_X_y=True, as_frame=True)
        results, errors = [], []

        def fit(X, y, name):
            try:
                results.append((name, turs.TURSClassifier().fit(X, y).mdl_score_))
            except BaseException as e:
                errors.append(repr(e))

        large = threading.Thread(target=fit, args=(Xl, yl, "large"))
        large.start()
        small = []
        for i in range(20):
            t = threading.Thread(target=fit, args=(Xs, ys, "small"))
            t.start()
            small.append(t)
            if i % 4 == 3:
                for s in small[-4:]:
                    s.join()
        for t in [large, *small]:
            t.join()
        print(errors)
        for name, mdl in results:
            print(name, repr(mdl))
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), TURS_KERNELS="auto")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[]"
    got = [line.split() for line in lines[1:]]
    Xs, ys = load_iris(return_X_y=True, as_frame=True)
    Xl, yl = load_wine(return_X_y=True, as_frame=True)
    expected = {"small": TURSClassifier().fit(Xs, ys).mdl_score_, "large": TURSClassifier().fit(Xl, yl).mdl_score_}
    assert sorted(name for name, _ in got) == ["large"] + ["small"] * 20
    assert all(float(mdl) == expected[name] for name, mdl in got)
