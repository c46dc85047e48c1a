"""`make reproduce PROFILE=paper COMPUTE=0` redraws the committed paper figures from the committed
records alone: no dataset, no network, no fit, and the same bytes as the files in ``figures/``.

Every notebook that writes a committed paper figure or table is run in this process (no kernel:
the notebooks' own work takes seconds) with ``TURS_REPRODUCE_COMPUTE=0``, ``TURS_DATA_DIR`` and
the dataset cache pointing at empty folders, every HTTP(S) request sent to a closed local port,
an empty results folder, and the estimators' ``fit`` and the harness' ``run`` replaced by
functions that fail the test if the notebook calls them with work to do. Each file it writes that
``figures/`` holds under git must then equal the committed one byte for byte (so the redraw
leaves ``git status`` clean); a notebook or style change that alters a committed figure fails
here until the figure is regenerated and committed on purpose.
"""
from __future__ import annotations

import subprocess

import pytest

from _notebook_helpers import REPO, changed, execute_in_process, tree_snapshot

pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")

#: The notebooks that draw committed paper figures and tables (fig3_1 and the tutorial draw on
#: simulated data and are executed by their own tests).
PAPER_NOTEBOOKS = ["ablation_auxiliary_beam", "fig3_2_gap_to_best", "fig3_3_probability_generalization",
                   "fig3_4_model_complexity", "fig3_5_diverse_patience", "fig3_7_runtime", "preferred_variables",
                   "seed_learners", "table3_3_roc_auc", "table3_4_random_picking", "table3_6_fig3_6_local_testing"]


def committed_figures() -> set[str]:
    listed = subprocess.run(["git", "ls-files", "figures"], capture_output=True, text=True, cwd=REPO)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the committed figures cannot be listed")
    return {p.split("/", 1)[1] for p in listed.stdout.split() if not p.endswith(".gitkeep")}


@pytest.fixture(scope="module")
def redrawn(tmp_path_factory):
    """Every paper notebook run offline on empty data folders; returns the output folder."""
    import turs.bench
    import turs.competitors.lire
    import turs.competitors.submodular
    from turs import TURSClassifier

    root = tmp_path_factory.mktemp("paper_redraw")
    out, results = root / "figures", root / "results"
    for folder in (root / "data", root / "cache", results):
        folder.mkdir()
    fits = []

    def no_fit(self, *args, **kwargs):
        fits.append(type(self).__name__)
        raise AssertionError(f"{type(self).__name__}.fit was called during a COMPUTE=0 redraw")

    real_run = turs.bench.run

    def no_tasks(tasks, *args, **kwargs):
        assert not list(tasks), f"the harness was asked to run {len(list(tasks))} task(s) with COMPUTE=0"
        return real_run([], *args, **kwargs)

    before, known = tree_snapshot(), set(turs.bench.list_algorithms())
    with pytest.MonkeyPatch.context() as mp:
        for key, value in {"TURS_REPRODUCE_COMPUTE": "0", "TURS_DATA_DIR": str(root / "data"),
                           "TURS_CACHE_DIR": str(root / "cache")}.items():
            mp.setenv(key, value)
        for key in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
            mp.setenv(key, "http://127.0.0.1:9")  # the discard port: a download attempt fails at once
        for key in ("NO_PROXY", "no_proxy"):
            mp.delenv(key, raising=False)
        mp.setattr(TURSClassifier, "fit", no_fit)
        mp.setattr(turs.competitors.lire.LIREClassifier, "fit", no_fit)
        mp.setattr(turs.competitors.submodular.SubmodularRuleSetClassifier, "fit", no_fit)
        mp.setattr(turs.bench, "run", no_tasks)
        for name in PAPER_NOTEBOOKS:
            execute_in_process(name, {"profile": "paper", "out_dir": str(out), "results_dir": str(results)})
    for name in set(turs.bench.list_algorithms()) - known:  # e.g. the preferred-variables study's learner
        turs.bench.unregister_algorithm(name)
    assert not fits
    assert not changed(before, tree_snapshot()), "the redraw wrote into the repository"
    assert not any(results.iterdir()), "the redraw wrote benchmark records"
    return out


@pytest.mark.slow
def test_the_paper_redraw_needs_no_dataset_network_or_fit_and_gives_the_committed_files(redrawn):
    committed = committed_figures()
    written = {p.name for p in redrawn.iterdir()}
    compared = sorted(committed & written)
    # every committed figure of these notebooks is redrawn (the local explanation figure of the
    # seed learners is the one whose data was not committed)
    assert {"fig3_2_gap_to_best.png", "fig3_3_probability_generalization.png", "fig3_4_model_complexity.png",
            "fig3_4_local_explanation.png", "fig3_5_diverse_patience.png", "fig3_6_local_testing.png",
            "fig3_7_runtime.png", "ablation_auxiliary_beam.png", "preferred_variables.png",
            "seed002_fig3_lambda_sweep.png", "table3_3_roc_auc.csv", "table3_6_local_testing.md"} <= set(compared)
    differ = [name for name in compared if (redrawn / name).read_bytes() != (REPO / "figures" / name).read_bytes()]
    assert not differ, (f"the COMPUTE=0 redraw differs from the committed {differ}: regenerate them with "
                        "`make reproduce PROFILE=paper COMPUTE=0` and commit them (git add -f)")


def test_the_study_tables_export_to_where_the_notebooks_read_them(tmp_path):
    """tools/export_paper_results.py --studies copies a computed run's study tables byte for byte
    to the committed records the COMPUTE=0 redraw reads, and every one of them is committed."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("export_paper_results", REPO / "tools" / "export_paper_results.py")
    export = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(export)
    for target in export.STUDY_TABLES.values():
        assert (REPO / "data" / "results" / target).is_file(), target
    run = tmp_path / "figures"
    run.mkdir()
    (run / "preferred_variables.csv").write_bytes(b"dataset,setting\r\niris,none\n")
    (run / "local_testing_runs.csv").write_text("dataset,local_testing\n0,Yes\n")
    (run / "fig3_2_gap_to_best.csv").write_text("not a study table\n")
    written = export.export_studies(run, tmp_path / "data_results")
    assert written == ["preferred_variables_paper.csv", "local_testing_runs.csv"]
    assert (tmp_path / "data_results" / "preferred_variables_paper.csv").read_bytes() == b"dataset,setting\r\niris,none\n"
    assert sorted(p.name for p in (tmp_path / "data_results").iterdir()) == ["local_testing_runs.csv",
                                                                           "preferred_variables_paper.csv"]
