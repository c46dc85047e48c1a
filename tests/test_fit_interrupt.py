"""Ctrl-C during a long fit: SIGINT sent to a fit in a subprocess at several moments
stops it with KeyboardInterrupt before the fit is done, leaves the estimator unfitted (an earlier
fit intact), and the Python session goes on to fit again. (How soon it stops is a timing, not
a test: these tests only check that it stops before the work is done.)"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted
    from turs import TURSClassifier, warmup

    X, y = make_classification(n_samples=6000, n_features=20, n_informative=8, n_redundant=4,
                               flip_y=0.05, class_sep=0.8, random_state=0)
    warmup()  # JIT warm whatever ran before in this session (a kernel compiled mid-fit holds Ctrl-C)
    small = TURSClassifier().fit(X[:300], y[:300])  # a model fitted before
    rules_before = [str(r) for r in small.rules_]
    for model in (TURSClassifier(), small):
        print("READY", flush=True)
        t0 = time.monotonic()
        try:
            model.fit(X, y)
            print("FINISHED", flush=True)
        except KeyboardInterrupt:
            print("INTERRUPTED", time.monotonic(), flush=True)
        if model is small:
            print("KEPT", [str(r) for r in model.rules_] == rules_before, flush=True)
        else:
            try:
                check_is_fitted(model)
                print("FITTED", flush=True)
            except NotFittedError:
                print("UNFITTED", flush=True)
    again = TURSClassifier().fit(X[:200], y[:200])
    print("AGAIN", again.predict_proba(X[:5]).shape == (5, 2), flush=True)  # the session still fits and predicts
""")


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.3, 1.5])
def test_sigint_stops_a_fit_and_leaves_no_half_model(delay):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p or os.getcwd() for p in sys.path))
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    lines = []
    try:
        for _ in range(2):  # an unfitted estimator, then one fitted before
            while True:
                line = proc.stdout.readline()
                assert line, f"child ended early: {lines} {proc.stderr.read()}"
                lines.append(line.strip())
                if line.startswith("READY"):
                    break
            time.sleep(delay)
            proc.send_signal(signal.SIGINT)
            line = proc.stdout.readline().strip()
            lines.append(line)
            assert line.startswith("INTERRUPTED"), (lines, proc.stderr.read() if line == "" else "")
        # read the rest through the same buffered stream as readline: communicate() reads the
        # pipe's file descriptor and would miss lines readline already buffered
        out = proc.stdout.read()
        err = proc.stderr.read()
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines += out.split("\n")
    assert "UNFITTED" in lines and "FITTED" not in lines, lines
    assert "KEPT True" in lines, lines
    assert "AGAIN True" in lines, (lines, err)
    assert "SystemError" not in err, err


TABLE_CHILD = textwrap.dedent("""
    import signal, time
    from turs._core.regret import log2_regret_table
    # Ctrl-C's handler as an interactive session has it: a job started in the background
    # inherits SIGINT ignored, and Python then installs none (a fit installs its own)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    log2_regret_table(2000, 2)  # compiled (or loaded from the cache) before the signal
    print("READY", flush=True)
    try:
        log2_regret_table(3_000_000, 2)  # about 10 s of series on two cores
        print("FINISHED", flush=True)
    except KeyboardInterrupt:
        print("INTERRUPTED", time.monotonic(), flush=True)
""")


@pytest.mark.slow
def test_sigint_stops_a_large_regret_table_before_it_is_done():
    """The regret table a fit on millions of rows makes before its first search (the series of
    3 million entries, about 10 s) is made in jitted calls of bounded work: Ctrl-C raises
    between two of them, not when the table is done."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p or os.getcwd() for p in sys.path))
    proc = subprocess.Popen([sys.executable, "-c", TABLE_CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("READY"), (line, proc.stderr.read())
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline().strip()
        assert line.startswith("INTERRUPTED"), (line, proc.stderr.read())  # not "FINISHED"
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
