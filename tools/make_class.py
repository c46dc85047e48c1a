#!/usr/bin/env python3
"""Build the class kit of the tutorial (``notebooks/tutorial_mdl_rule_sets.py``).

    python tools/make_class.py                 # -> <repo>/build/class/
    python tools/make_class.py --out DIR       # somewhere else
    python tools/make_class.py --no-pages      # the notebooks and the README only
    python tools/make_class.py --wheel dist    # with the turs wheel in dist/ (as `make class` does)
    python tools/make_class.py --answer-key    # print the tutorial's ANSWER_KEY (runs its solutions)

The kit, one folder to hand out or to serve:

* ``student.ipynb``: unexecuted; no solution cell and no teacher cell, every exercise cell reads
  ``answer_k = None  # your code here``, every check cell in place. A check compares a digest of
  the answer at 4 significant digits with the source's ``ANSWER_KEY``, so the value it expects is
  not on the screen (``tests/test_tutorial_copy.py`` tries every number and expression shown);
* ``teacher.ipynb``: the whole tutorial with the solution cells open, the minute plan, the
  teacher's cross-checks of each answer against ``turs``, and the live explorer cells
  (``live = True``);
* ``pages/<name>.html``: one self-contained search page per model the tutorial fits
  (``turs.explorer.search_page``), titled with its dataset;
* ``turs-<version>-py3-none-any.whl`` (with ``--wheel``): the package, so that a student installs
  it with pip without a clone of the repository;
* ``README.md``: for the teacher: how to hand it out and install it, what each section shows,
  what to project.

Both notebooks write their figures to ``figures/`` next to themselves (``out_dir = "figures"``).
The cells are told apart by their tags in the source: ``solution`` (the teacher's answer,
``if show_solutions:``), ``teacher`` (the cross-checks and the live explorer), ``check`` and
``parameters``.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import email
import io
import re
import shutil
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "notebooks" / "tutorial_mdl_rule_sets.py"
EXERCISE = re.compile(r"^answer_(\d+) = None  # your code here$", re.MULTILINE)
SOLUTION = re.compile(r"^\s*answer_(\d+) = ", re.MULTILINE)

# The models whose search pages the notebook links, as the notebook fits them:
# name -> (what the README says, the page's title, data, data options, initial rules).
M_TEXT = ["X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"]
PAGES = {
    "blockade": ("§4-§5: the simulated data of Fig. 3.1 (1,000 rows, seed 0), fitted from scratch",
                 "Overlap-blockade simulation (Fig. 3.1; 1,000 rows, seed 0): the search from scratch",
                 "overlap_blockade", {"seed": 0}, None),
    "local_testing": ("§6: the local-testing simulation (1,000 rows, 50 binary features, seed 0)",
                      "Local-testing simulation (1,000 rows, 50 binary features, seed 0): the search",
                      "local_testing", {"seed": 0}, None),
    "blockade_from_M": ("§7: the data of Fig. 3.1 (seed 0), fitted from the two rules of M",
                        "Overlap-blockade simulation (Fig. 3.1; 1,000 rows, seed 0): the search from M",
                        "overlap_blockade", {"seed": 0}, M_TEXT),
    "blockade_from_M_seed2": ("§7: another sample of Fig. 3.1's simulation (seed 2), fitted from M: "
                              "here the auxiliary beam finds a fourth rule",
                              "Overlap-blockade simulation (Fig. 3.1; 1,000 rows, seed 2): the search from M",
                              "overlap_blockade", {"seed": 2}, M_TEXT),
    "breast_cancer": ("§8: the Wisconsin breast cancer data (scikit-learn's copy, 569 rows)",
                      "Wisconsin breast cancer data (scikit-learn's copy, 569 rows): the search",
                      "breast_cancer", {}, None),
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


def write_pages(folder: Path, search_page=None) -> dict:
    """One search page per model the tutorial links, titled with its dataset; returns name -> title.
    ``search_page``: :func:`turs.explorer.search_page` when None (a stand-in in the tests)."""
    from turs import TURSClassifier

    if search_page is None:
        from turs.explorer import search_page
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for name, (_, title, kind, options, initial_rules) in PAGES.items():
        X, y = _data(kind, options)
        model = TURSClassifier(record_trace=True).fit(X, y, initial_rules=initial_rules)
        search_page(model, X, y, title=title).save(folder / f"{name}.html")
        made[name] = title
    return made


def wheel_of(path: Path) -> Path:
    """The turs wheel: ``path`` itself, or the one ``turs-*.whl`` in the folder ``path``."""
    if path.is_dir():
        found = sorted(path.glob("turs-*.whl"))
        if len(found) != 1:
            raise ValueError(f"--wheel {path}: expected one turs-*.whl in this folder, found "
                             f"{[f.name for f in found] or 'none'}. Build it with `make class`, or with "
                             "`python -m pip wheel --no-build-isolation --no-deps --wheel-dir dist .`.")
        return found[0]
    if not (path.is_file() and path.name.startswith("turs-") and path.suffix == ".whl"):
        raise ValueError(f"--wheel {path}: not a turs-*.whl file nor a folder that holds one.")
    return path


def wheel_requirements(wheel: Path) -> list:
    """What a plain ``pip install`` of the wheel fetches: its Requires-Dist without the extras'."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        message = email.message_from_bytes(z.read(meta))
    return [r.split(";")[0].strip() for r in message.get_all("Requires-Dist", []) if "extra ==" not in r]


INSTALL = """## Installing turs
{intro}

```
python -m pip install {wheel} jupyterlab
python -c "import turs; turs.warmup()"
jupyter lab student.ipynb
```

{after}"""


def install_text(wheel: Path) -> str:
    """The README's install section for this wheel, its paragraphs wrapped."""
    intro = (f"This folder carries the package, `{wheel.name}`: a student needs no clone of the repository. "
             "In a fresh virtual environment (Python 3.10 or later), in this folder:")
    after = ("pip installs `turs` from the file and fetches the packages it needs from PyPI: "
             + ", ".join(f"`{r}`" for r in wheel_requirements(wheel))
             + "; and JupyterLab, to open the notebook (Jupyter Notebook works too). `turs.warmup()` compiles "
               "the numba kernels once per machine (a minute or two); without it the first fits of the class "
               "run slower.")
    wrap = lambda text: textwrap.fill(text, 96, break_long_words=False, break_on_hyphens=False)  # noqa: E731
    return INSTALL.format(intro=wrap(intro), wheel=wheel.name, after=wrap(after))

INSTALL_NO_WHEEL = """## Installing turs
This kit was built without the package (`tools/make_class.py` without `--wheel`). `make class`
puts the wheel `turs-<version>-py3-none-any.whl` here, to install with
`python -m pip install turs-<version>-py3-none-any.whl jupyterlab`; from a clone of the
repository, `python -m pip install -e '.[notebooks]'`."""


README = """# Class kit: learning truly unordered rule sets with MDL (90 minutes)

Made by `make class` from `notebooks/tutorial_mdl_rule_sets.py`; rebuild it after the source changes.

| file | for | what |
|---|---|---|
| `student.ipynb` | students | the tutorial without solutions: exercises blank, checks in place |
| `teacher.ipynb` | you | the same with the solutions open, the minute plan, the live explorer (`live = True`) |
| `pages/*.html` | everyone | one-file search pages: open in any browser, no Python needed |
| `README.md` | you | this file |
| `{wheel_name}` | students | the package, to install with pip (below) |

## Handing it out
Give the students `student.ipynb`, the `pages/` folder and the wheel (zip this folder without
`teacher.ipynb`). The notebook opens in JupyterLab or Jupyter Notebook and writes its figures to
`figures/` next to itself. Each exercise is a cell `answer_k = None  # your code here`; the
cell after it checks the answer to 4 significant digits and says what was expected, without
showing the value (the teacher's notebook checks each answer against `turs` too). Run the
notebook top to bottom once before the class: a check fails until its answer is filled in, and
nothing else fails.

{install}

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


def build(out: Path, pages: bool = True, wheel: Path | None = None) -> dict:
    import jupytext
    import nbformat

    nb = jupytext.read(SOURCE)
    exercises = sorted(int(m.group(1)) for c in nb.cells for m in EXERCISE.finditer(c.source))
    missing = sorted(set(exercises) ^ set(solutions(nb)))
    if missing:
        raise ValueError(f"{SOURCE.name}: exercises {missing} have a blank cell or a solution cell but not both. "
                         "Give every exercise one 'answer_k = None  # your code here' cell and one solution cell.")
    wheel = wheel_of(wheel) if wheel is not None else None
    out.mkdir(parents=True, exist_ok=True)
    nbformat.write(student_notebook(nb), out / "student.ipynb")
    nbformat.write(teacher_notebook(nb), out / "teacher.ipynb")
    for old in out.glob("turs-*.whl"):
        old.unlink()  # a wheel of an earlier build
    if wheel is not None:
        shutil.copy2(wheel, out / wheel.name)
        install = install_text(wheel)
    else:
        install = INSTALL_NO_WHEEL
    made = write_pages(out / "pages") if pages else {}
    listing = "\n".join(f"* `pages/{name}.html`: {PAGES[name][0]}" for name in PAGES) if made else "(not built: --no-pages)"
    (out / "README.md").write_text(README.format(pages=listing, install=install,
                                                 wheel_name=wheel.name if wheel else "turs-*.whl"), encoding="utf-8")
    return {"exercises": exercises, "pages": made, "wheel": wheel.name if wheel else None}


def answer_key() -> dict:
    """Exercise -> the digest of the teacher's answer, from the tutorial run in this process with
    its solutions (the check cells skipped, the teacher's cross-checks run)."""
    import jupytext
    import matplotlib

    matplotlib.use("Agg")
    nb = jupytext.read(SOURCE)
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        namespace = {"__name__": "tutorial_answer_key"}
        for cell in nb.cells:
            if cell.cell_type != "code" or "check" in tags(cell):
                continue
            exec(compile(cell.source, str(SOURCE), "exec"), namespace)  # noqa: S102 - the project's own notebook
            if "parameters" in tags(cell):
                namespace.update(profile="quick", out_dir=tmp, show_solutions=True, live=False)
    exercises = sorted(int(m.group(1)) for c in nb.cells for m in EXERCISE.finditer(c.source))
    return {k: namespace["answer_digest"](namespace[f"answer_{k}"]) for k in exercises}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Build the tutorial's class kit (student and teacher notebooks, "
                                                 "search pages, the turs wheel, README).")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "class", help="the kit's folder (default: build/class)")
    parser.add_argument("--no-pages", action="store_true", help="skip the search pages (no model is fitted)")
    parser.add_argument("--wheel", type=Path, default=None,
                        help="the turs wheel to put in the kit: a .whl file or a folder that holds one (make class: dist)")
    parser.add_argument("--answer-key", action="store_true",
                        help="print the ANSWER_KEY line for the tutorial's source (runs its solutions; about a minute) "
                             "and build nothing")
    args = parser.parse_args(argv)
    if args.answer_key:
        key = answer_key()
        print("ANSWER_KEY = {" + ", ".join(f'{k}: "{v}"' for k, v in key.items()) + "}")
        return 0
    try:
        result = build(args.out, pages=not args.no_pages, wheel=args.wheel)
    except ValueError as e:
        print(f"make_class: {e}", file=sys.stderr)
        return 2
    pages = f", pages/: {len(result['pages'])} search pages" if result["pages"] else ""
    wheel = f", {result['wheel']}" if result["wheel"] else ""
    print(f"make_class: {args.out}: student.ipynb, teacher.ipynb ({len(result['exercises'])} exercises), "
          f"README.md{pages}{wheel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
