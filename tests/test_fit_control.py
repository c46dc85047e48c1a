"""turs._fit_control: Ctrl-C becomes a KeyboardInterrupt at a checkpoint, the time budget, the
progress line, and the SIGINT handler is restored."""
from __future__ import annotations

import os
import signal
import threading
import time
import warnings

import pytest

from turs._fit_control import FitControl, active, checkpoint, fit_control


class FakeBar:
    def __init__(self):
        self.n = 0
        self.postfix = None
        self.refreshes = 0

    def set_postfix(self, **post):  # as the explorer's worker bar: keywords only
        self.postfix = dict(post)

    def refresh(self):
        self.refreshes += 1


def test_checkpoint_outside_a_fit_does_nothing():
    assert active() is None
    checkpoint()


def test_sigint_during_a_fit_is_deferred_to_the_next_checkpoint():
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt, match="interrupted"):
        with fit_control() as control:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler runs here; it must not raise
            assert control.interrupted
            checkpoint()
            pytest.fail("checkpoint() must raise")
    assert signal.getsignal(signal.SIGINT) is before
    assert active() is None


def test_sigint_in_the_last_kernel_call_raises_when_the_fit_ends():
    with pytest.raises(KeyboardInterrupt):
        with fit_control():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)


def test_a_second_ctrl_c_raises_at_once():
    with pytest.raises(KeyboardInterrupt):
        with fit_control():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            pytest.fail("the second SIGINT must raise in the handler")


def test_time_budget_is_sticky():
    control = FitControl(max_time=0.05)
    assert not control.time_is_up()
    time.sleep(0.06)
    assert control.time_is_up() and control.time_is_up()
    assert not FitControl(max_time=None).time_is_up()


def test_progress_line_shows_rules_mdl_and_elapsed_at_most_once_per_refresh():
    bar = FakeBar()
    with fit_control(bar=bar, refresh=10.0) as control:
        control.rule_set(3, 1234.56)
        assert bar.n == 3 and bar.postfix["rules"] == 3 and bar.postfix["mdl"] == "1234.6"
        assert bar.postfix["elapsed"].endswith("s")
        n = bar.refreshes
        for _ in range(100):
            checkpoint()
        assert bar.refreshes == n  # throttled: not due for 10 s
    bar2 = FakeBar()
    with fit_control(bar=bar2, refresh=0.0):
        checkpoint()
        checkpoint()
    assert bar2.refreshes == 3  # two checkpoints and the check when the fit ends


def test_no_handler_is_installed_outside_the_main_thread():
    seen = {}

    def work():
        before = signal.getsignal(signal.SIGINT)
        with fit_control() as control:
            seen["same_handler"] = signal.getsignal(signal.SIGINT) is before
            seen["active"] = active() is control
        seen["after"] = active()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == {"same_handler": True, "active": True, "after": None}


def _fake_clock(monkeypatch):
    """A clock of turs._fit_control that advances one second per reading."""
    import types

    import turs._fit_control as fc

    ticks = iter(range(10_000))
    monkeypatch.setattr(fc, "time", types.SimpleNamespace(monotonic=lambda: float(next(ticks))))


def test_max_time_stops_adding_rules_and_keeps_a_valid_model(monkeypatch):
    from sklearn.datasets import load_breast_cancer

    from turs import TURSClassifier, mdl_score

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    full = TURSClassifier(record_trace=True).fit(X, y)
    assert len(full.rules_) > 2
    # the clock reads 0 at the start and 1, 2, 3 before each rule search: with 2.5 s two
    # searches run, and the third does not start
    _fake_clock(monkeypatch)
    with pytest.warns(UserWarning, match=r"stopped adding rules after max_time=2.5 s .*2 rules"):
        short = TURSClassifier(max_time=2.5, record_trace=True).fit(X, y)
    assert [str(r) for r in short.rules_] == [str(r) for r in full.rules_[:2]]
    assert short.mdl_score_ == pytest.approx(mdl_score(short.rules_, X, y, encoder=short.encoder_).total, abs=1e-9)
    assert short.trace_.searches[-1]["fit_stop"]["reason"] == "max_time"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(TURSClassifier(max_time=1e6).fit(X, y).rules_) == len(full.rules_)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "10", True])
def test_max_time_must_be_positive_seconds(bad):
    from sklearn.datasets import load_iris

    from turs import TURSClassifier

    with pytest.raises(ValueError, match="'max_time' parameter of TURSClassifier must be a number of seconds > 0"):
        TURSClassifier(max_time=bad).fit(*load_iris(return_X_y=True))
