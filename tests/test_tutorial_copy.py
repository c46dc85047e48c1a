"""The class kit's checks keep their answers: nothing a student can copy from the screen passes one.

The students' notebook that ``tools/make_class.py`` writes runs once in a kernel, cell by cell.
Each check cell first runs with its blank answer, as a student first runs it (it fails and says
why); then every candidate a student could copy without computing is put in its ``answer_k`` and
the check run on it, in the same kernel:

(a) every number shown so far, at the precision it is shown with (and without its sign): in
    the outputs of the cells above (printed text, tables, error messages), in the text of the
    cells above (markdown and code) and in the check cell itself;
(b) every name, attribute, subscript and call expression (found with ``ast``) of the code cells
    above and of the check cell whose value, at that moment, is a number.

Every one of those checks must fail with the check's AssertionError. Then the teacher's answer
(the source's ``solution`` cell, run in the same kernel) must pass the check, so that a check
which rejects everything fails this test. The digest helper the checks use is tested at the
rounding boundary of its 4 significant digits.

Calls to functions that print, draw, save or add to a list are not evaluated (they return no
number, and running them again would change the notebook's files or state); the test names
them in ``SKIPPED_CALLS``.
"""
from __future__ import annotations

import ast
import json
import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from _notebook_helpers import NOTEBOOKS, REPO

nbformat = pytest.importorskip("nbformat", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("nbclient", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
jupytext = pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")

NAME = "tutorial_mdl_rule_sets"
N_EXERCISES = 8
# A number as it is shown: optional sign, digits (with thousands commas), decimals, exponent;
# not the digit of a name such as x1 or log2.
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?")
TAG = re.compile(r"<[^>]+>")
# Functions and methods that return None (or a figure) and change files or state when run again.
SKIPPED_CALLS = {"print", "display", "show_figure", "save", "savefig", "to_csv", "append", "extend", "insert",
                 "update", "pop", "clear", "remove", "setdefault", "close", "use", "apply", "set_option"}

# Runs in the kernel: evaluate the candidates, then run the check cell on each of them.
TRIAL = r'''
def _copy_trial(k, expressions, numbers, check_source):
    import contextlib as _contextlib, io as _io, json as _json, numbers as _numbers
    import numpy as _np

    def _skipped(callee):
        if callee is None:
            return False
        try:
            f = eval(callee, globals())
        except Exception:
            return True
        owner = getattr(f, "__self__", None)
        modules = (getattr(f, "__module__", None) or "", type(owner).__module__ if owner is not None else "")
        return any(m.startswith(("matplotlib", "IPython")) for m in modules)

    values = {}
    for text, callee in expressions:
        if _skipped(callee):
            continue
        try:
            with _contextlib.redirect_stdout(_io.StringIO()):
                v = eval(text, globals())
        except Exception:
            continue
        if isinstance(v, _np.ndarray) and v.shape == ():
            v = v[()]
        if isinstance(v, _numbers.Real) and not isinstance(v, (bool, _np.bool_)) and _np.isfinite(float(v)):
            values[text] = float(v)
    candidates = list(values.items()) + [("shown " + repr(n), n) for n in numbers]
    code = compile(check_source, "check cell", "exec")
    saved = dict(ANSWERS)
    passed, other = [], []
    for label, v in candidates:
        globals()["answer_%d" % k] = v
        try:
            with _contextlib.redirect_stdout(_io.StringIO()):
                exec(code, globals())
            passed.append([label, v])
        except AssertionError:
            pass
        except Exception as e:
            other.append([label, v, repr(e)])
    globals()["answer_%d" % k] = None
    ANSWERS.clear()
    ANSWERS.update(saved)
    print(_json.dumps({"expressions": len(values), "numbers": len(numbers), "passed": passed, "other": other}))
'''


def tags(cell) -> list:
    return cell.metadata.get("tags", [])


def shown_numbers(text: str) -> set:
    """Every number in the text as it is written, and without its sign."""
    found = set()
    for m in NUMBER.finditer(text):
        value = float(m.group().replace(",", ""))
        if math.isfinite(value):
            found |= {value, abs(value)}
    return found


def output_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif out.get("output_type") == "error":
            parts += [out.get("evalue", "")]
        else:
            data = out.get("data", {})
            parts.append(data.get("text/plain", ""))
            parts.append(TAG.sub(" ", data.get("text/html", "")))
    return "\n".join(parts)


def expressions(source: str) -> list:
    """(text, callee) of every name, attribute, subscript and call expression that reads a value;
    callee is the called expression's text for a call, else None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Load):
            found.setdefault(ast.unparse(node), None)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in SKIPPED_CALLS:
                continue
            if any(isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Attribute, ast.Name))
                   and (sub.func.attr if isinstance(sub.func, ast.Attribute) else sub.func.id) in SKIPPED_CALLS
                   for sub in ast.walk(node)):
                continue
            found[ast.unparse(node)] = ast.unparse(func)
    return sorted(found.items())


def solutions(source: Path) -> dict:
    """Exercise -> the teacher's solution code (the ``solution`` cell without its guard)."""
    out = {}
    for cell in jupytext.read(source).cells:
        if "solution" in tags(cell):
            body = textwrap.dedent(cell.source.split("\n", 1)[1])
            out[int(re.search(r"^answer_(\d+) = ", body, re.M).group(1))] = body
    return out


def copy_trials(student: Path, solution_code: dict, folder: Path) -> dict:
    """Run the students' notebook once; at each check, the candidates of (a) and (b), then the
    teacher's solution. Returns exercise -> {expressions, numbers, passed, other, solution_errors}."""
    from nbclient import NotebookClient

    nb = nbformat.read(student, as_version=4)
    cells = list(nb.cells)
    nb.cells.append(nbformat.v4.new_code_cell(""))  # where nbclient stores the test's own code cells
    client = NotebookClient(nb, kernel_name="python3", timeout=900, allow_errors=True,
                            resources={"metadata": {"path": str(folder)}})
    results = {}

    def run(code: str):
        cell = nbformat.v4.new_code_cell(code)
        client.execute_cell(cell, len(nb.cells) - 1)
        return cell

    with client.setup_kernel():
        run(TRIAL)
        for i, cell in enumerate(cells):
            if cell.cell_type == "code" and "check" in tags(cell):
                k = int(re.search(r"Exercise (\d):", cell.source).group(1))
                client.execute_cell(cell, i)  # blank, as a student first runs it: it fails, and shows why
                before = cells[:i]
                numbers = set()
                for c in before + [cell]:
                    numbers |= shown_numbers(c.source) | shown_numbers(output_text(c))
                exprs = [e for c in before + [cell] if c.cell_type == "code" for e in expressions(c.source)]
                exprs = sorted(set(exprs))
                trial = run(f"_copy_trial({k}, {exprs!r}, {sorted(numbers)!r}, {cell.source!r})")
                text = "".join(o.get("text", "") for o in trial.outputs if o.get("output_type") == "stream")
                errs = [o for o in trial.outputs if o.get("output_type") == "error"]
                assert not errs, f"exercise {k}: the trial itself failed: {errs}"
                results[k] = json.loads(text.strip().splitlines()[-1])
                solved = run(solution_code[k])
                client.execute_cell(cell, i)
                results[k]["solution_errors"] = [o.get("evalue") for c in (solved, cell) for o in c.outputs
                                                 if o.get("output_type") == "error"]
            else:
                client.execute_cell(cell, i)
    return results


def make_kit(out: Path) -> Path:
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "make_class.py"), "--out", str(out), "--no-pages"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.slow
def test_no_number_or_expression_on_the_screen_passes_a_check_and_the_teachers_answers_do(tmp_path):
    kit = make_kit(tmp_path / "class")
    results = copy_trials(kit / "student.ipynb", solutions(NOTEBOOKS / f"{NAME}.py"), kit)
    assert sorted(results) == list(range(1, N_EXERCISES + 1))
    for k, r in results.items():
        assert r["expressions"] >= 20 and r["numbers"] >= 20, f"exercise {k}: too few candidates tried: {r}"
        assert not r["passed"], f"exercise {k}: copied values pass its check: {r['passed'][:10]}"
        assert not r["other"], f"exercise {k}: candidates made its check fail otherwise than by assert: {r['other'][:5]}"
        assert not r["solution_errors"], f"exercise {k}: the teacher's answer fails the check: {r['solution_errors']}"


# ------------------------------------------------------------------------- the digest helper
def key_helpers(key: dict) -> dict:
    """The source's answer_digest and matches_key, with ANSWER_KEY replaced by ``key``."""
    setup = next(c.source for c in jupytext.read(NOTEBOOKS / f"{NAME}.py").cells if "def matches_key" in c.source)
    tree = ast.parse(setup)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("answer_digest", "matches_key")]
    namespace = {"hashlib": __import__("hashlib"), "ANSWER_KEY": key}
    exec(compile(ast.Module(body=defs, type_ignores=[]), "setup cell", "exec"), namespace)  # noqa: S102
    return namespace


def test_the_checks_match_4_significant_digits_even_at_a_rounding_boundary():
    import hashlib

    ns = key_helpers({})
    digest, matches = ns["answer_digest"], ns["matches_key"]
    assert digest(0.6) == hashlib.sha256(b"0.6").hexdigest()[:16] == digest(12 / 20) == digest(0.60004)
    assert digest(4) == digest(4.0) == hashlib.sha256(b"4").hexdigest()[:16]
    assert digest(-1.23456) == hashlib.sha256(b"-1.235").hexdigest()[:16]
    # 1.0625 is exact in binary and a tie at 4 digits: Python writes it 1.062 (half to even)
    assert f"{1.0625:.4g}" == "1.062"
    ns["ANSWER_KEY"].update({1: digest(1.0625), 2: digest(0.12345), 3: digest(-7.5015), 4: digest(4)})
    for k, answer in ((1, 1.0625), (2, 0.12345), (3, -7.5015), (4, 4)):
        for rel in (0.0, 1e-15, -1e-15, 1e-12, -1e-12, 3e-9, -3e-9):  # float noise on either side of the tie
            assert matches(k, answer * (1 + rel)), (k, answer, rel)
    assert f"{1.0625 * (1 + 1e-12):.4g}" == "1.063"  # the case the neighbours are for
    for k, wrong in ((1, 1.061), (1, 1.064), (1, 1.07), (2, 0.1233), (2, 0.1236), (3, 7.5015), (3, -7.499),
                     (4, 3), (4, 5), (4, 4.001)):
        assert not matches(k, wrong), (k, wrong)
    for k, not_a_number in ((4, None), (4, "4"[:0]), (4, [4, 4]), (4, object())):
        assert not matches(k, not_a_number)
    import numpy as np

    assert matches(4, np.int64(4)) and matches(2, np.float64(0.12345))


def test_every_check_compares_with_the_key_and_shows_no_expected_value():
    nb = jupytext.read(NOTEBOOKS / f"{NAME}.py")
    checks = [c for c in nb.cells if "check" in tags(c)]
    assert len(checks) == N_EXERCISES
    for k, cell in enumerate(checks, start=1):
        assert f"matches_key({k}, answer_{k})" in cell.source, cell.source
        assert "close(" not in cell.source and "==" not in cell.source
    key = next(c.source for c in nb.cells if "ANSWER_KEY = {" in c.source)
    digests = re.search(r"ANSWER_KEY = \{(.*?)\}", key, re.S).group(1)
    assert len(re.findall(r'\d: "[0-9a-f]{16}"', digests)) == N_EXERCISES, digests


@pytest.mark.slow
def test_make_class_prints_the_answer_key_of_the_source():
    """`tools/make_class.py --answer-key` runs the solutions and prints the key the source holds
    (the teacher's run of the source checks each answer against that key, and against turs)."""
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "make_class.py"), "--answer-key"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr
    printed = dict(re.findall(r'(\d): "([0-9a-f]{16})"', proc.stdout))
    source = (NOTEBOOKS / f"{NAME}.py").read_text(encoding="utf-8")
    held = dict(re.findall(r'(\d): "([0-9a-f]{16})"', re.search(r"ANSWER_KEY = \{(.*?)\}", source, re.S).group(1)))
    assert len(printed) == N_EXERCISES and printed == held
