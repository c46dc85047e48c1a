"""The class tutorial (``notebooks/tutorial_mdl_rule_sets.py``) and its class kit.

* The source runs through ``tools/run_notebook.py`` (papermill, as ``make reproduce`` does) into a
  temporary folder, writes nothing into the repository, and its figures are readable.
* With the solutions every exercise's check passes, and each answer equals a value recomputed
  here independently: from the data and the definitions, or from ``turs.mdl_score``, never from
  the notebook's own helpers or the search trace.
* What the text claims is measured: the cut points read "just above 5", the union estimate is
  farthest from the observed frequencies where the text says and MDL rejects {A, B} there, the
  blocked literals are not the worst by r, and the auxiliary beam changes the fit on seed 2 of
  the blockade simulation (and not on seed 0).
* The 90-minute path adds up, and the student code uses only public names.
* The class kit (``tools/make_class.py``, ``make class``): the students' notebook has no solution
  code; run blank, every check fails with its message and nothing else fails; run with the
  teacher's answers filled in, every check passes. Its search pages are titled with their data;
  it carries the turs wheel, and its README says how to install it and what comes from PyPI.
  That no answer can be copied from the screen is ``tests/test_tutorial_copy.py``.
* JupyterLab started with the project's settings (``make lab``'s ``jupyter-config``) opens the
  ``.py`` as a notebook on a double-click (headless Chromium; marker ``browser``).
"""
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _browser import CHROMIUM, CHROMIUM_ARGS, VIEWPORT
from _notebook_helpers import NOTEBOOKS, REPO, assert_readable_png, changed, run_notebook, tree_snapshot
from turs import Condition, TURSClassifier, mdl_score
from turs._core.codes import universal_integer_code
from turs.datasets import load_bundled, make_local_testing_data, make_overlap_blockade_data
from turs.encoding import FeatureEncoder

pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
jupytext = pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")

NAME = "tutorial_mdl_rule_sets"
N_EXERCISES = 8
FIGURES = ["regret", "union", "parts", "first_step", "patience", "local_test", "blockade", "real"]
M_TEXT = ["X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"]


def source_notebook():
    return jupytext.read(NOTEBOOKS / f"{NAME}.py")


def tags(cell) -> list:
    return cell.metadata.get("tags", [])


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("tutorial")
    before = tree_snapshot()
    run_notebook(NAME, out, output=out / "executed.ipynb")
    assert not written_by_us(before), f"the tutorial wrote into the repository: {written_by_us(before)}"
    answers = pd.read_csv(out / f"{NAME}_answers.csv")
    return out, stdout_of(out / "executed.ipynb"), \
        dict(zip(answers["exercise"].str.split(":").str[0].astype(int), answers["answer"]))


def stdout_of(path: Path) -> str:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.get("output_type") == "stream")


def written_by_us(before: dict) -> list:
    """Files of the repository's figures/, data/results/ and notebooks/ that changed and that the
    tutorial could have written (its own names, or anything in notebooks/). Other processes (a
    benchmark or reference check running on the same tree) may change other figures meanwhile."""
    return [p for p in changed(before, tree_snapshot()) if NAME in p or p.startswith("notebooks/")]


def errors(cell) -> list:
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]


# ------------------------------------------------------------------------- structure
def test_every_exercise_has_a_blank_a_hidden_solution_and_a_check():
    nb = source_notebook()
    params = [c for c in nb.cells if "parameters" in tags(c)]
    assert len(params) == 1 and "show_solutions = True" in params[0].source
    for k in range(1, N_EXERCISES + 1):
        blanks = [c for c in nb.cells if c.cell_type == "code" and f"answer_{k} = None  # your code here" in c.source]
        solutions = [c for c in nb.cells if "solution" in tags(c) and f"answer_{k} = " in c.source]
        checks = [c for c in nb.cells if "check" in tags(c) and f"Exercise {k}:" in c.source]
        assert len(blanks) == len(solutions) == len(checks) == 1, f"exercise {k}: {len(blanks)} blank, " \
            f"{len(solutions)} solution, {len(checks)} check cells; each needs exactly one"
        assert solutions[0].source.startswith("if show_solutions:"), f"exercise {k}: the solution runs without show_solutions"
        assert "assert " in checks[0].source
    assert sum("check" in tags(c) for c in nb.cells) == N_EXERCISES


def minute_plan() -> pd.DataFrame:
    text = source_notebook().cells[0].source
    rows = [[x.strip() for x in line.strip("# ").strip("|").split("|")] for line in text.splitlines()
            if re.match(r"^\|\s*\d\s*\|", line)]
    return pd.DataFrame(rows, columns=["section", "topic", "data", "minutes", "exercise"])


def test_the_90_minute_path_adds_up_and_names_core_and_homework():
    plan = minute_plan()
    assert plan["section"].tolist() == [str(i) for i in range(9)]
    minutes = plan["minutes"].astype(int)
    assert (minutes > 0).all() and minutes.sum() <= 90, f"the path takes {minutes.sum()} minutes"
    kinds = {int(m.group(1)): m.group(2) for m in map(re.compile(r"(\d) \((core|homework)\)").search, plan["exercise"]) if m}
    assert sorted(kinds) == list(range(1, N_EXERCISES + 1))
    nb = source_notebook()
    for k, kind in kinds.items():  # each exercise's heading says the same as the plan
        assert any(c.cell_type == "markdown" and f"### Exercise {k} ({kind})" in c.source for c in nb.cells), k
    total = next(line for line in nb.cells[0].source.splitlines() if "| total |" in line)
    assert f"| {minutes.sum()} |" in total


PRIVATE = re.compile(r"\bturs\._|from turs\.\w+\._|from \._|\.\_[a-z]\w*|\b_[a-z]\w*\(")


def test_student_code_uses_only_public_names():
    nb = source_notebook()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            found = PRIVATE.findall(cell.source)
            assert not found, f"cell {i} uses private names: {found}"


def test_the_text_says_what_it_measures():
    text = (NOTEBOOKS / f"{NAME}.py").read_text(encoding="utf-8")
    assert "CART paths" not in text and "least of all" not in text
    assert "(The paths of a decision tree are neither" in text
    assert "**§1 uses the thesis' model code**" in text and "the switch to the\n# default model code" in text


def test_no_green_and_red_in_the_source():
    text = (NOTEBOOKS / f"{NAME}.py").read_text(encoding="utf-8")
    for colour in ("tab:green", "tab:red", '"green"', '"red"'):
        assert colour not in text, f"the tutorial draws with {colour}; use turs.style's colours"


# ------------------------------------------------------------------------- with the solutions
@pytest.mark.slow
def test_runs_with_every_answer_and_readable_figures(solved):
    out, _, answers = solved
    assert sorted(answers) == list(range(1, N_EXERCISES + 1)), f"answers written: {sorted(answers)}"
    for stem in FIGURES:
        assert_readable_png(out / f"{NAME}_{stem}.png")


TINY = pd.DataFrame({"x1": np.arange(12.0), "x2": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8.0],
                     "x3": [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5.0]})
Y_TINY = np.array([0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0])


def log2_regret_brute(n: int, n_classes: int = 2) -> float:
    """log2 R(n, 2) (Eq. 3.11) by enumerating the number of ones."""
    assert n_classes == 2
    return math.log2(sum(math.comb(n, k) * (k / n) ** k * ((n - k) / n) ** (n - k) for k in range(n + 1))) if n else 0.0


def nml_brute(counts) -> float:
    counts = np.asarray(counts, dtype=float)
    nz = counts[counts > 0]
    return float(-(nz * np.log2(nz / nz.sum())).sum()) + log2_regret_brute(int(counts.sum()))


@pytest.mark.slow
def test_section1_rule_code_by_hand_and_cut_points_as_read(solved):
    out, stdout, answers = solved
    steps = pd.read_csv(out / f"{NAME}_rule_steps.csv").set_index("part")["bits"]
    bd = mdl_score([[Condition("x1", low=5.5), Condition("x2", high=5.5)]], TINY, Y_TINY, model_encoding="thesis")
    assert steps["total"] == pytest.approx(bd.total, abs=1e-9)
    # hand values: log2 3 + log2 3 + (2 + log2 11) + (2 + log2 6). x2's quantile cuts are
    # 1.5, 2.5, 3+, 4.5, 5+, 5+, 5.5 ("v+": just above v); the 6 rows with x1 >= 5.5 have
    # x2 in [2, 8], which 2.5, 3+, 4.5, 5+, 5+ and 5.5 split: the repeated 5+ counts twice.
    assert steps["L(S)"] == pytest.approx(2 * np.log2(3) + 4 + np.log2(11) + np.log2(6), abs=1e-9)
    assert "cut points of x2: 1.5, 2.5, just above 3, 4.5, just above 5, just above 5, 5.5\n" in stdout
    assert "0000000" not in stdout.split("cut points of x2:")[1].split("\n")[0]
    # the default model code charges L_univ(2) instead of log2 3 and no form/operator bits
    default = mdl_score([[Condition("x1", low=5.5), Condition("x2", high=5.5)]], TINY, Y_TINY)
    assert f"default (authors') code {default.rule_model_bits[0]:.4f} bits" in stdout
    assert default.rule_model_bits[0] == pytest.approx(
        steps["L(S)"] - math.log2(3) + universal_integer_code(2) - 4, abs=1e-9)
    # exercise 1: the 4 covered rows (x1 >= 6, x2 < 5.5: rows 6, 8, 9, 10) have labels 1, 1, 0, 1:
    # ML -log2(1/4) - 3 log2(3/4) bits + log2 R(4, 2)
    covered = (TINY["x1"] >= 5.5) & (TINY["x2"] < 5.5)
    assert np.flatnonzero(covered).tolist() == [6, 8, 9, 10]
    assert np.bincount(Y_TINY[covered], minlength=2).tolist() == [1, 3]
    assert answers[1] == pytest.approx(nml_brute([1, 3]), abs=1e-9)
    assert answers[1] == pytest.approx(2 - 3 * math.log2(0.75)
                                       + math.log2(1 + 4 * 0.75 ** 3 * 0.25 + 6 / 16 + 4 * 0.75 ** 3 * 0.25 + 1), abs=1e-9)


@pytest.mark.slow
def test_sections2_3_union_estimate_its_misfit_and_model_bits(solved):
    out, stdout, answers = solved
    # rows 0-19 are covered by A (x < 12) or B (8 <= x < 20); the disagreeing labels have 7 + 4 + 1 ones there
    y = np.array([1, 1, 1, 0, 1, 1, 1, 1] + [1, 1, 1, 1] + [0, 0, 0, 1, 0, 0, 0, 0] + [0, 1, 0, 0])
    assert answers[2] == pytest.approx(12 / 20, abs=1e-12)
    # the text: the union estimate is farthest from the observed in "A and B" (12/20 against 4/4)
    # and "B only" (5/12 against 1/8); the list A then B is close everywhere
    assert "A and B 0.60 against 1, B only 0.42 against 0.125" in stdout
    assert "list A then B: at most 0.08 from the observed" in stdout  # A and B: 11/12 against 1
    x = pd.DataFrame({"x": np.arange(24.0)})
    A, B = [Condition("x", high=12.0)], [Condition("x", low=8.0, high=20.0)]
    bd = mdl_score([A, B], x, y)
    assert answers[3] == pytest.approx(bd.model_bits, abs=1e-9)
    assert answers[3] == pytest.approx(universal_integer_code(2) + sum(bd.rule_model_bits) - 1.0, abs=1e-9)
    # MDL rejects {A, B} on these labels: {A} is shorter
    assert mdl_score([A], x, y).total < bd.total
    assert f"{{A, B}} scores {bd.total:.2f} bits, {{A}} {mdl_score([A], x, y).total:.2f} bits" in stdout


def _cut(encoder, column: str, text: str) -> float:
    j = [c.name for c in encoder.columns_].index(column)
    return float(next(c for c in encoder.columns_[j].cuts if f"{c:.6g}" == text))


@pytest.mark.slow
def test_sections4_5_first_beam_step(solved):
    answers = solved[2]
    X, y = make_overlap_blockade_data(n=1000, seed=0)
    enc = FeatureEncoder(n_cut_points=20).fit(X)
    cut = _cut(enc, "X2", "0.652117")
    assert cut == 0.6521173378673106  # the exact cut point the exercise gives
    empty = mdl_score([], X, y, encoder=enc)

    def r(rule) -> float:
        after = mdl_score([rule], X, y, encoder=enc)
        return (empty.total - after.total) / after.coverage

    assert mdl_score([[Condition("X2", high=cut)]], X, y, encoder=enc).coverage == int((X["X2"] < cut).sum()) == 333
    assert answers[4] == pytest.approx(r([Condition("X2", high=cut)]), abs=1e-9)
    # exercise 5: the 10th best r of every single literal (each cut point, both operators), the
    # smallest r a beam of width 10 without patience keeps
    every = sorted((r([Condition(c.name, high=float(t)) if op == "<" else Condition(c.name, low=float(t))])
                    for c in enc.columns_ for t in c.cuts for op in ("<", ">=")), reverse=True)
    assert len(every) == 80
    assert answers[5] == pytest.approx(every[9], abs=1e-9)
    assert every[9] == pytest.approx(r([Condition("X2", low=_cut(enc, "X2", "0.916365"))]), abs=1e-12)
    # the literal of exercise 4 has the 3rd best r, and the beam with patience drops it (a better one shares its bucket)
    assert answers[4] == pytest.approx(every[2], abs=1e-12)


@pytest.mark.slow
def test_section6_local_test_bits_from_the_data(solved):
    answers = solved[2]
    X, y = make_local_testing_data(n=1000, seed=0)
    S = X["X1"].to_numpy() == 1
    S1 = S & (X["X13"].to_numpy() == 0)
    counts = lambda m: np.bincount(y[m], minlength=2)  # noqa: E731
    assert counts(S1).tolist() == [35, 61]
    l_split = math.log2(50) + 1 + universal_integer_code(2) - universal_integer_code(1)
    with_split = nml_brute(counts(S1)) + nml_brute(counts(S & ~S1)) + l_split
    assert answers[6] == pytest.approx(with_split, abs=1e-6)
    assert with_split > nml_brute(counts(S)), "the growth shown as rejected would pass the local test"


@pytest.mark.slow
def test_section7_r_of_a_blocked_literal_and_its_rank(solved):
    _, stdout, answers = solved
    X, y = make_overlap_blockade_data(n=1000, seed=0)
    M = [[Condition("X1", high=1.0), Condition("X2", high=1.4)], [Condition("X1", low=0.6), Condition("X2", low=0.8)]]
    in_M = ((X["X1"] < 1) & (X["X2"] < 1.4)) | ((X["X1"] >= 0.6) & (X["X2"] >= 0.8))
    new = int(((X["X1"] >= 1) & ~in_M).sum())
    r = (mdl_score(M, X, y).total - mdl_score(M + [[Condition("X1", low=1.0)]], X, y).total) / new
    assert r < 0
    assert answers[7] == pytest.approx(r, abs=1e-9)
    # the blocked literals are in the middle of the ranking by r, not at its bottom
    for lit in ("X1 >= 1", "X2 < 0.8"):
        m = re.search(rf"{re.escape(lit)}: r = (-?[\d.]+), rank (\d+) of (\d+) literals by r \(the worst r is (-?[\d.]+)\)",
                      stdout)
        assert m, f"no rank printed for {lit}"
        r_lit, rank, n, worst = float(m[1]), int(m[2]), int(m[3]), float(m[4])
        assert worst < r_lit and rank < n


@pytest.fixture(scope="module")
def auxiliary_fits():
    """The blockade simulation fitted from M with and without the auxiliary beam, seeds 0 and 2."""
    fits = {}
    for seed in (0, 2):
        X, y = make_overlap_blockade_data(n=1000, seed=seed)
        fits[seed] = (TURSClassifier(record_trace=True).fit(X, y, initial_rules=M_TEXT),
                      TURSClassifier(use_auxiliary_beam=False).fit(X, y, initial_rules=M_TEXT))
    return fits


@pytest.mark.slow
def test_section7_the_auxiliary_beam_changes_the_fit_on_seed_2(auxiliary_fits):
    rules = lambda model: [str(r) for r in model.rules_]  # noqa: E731
    with_aux, without = auxiliary_fits[0]
    assert rules(with_aux) == rules(without)  # the text: on seed 0 the two fits are the same
    with_aux, without = auxiliary_fits[2]
    assert rules(with_aux) != rules(without)
    assert len(with_aux.rules_) == len(without.rules_) + 1
    assert without.mdl_score_ - with_aux.mdl_score_ == pytest.approx(3.903, abs=1e-3)
    # how: the last rule's first literal has r < 0, fails the main beam's local test, has R > 0,
    # and sits in the auxiliary beam of the first iteration, not in the main beam
    trace = with_aux.trace_
    first, final = trace.lineage(1)[1], trace.lineage(1)[-1]
    assert final["conditions"] == ["X1 < 0.357008", "X2 >= 1.60484"] and final["r"] > 0
    assert first["conditions"] == ["X1 < 0.357008"] and first["r"] < 0 < first["R"]
    assert not first["local_test"] and first["aux_local_test"]
    assert ["X1 < 0.357008"] not in trace.beams(1, 0, "main")["conditions"].tolist()
    assert ["X1 < 0.357008"] in trace.beams(1, 0, "aux")["conditions"].tolist()
    # the final rule is disjoint from the rest, so its r equals R
    assert final["r"] == pytest.approx(final["R"], abs=1e-9)


@pytest.mark.slow
def test_section7_the_notebook_reports_the_same_fits(solved, auxiliary_fits):
    out, stdout, _ = solved
    table = pd.read_csv(out / f"{NAME}_auxiliary.csv").set_index("sample")
    for seed in (0, 2):
        with_aux, without = auxiliary_fits[seed]
        assert table.loc[f"seed {seed}", "with_aux"] == pytest.approx(with_aux.mdl_score_, abs=1e-9)
        assert table.loc[f"seed {seed}", "without_aux"] == pytest.approx(without.mdl_score_, abs=1e-9)
    assert "seed 0: the two fits give the same rule sets" in stdout
    assert "in the main beam of the first iteration: False; in the auxiliary beam: True" in stdout


@pytest.mark.slow
def test_section8_union_estimate_on_real_data(solved):
    out, _, answers = solved
    X, y = load_bundled("sklearn-breast-cancer")
    model = TURSClassifier().fit(X, y)
    real = pd.read_csv(out / f"{NAME}_real.csv").iloc[0]
    assert real.total == pytest.approx(model.mdl_score_, abs=1e-9) and real.n_rules == len(model.rules_)
    cover = np.column_stack([np.logical_and.reduce([c.mask(X[c.column].to_numpy()) for c in r.conditions])
                             for r in model.rules_])
    row = int(np.flatnonzero(cover[:, 0] & cover[:, 1])[0])
    union = cover[:, cover[row]].any(axis=1)
    assert answers[8] == pytest.approx(np.mean(np.asarray(y)[union] == "malignant"), abs=1e-12)


# ------------------------------------------------------------------------- the class kit
def _load_make_class():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_class", REPO / "tools" / "make_class.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_class(out: Path, *options) -> Path:
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "make_class.py"), "--out", str(out), *options],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """The kit's notebooks and README (no search pages: those fit five models)."""
    return make_class(tmp_path_factory.mktemp("class") / "class", "--no-pages")


def read_ipynb(path: Path):
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return nb


def solution_lines() -> list:
    """Every line of code in the source's solution cells but their guard."""
    return [ln.strip() for c in source_notebook().cells if "solution" in tags(c)
            for ln in c.source.splitlines()[1:] if ln.strip()]


@pytest.mark.subprocess
def test_kit_student_notebook_has_no_solution_code(kit):
    text = (kit / "student.ipynb").read_text(encoding="utf-8")
    lines = solution_lines()
    assert len(lines) >= N_EXERCISES
    leaked = [ln for ln in lines if ln in text or json.dumps(ln)[1:-1] in text]
    assert not leaked, f"solution code in student.ipynb: {leaked}"
    assert "show_solutions" not in text and '"solution"' not in text and "if live:" not in text
    nb = read_ipynb(kit / "student.ipynb")
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code")
    for k in range(1, N_EXERCISES + 1):
        blank = [c for c in nb.cells if re.search(rf"^answer_{k} = None  # your code here$", c.source, re.M)]
        checks = [c for c in nb.cells if "check" in tags(c) and f"Exercise {k}:" in c.source]
        assert len(blank) == len(checks) == 1, k
        assert not re.search(rf"^answer_{k} = (?!None  # your code here$)", blank[0].source, re.M)


@pytest.mark.subprocess
def test_kit_teacher_notebook_has_the_solutions_open_and_the_plan(kit):
    nb = read_ipynb(kit / "teacher.ipynb")
    solution_cells = [c for c in nb.cells if "solution" in tags(c)]
    assert len(solution_cells) == N_EXERCISES
    assert not any(c.metadata.get("jupyter", {}).get("source_hidden") for c in solution_cells)
    text = (kit / "teacher.ipynb").read_text(encoding="utf-8")
    assert all(json.dumps(ln)[1:-1] in text for ln in solution_lines())
    assert "| total | | 90 |" in text and "if live:" in text
    readme = (kit / "README.md").read_text(encoding="utf-8")
    assert "student.ipynb" in readme and "## The 90 minutes" in readme


def fake_wheel(folder: Path, name: str = "turs-9.9.9-py3-none-any.whl") -> Path:
    """A stand-in wheel: only the METADATA that make_class reads (a real one is built by `make class`)."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    meta = ("Metadata-Version: 2.1\nName: turs\nVersion: 9.9.9\nRequires-Dist: numpy\nRequires-Dist: numba\n"
            "Requires-Dist: pooch>=1.8\nProvides-Extra: notebooks\nRequires-Dist: jupytext; extra == \"notebooks\"\n")
    with zipfile.ZipFile(folder / name, "w") as z:
        z.writestr("turs-9.9.9.dist-info/METADATA", meta)
    return folder / name


@pytest.mark.subprocess
def test_kit_carries_the_wheel_and_says_how_to_install_it_without_a_clone(tmp_path):
    wheel = fake_wheel(tmp_path / "dist")
    kit = make_class(tmp_path / "class", "--no-pages", "--wheel", str(tmp_path / "dist"))
    assert (kit / wheel.name).read_bytes() == wheel.read_bytes()
    readme = " ".join((kit / "README.md").read_text(encoding="utf-8").split())  # paragraphs are wrapped
    assert f"python -m pip install {wheel.name} jupyterlab" in readme
    # the dependencies pip fetches from PyPI, read from the wheel; not the extras'
    assert "from PyPI: `numpy`, `numba`, `pooch>=1.8`;" in readme and "jupytext" not in readme
    assert "turs.warmup()" in readme and "-e '.[notebooks]'" not in readme
    # a rebuild with another wheel leaves one wheel in the kit
    other = fake_wheel(tmp_path / "dist2", "turs-9.9.10-py3-none-any.whl")
    make_class(kit, "--no-pages", "--wheel", str(other))
    assert sorted(p.name for p in kit.glob("*.whl")) == [other.name]


@pytest.mark.subprocess
def test_kit_wheel_option_names_what_is_wrong(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "make_class.py"), "--out", str(tmp_path / "class"),
                           "--no-pages", "--wheel", str(tmp_path / "empty")], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2
    assert "expected one turs-*.whl in this folder, found none" in proc.stderr and "pip wheel" in proc.stderr


@pytest.mark.subprocess
def test_kit_without_a_wheel_says_so(kit):
    readme = (kit / "README.md").read_text(encoding="utf-8")
    assert "built without the package" in readme and "make class" in readme
    assert not list(kit.glob("*.whl"))


@pytest.mark.slow
def test_kit_pages_linked_from_the_notebook_exist_and_are_titled_with_their_data(tmp_path):
    kit = make_class(tmp_path / "class")
    text = "\n".join(c.source for c in source_notebook().cells if c.cell_type == "markdown")
    linked = sorted(set(re.findall(r"pages/([\w-]+\.html)", text)))
    assert linked == sorted(p.name for p in (kit / "pages").glob("*.html"))
    datasets = {"blockade": "Overlap-blockade simulation", "local_testing": "Local-testing simulation",
                "blockade_from_M": "Overlap-blockade simulation", "blockade_from_M_seed2": "Overlap-blockade simulation",
                "breast_cancer": "Wisconsin breast cancer data"}
    for name in linked:
        page = (kit / "pages" / name).read_text(encoding="utf-8")
        title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
        assert title.startswith(datasets[name.removesuffix(".html")]), (name, title)
        assert ("seed 2" in title) == (name == "blockade_from_M_seed2.html")


@pytest.mark.slow
def test_kit_pages_come_from_search_page_with_the_tutorials_fits(tmp_path):
    """With a search_page (here a stand-in that records its calls), every page is that function's
    output for a traced fit of the tutorial's data; M's fits start from M."""
    calls = []

    class Page:
        def __init__(self, model, X, y, title):
            self.html = f"<html>{len(model.rules_)} rules, {len(X)} rows</html>"
            calls.append((model, X, y))
            titles.append(title)

        def save(self, path):
            Path(path).write_text(self.html, encoding="utf-8")

    titles = []
    made = _load_make_class().write_pages(tmp_path, search_page=Page)
    assert list(made.values()) == titles and len(calls) == len(made) == len(set(titles)) == 5
    for name, (model, X, y) in zip(made, calls):
        assert model.trace_ is not None and len(X) == len(y)
        assert (tmp_path / f"{name}.html").read_text(encoding="utf-8") == f"<html>{len(model.rules_)} rules, {len(X)} rows</html>"
    seed2 = calls[list(made).index("blockade_from_M_seed2")][0]
    assert [str(r.conditions) for r in seed2.rules_[:2]] == [str(r.conditions) for r in calls[list(made).index("blockade_from_M")][0].rules_[:2]]
    assert len(seed2.rules_) == 4  # the fourth rule that §7 shows


def _execute(nb, folder: Path):
    import nbclient

    nbclient.NotebookClient(nb, kernel_name="python3", allow_errors=True, timeout=600,
                            resources={"metadata": {"path": str(folder)}}).execute()
    return nb


@pytest.mark.slow
def test_kit_student_notebook_blank_fails_only_its_checks(kit, tmp_path):
    nb = _execute(read_ipynb(kit / "student.ipynb"), tmp_path)
    checks = [c for c in nb.cells if "check" in tags(c)]
    assert len(checks) == N_EXERCISES
    for k, cell in enumerate(checks, start=1):
        errs = errors(cell)
        assert len(errs) == 1 and errs[0]["ename"] == "AssertionError", \
            f"check {k} did not fail with an AssertionError on a blank answer: {errs}"
        assert errs[0]["evalue"].startswith(f"Exercise {k}:"), f"check {k}'s message: {errs[0]['evalue']!r}"
    others = [(i, errors(c)[0]["ename"], errors(c)[0]["evalue"]) for i, c in enumerate(nb.cells)
              if c.cell_type == "code" and "check" not in tags(c) and errors(c)]
    assert not others, f"cells other than the checks failed in the students' version: {others}"
    assert pd.read_csv(tmp_path / "figures" / f"{NAME}_answers.csv").empty


@pytest.mark.slow
def test_kit_student_notebook_with_the_teachers_answers_passes_every_check(kit, tmp_path, solved):
    nb = read_ipynb(kit / "student.ipynb")
    answers = _load_make_class().solutions(source_notebook())
    for cell in nb.cells:
        m = re.search(r"^answer_(\d+) = None  # your code here$", cell.source, re.M)
        if m:
            cell.source = cell.source.replace(m[0], answers[int(m[1])])
    nb = _execute(nb, tmp_path)
    failed = [(i, errors(c)[0]["evalue"]) for i, c in enumerate(nb.cells) if c.cell_type == "code" and errors(c)]
    assert not failed, f"the student notebook with the teacher's answers failed: {failed}"
    table = pd.read_csv(tmp_path / "figures" / f"{NAME}_answers.csv")
    got = dict(zip(table["exercise"].str.split(":").str[0].astype(int), table["answer"]))
    assert got == pytest.approx(solved[2], abs=1e-12)


@pytest.mark.subprocess
def test_kit_student_notebook_runs_without_the_repository(kit, tmp_path):
    """A student installs the kit's wheel and has no clone: nothing before the first check may need
    the repository. Run those cells in a fresh Python in a folder outside it, with
    turs.reproduce.repo_root failing as it does when turs comes from a wheel."""
    nb = read_ipynb(kit / "student.ipynb")
    first_check = next(i for i, c in enumerate(nb.cells) if "check" in tags(c))
    code = "\n\n".join(c.source for c in nb.cells[:first_check] if c.cell_type == "code")
    script = ("import turs.reproduce\n"
              "def no_repository(*args, **kwargs):\n"
              "    raise FileNotFoundError('Cannot find the turs repository (turs installed from a wheel)')\n"
              "turs.reproduce.repo_root = no_repository\n"
              "from IPython.display import display\n" + code)
    (tmp_path / "setup.py").write_text(script, encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, "setup.py"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "figures" / f"{NAME}_regret.png").is_file()


# ------------------------------------------------------------------------- JupyterLab
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.browser
@pytest.mark.slow
def test_jupyterlab_with_the_project_settings_opens_the_py_as_a_notebook(tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (install it with: bash .ci/install-browser.sh)")
    playwright = pytest.importorskip("playwright.sync_api")
    jupyter = Path(sys.executable).parent / "jupyter"
    if not jupyter.exists():
        pytest.skip("JupyterLab is not installed (the explorer extra)")
    port = _free_port()
    # as `make lab`: the project's jupyter-config on JUPYTER_CONFIG_PATH; the user's own Jupyter
    # folders are replaced by empty ones so that only the project's settings count
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(REPO / "jupyter-config"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"), JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    before = (NOTEBOOKS / f"{NAME}.py").stat().st_mtime_ns
    cmd = [str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", f"--ServerApp.root_dir={REPO}",
           "--IdentityProvider.token=", "--ServerApp.password=", "--LabApp.news_url=",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    with open(tmp_path / "lab.log", "w") as log:
        server = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "lab.log").read_text()
                time.sleep(0.5)
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT)
            page.route("**/*", lambda route: route.continue_()
                       if route.request.url.startswith(f"http://127.0.0.1:{port}/") else route.abort())
            page.goto(f"http://127.0.0.1:{port}/lab/tree/notebooks", timeout=120_000)
            item = page.locator(".jp-DirListing-item", has_text=f"{NAME}.py").first
            item.wait_for(timeout=120_000)
            item.dblclick()  # a double-click, as the README says
            page.wait_for_selector(".jp-NotebookPanel .jp-MarkdownCell", timeout=120_000)
            page.wait_for_selector(".jp-NotebookPanel .jp-CodeCell", timeout=60_000)
            page.wait_for_function("document.querySelector('.jp-NotebookPanel h1') !== null", timeout=60_000)
            title = page.locator(".jp-NotebookPanel h1").first.inner_text()
            assert "A 90-minute class" in title
            assert page.locator(".jp-FileEditor").count() == 0, "the .py opened in the text editor"
            time.sleep(1.0)  # let the toolbar settle for the screenshot
            shots = REPO / "build" / "test-artifacts"
            shots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shots / "tutorial_jupyterlab.png"))
            browser.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)
    assert (NOTEBOOKS / f"{NAME}.py").stat().st_mtime_ns == before, "opening the tutorial changed its source"
