#!/usr/bin/env python3
"""Build the class kit of the tutorial (``notebooks/tutorial_mdl_rule_sets.py``).

    python tools/make_class.py                 # -> <repo>/build/class/
    python tools/make_class.py --out DIR       # somewhere else
    python tools/make_class.py --no-pages      # the notebooks and the README only

The kit, one folder to hand out or to serve:

* ``student.ipynb``: unexecuted; no solution cell and no teacher cell, every exercise cell reads
  ``answer_k = None  # your code here``, every check cell in place;
* ``teacher.ipynb``: the whole tutorial with the solution cells open, the minute plan, and the
  live explorer cells (``live = True``);
* ``pages/<name>.html``: one self-contained search page per model the tutorial fits
  (``turs.explorer.search_page``); while that function is not available, a page that says so and
  names the command that makes it;
* ``README.md``: for the teacher: how to hand it out, what each section shows, what to project.

Both notebooks write their figures to ``figures/`` next to themselves (``out_dir = "figures"``).
The cells are told apart by their tags in the source: ``solution`` (the teacher's answer,
``if show_solutions:``), ``teacher`` (the live explorer), ``check`` and ``parameters``.
"""
from __future__ import annotations

import argparse
import copy
import html
import re
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "notebooks" / "tutorial_mdl_rule_sets.py"
EXERCISE = re.compile(r"^answer_(\d+) = None  # your code here$", re.MULTILINE)
SOLUTION = re.compile(r"^\s*answer_(\d+) = ", re.MULTILINE)

# The models whose search pages the notebook links, as the notebook fits them.
M_TEXT = ["X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"]
PAGES = {
    "blockade": ("§4-§5: the simulated data of Fig. 3.1 (1,000 rows, seed 0), fitted from scratch",
                 "overlap_blockade", {"seed": 0}, None),
    "local_testing": ("§6: the local-testing simulation (1,000 rows, 50 binary features, seed 0)",
                      "local_testing", {"seed": 0}, None),
    "blockade_from_M": ("§7: the data of Fig. 3.1 (seed 0), fitted from the two rules of M",
                        "overlap_blockade", {"seed": 0}, M_TEXT),
    "blockade_from_M_seed2": ("§7: another sample of Fig. 3.1's simulation (seed 2), fitted from M: "
                              "here the auxiliary beam finds a fourth rule", "overlap_blockade", {"seed": 2}, M_TEXT),
    "breast_cancer": ("§8: the Wisconsin breast cancer data (scikit-learn's copy, 569 rows)", "breast_cancer", {}, None),
}


def tags(cell) -> list:
    return cell.metadata.get("tags", [])


def solutions(nb) -> dict:
    """Exercise number -> the solution's code, without its ``if show_solutions:`` guard."""
    out = {}
    for cell in nb.cells:
        if "solution" in tags(cell):
            body = cell.source.split("\n", 1)[1] if cell.source.startswith("if show_solutions:") else cell.source
            body = textwrap.dedent(body).strip("\n")
            out[int(SOLUTION.search(body).group(1))] = body
    return out


def _parameters(cell, drop: tuple, out_dir: str) -> None:
    lines = [ln for ln in cell.source.splitlines() if not ln.split("=")[0].strip() in drop]
    lines = [f'out_dir = "{out_dir}"  # figures and tables go to this folder next to the notebook'
             if ln.startswith("out_dir =") else ln for ln in lines]
    cell.source = "\n".join(lines)


def _plain(nb) -> None:
    """A plain .ipynb: no jupytext header, no outputs, the python3 kernel."""
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell["id"] = f"cell-{i}"  # stable ids: rebuilding the kit gives the same files


def student_notebook(nb):
    """The students' notebook: the solution and teacher cells dropped, the exercises blank."""
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if not {"solution", "teacher"} & set(tags(c))]
    for cell in nb.cells:
        if "parameters" in tags(cell):
            _parameters(cell, ("show_solutions", "live"), "figures")
    nb.cells.insert(0, _markdown("**Student notebook.** Fill in each `answer_k = None  # your code here` "
                                 "and run the check cell after it. The search pages are in `pages/`."))
    _plain(nb)
    return nb


def teacher_notebook(nb):
    """The teacher's notebook: everything, with the solution cells open."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if "solution" in tags(cell):
            cell.metadata.get("jupyter", {}).pop("source_hidden", None)
        if "parameters" in tags(cell):
            _parameters(cell, (), "figures")
    nb.cells.insert(0, _markdown(
        "**Teacher's notebook.** The solutions are open (cells tagged `solution`, run with "
        "`show_solutions = True`); set `live = True` to open the interactive explorer in §4-§8. "
        "The minute plan is the table below; `README.md` says what to project. "
        "Do not hand this file out: `student.ipynb` is the students' copy."))
    _plain(nb)
    return nb


def _markdown(text: str):
    import nbformat

    return nbformat.v4.new_markdown_cell(text)


def _data(kind: str, options: dict):
    from turs.datasets import load_bundled, make_local_testing_data, make_overlap_blockade_data

    if kind == "overlap_blockade":
        return make_overlap_blockade_data(n=1000, **options)
    if kind == "local_testing":
        return make_local_testing_data(n=1000, **options)
    return load_bundled("sklearn-breast-cancer")


def placeholder_page(name: str, title: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PLACEHOLDER: search page {html.escape(name)}</title></head>
<body style="font-family: sans-serif; max-width: 46em; margin: 2em auto">
<h1>PLACEHOLDER: this search page is not built yet</h1>
<p>{html.escape(title)}.</p>
<p>This turs has no <code>turs.explorer.search_page</code>, which writes the one-file search page.
With a turs that has it, run <code>make class</code> (or <code>python tools/make_class.py</code>) in the
repository again; it replaces this file with the page.</p>
</body></html>
"""


def write_pages(folder: Path, search_page=None) -> dict:
    """One search page per model the tutorial links; returns name -> "page" or "placeholder".
    ``search_page``: :func:`turs.explorer.search_page` (imported when None, if it exists)."""
    folder.mkdir(parents=True, exist_ok=True)
    if search_page is None:
        try:
            from turs.explorer import search_page
        except ImportError:
            search_page = None
    made = {}
    for name, (title, kind, options, initial_rules) in PAGES.items():
        path = folder / f"{name}.html"
        if search_page is None:
            path.write_text(placeholder_page(name, title), encoding="utf-8")
            made[name] = "placeholder"
            continue
        from turs import TURSClassifier

        X, y = _data(kind, options)
        model = TURSClassifier(record_trace=True).fit(X, y, initial_rules=initial_rules)
        search_page(model, X, y).save(path)
        made[name] = "page"
    return made


README = """# Class kit: learning truly unordered rule sets with MDL (90 minutes)

Made by `make class` from `notebooks/tutorial_mdl_rule_sets.py`; rebuild it after the source changes.

| file | for | what |
|---|---|---|
| `student.ipynb` | students | the tutorial without solutions: exercises blank, checks in place |
| `teacher.ipynb` | you | the same with the solutions open, the minute plan, the live explorer (`live = True`) |
| `pages/*.html` | everyone | one-file search pages: open in any browser, no Python needed |
| `README.md` | you | this file |

## Handing it out
Give the students `student.ipynb` and the `pages/` folder (zip this folder without
`teacher.ipynb`). They need Python with `turs` installed (`pip install -e '.[notebooks]'` in the
repository); the notebook opens in JupyterLab or Jupyter Notebook and writes its figures to
`figures/` next to itself. Each exercise is a cell `answer_k = None  # your code here`; the
cell after it checks the answer and says what was expected. Run the notebook top to bottom
once before the class: a check fails until its answer is filled in, and nothing else fails.

## The 90 minutes
| § | minutes | what it shows | project | exercise |
|---|---|---|---|---|
| 0 | 3 | the plan; the two model codes (thesis' in §1, authors' after) | the plan table | |
| 1 | 15 | every bit of the MDL score of one rule on 12 rows, by hand, against `mdl_score`; the regret's growth | the table of parts; the regret figure | 1 (core) |
| 2 | 10 | a rule list against an unordered set; the union estimate, and where it fits badly | the four-bar figure | 2 (core) |
| 3 | 10 | the parts of the score for four rule sets; MDL rejects an overlap whose rules disagree | the stacked bars | 3 (core) |
| 4 | 12 | one beam step: every first literal's learning speed r against the search's beam | the first-step figure; `pages/blockade.html` | 4 (core) |
| 5 | 7 | diverse patience: one literal per coverage bucket | the patience figure | 5 (core) |
| 6 | 10 | the local test rejects a noise literal | the bar figure; `pages/local_testing.html` | 6 (homework) |
| 7 | 12 | the overlap blockade; r against R; the auxiliary beam keeps what the main beam drops (seed 2) | the r/R figure; `pages/blockade_from_M_seed2.html` | 7 (homework) |
| 8 | 11 | a model on real data, rows grouped by the rules that cover them | the rules; `pages/breast_cancer.html` | 8 (core) |

Cells marked *Optional depth* and the homework exercises are for after the class.

## Search pages
{pages}
"""


def build(out: Path, pages: bool = True) -> dict:
    import jupytext
    import nbformat

    nb = jupytext.read(SOURCE)
    exercises = sorted(int(m.group(1)) for c in nb.cells for m in EXERCISE.finditer(c.source))
    missing = sorted(set(exercises) ^ set(solutions(nb)))
    if missing:
        raise ValueError(f"{SOURCE.name}: exercises {missing} have a blank cell or a solution cell but not both. "
                         "Give every exercise one 'answer_k = None  # your code here' cell and one solution cell.")
    out.mkdir(parents=True, exist_ok=True)
    nbformat.write(student_notebook(nb), out / "student.ipynb")
    nbformat.write(teacher_notebook(nb), out / "teacher.ipynb")
    made = write_pages(out / "pages") if pages else {}
    listing = "\n".join(f"* `pages/{name}.html` ({'PLACEHOLDER, see the file' if made.get(name) != 'page' else 'search page'}): "
                        f"{PAGES[name][0]}" for name in PAGES) if made else "(not built: --no-pages)"
    (out / "README.md").write_text(README.format(pages=listing), encoding="utf-8")
    return {"exercises": exercises, "pages": made}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Build the tutorial's class kit (student and teacher notebooks, "
                                                 "search pages, README).")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "class", help="the kit's folder (default: build/class)")
    parser.add_argument("--no-pages", action="store_true", help="skip the search pages (no model is fitted)")
    args = parser.parse_args(argv)
    result = build(args.out, pages=not args.no_pages)
    made = list(result["pages"].values())
    pages = (f", pages/: {made.count('page')} search page(s)"
             + (f" and {len(made) - made.count('page')} placeholder(s)" if len(made) > made.count("page") else "")
             if made else "")
    print(f"make_class: {args.out}: student.ipynb, teacher.ipynb ({len(result['exercises'])} exercises), "
          f"README.md{pages}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
