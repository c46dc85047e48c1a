"""turs.explorer.Explorer / explore(): data, settings, a cancellable re-fit in a worker
process, Compare (no browser)."""
import time

import numpy as np
import pandas as pd
import pytest

W = pytest.importorskip("ipywidgets", reason="ipywidgets is not installed (pip install -e '.[explorer]')")

from turs import TURSClassifier  # noqa: E402
from turs.datasets import load_bundled  # noqa: E402
from turs.explorer import Explorer, explore  # noqa: E402
from turs.explorer._fit import FitJob  # noqa: E402
from turs.explorer._studio import fit_summary, read_csv  # noqa: E402


def test_refit_without_the_local_test_changes_the_rules_and_compare_shows_both():
    app = Explorer(dataset="sim-local-testing")
    first = app.fits[-1]
    assert first["settings"]["use_local_test"] is True and first["name"].endswith("defaults")
    app.use_local_test.value = False
    job = app.refit(wait=True)
    assert job.state == "done" and job.rules == len(job.model.rules_)  # the progress reached the end
    second = app.fits[-1]
    assert second["settings"]["use_local_test"] is False and "use_local_test=False" in second["name"]
    # thesis Table 3.6: without the local test the rules grow long on the noise columns
    assert second["summary"]["literals"] > first["summary"]["literals"]
    assert str(second["model"]) != str(first["model"])
    assert app.explorer.view.trace is not None and app.search_area.children[0] is app.explorer
    # the same fit in this process gives the same rules (the worker is a plain fit)
    again = TURSClassifier(use_local_test=False).fit(app.X_train, app.y_train)
    assert str(again) == str(second["model"])
    html = app.compare_html.value
    for key in ("rules", "literals", "MDL score (bits)", "train ROC-AUC", "test ROC-AUC"):
        assert key in html
    assert f"{second['summary']['mdl']:.2f}" in html and f"{first['summary']['mdl']:.2f}" in html
    assert html.count("TURS rule set") == 2
    # the numbers shown are the model's
    s = fit_summary(second["model"], app.X_train, app.y_train, app.X_test, app.y_test)
    assert s["mdl"] == pytest.approx(second["model"].mdl_score_)
    assert len(app.X_test) == round(0.3 * 5000) and len(app.X_train) == 3500


def test_cancel_stops_the_worker_process():
    X, y = load_bundled("sim-local-testing")
    job = FitJob(X, y, {"use_local_test": False, "beam_width": 30}).start()
    time.sleep(0.5)
    assert job.poll() == "running" and job.alive
    t = time.perf_counter()
    job.cancel()
    assert time.perf_counter() - t < 3 and not job.alive and job.state == "cancelled"
    assert job._proc.exitcode is not None and job._proc.exitcode != 0  # stopped, not finished


def test_bad_settings_come_back_as_an_error():
    X, y = load_bundled("sklearn-iris")
    job = FitJob(X, y, {"beam_width": 0}).start()
    assert job.wait(120) == "error" and "beam_width" in job.error


def test_explore_a_dataframe_with_categories_and_a_csv():
    from turs.explorer._studio import mixed_demo

    X, y = mixed_demo(400, 1)
    app = explore(X, y, beam_width=5, test_size=0.25)
    assert app.fits[-1]["settings"]["beam_width"] == 5 and app.data_name == "your data"
    e = app.explorer
    assert e.data.kinds["colour"] == "categorical"
    assert e.data.is_categorical(e.x_feature.value) or e.data.is_categorical(e.y_feature.value)
    csv = pd.concat([X, y], axis=1).to_csv(index=False).encode()
    df, label = read_csv(csv)
    assert label == "label" and list(df.columns) == ["colour", "size", "weight", "age", "label"]
    with pytest.raises(ValueError, match="no column 'nope'"):
        read_csv(csv, "nope")
    with pytest.raises(ValueError, match="at least one feature"):
        read_csv(b"a\n1\n2\n")
