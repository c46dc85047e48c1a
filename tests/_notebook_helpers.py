"""Shared by the notebook tests: run a notebook as `make` does, check its PNGs are readable, and
check that running it left the committed tree alone (outputs go to tmp folders or build/)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from turs.style import MAX_WIDTH_PX, MIN_DPI, png_size_and_dpi

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"


def notebook_command(name: str, out: Path, params: dict | None = None, output: Path | None = None) -> list[str]:
    """``tools/run_notebook.py notebooks/<name>.py --out-dir out -p k v ...`` as a command line."""
    cmd = [sys.executable, str(REPO / "tools" / "run_notebook.py"), str(NOTEBOOKS / f"{name}.py"),
           "--out-dir", str(out), "--output", str(output or out / f"{name}.ipynb")]
    for key, value in (params or {}).items():
        cmd += ["-p", key, value]
    return cmd


def run_notebook(name: str, out: Path, params: dict | None = None, output: Path | None = None,
                 timeout: float = 300) -> None:
    proc = subprocess.run(notebook_command(name, out, params, output), capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"


def assert_readable_png(path: Path) -> None:
    """A PNG of at least MIN_DPI dpi and at most MAX_WIDTH_PX wide (turs.style's rules; the font
    rule is enforced when the notebook saves it, by turs.style.save)."""
    assert path.is_file() and path.stat().st_size > 0, f"{path.name} was not written"
    width, height, dpi = png_size_and_dpi(path)
    assert dpi is not None and round(dpi) >= MIN_DPI, f"{path.name}: {dpi} dpi, needs >= {MIN_DPI}"
    assert width <= MAX_WIDTH_PX, f"{path.name}: {width} x {height} px, at most {MAX_WIDTH_PX} px wide"


def tree_snapshot() -> dict:
    """(mtime, size) of every file a notebook run could write into the repository by mistake:
    figures/, data/results/ and notebooks/ except the .py sources."""
    files = [p for folder in ("figures", "data/results") for p in (REPO / folder).rglob("*") if p.is_file()]
    files += [p for p in NOTEBOOKS.rglob("*") if p.is_file() and p.suffix != ".py"]
    return {str(p.relative_to(REPO)): (p.stat().st_mtime_ns, p.stat().st_size) for p in files}


def changed(before: dict, after: dict) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


@pytest.fixture(scope="module")
def tree_unchanged():
    """Running a module's notebooks writes nothing into figures/, data/results/ or notebooks/ (a
    module uses it with ``pytestmark = pytest.mark.usefixtures("tree_unchanged")``)."""
    before = tree_snapshot()
    yield
    assert not changed(before, tree_snapshot()), f"the notebooks wrote into the repository: {changed(before, tree_snapshot())}"


def execute_in_process(name: str, params: dict) -> dict:
    """Run ``notebooks/<name>.py`` cell by cell in this process (no kernel, so no start-up cost),
    with ``params`` set right after its ``parameters`` cell as papermill sets them; returns its
    namespace. Its figures go where its ``out_dir`` parameter says."""
    import jupytext
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    notebook = jupytext.read(NOTEBOOKS / f"{name}.py")
    namespace = {"__name__": f"notebook_{name}"}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        exec(compile(cell.source, f"{name}.py", "exec"), namespace)  # noqa: S102 - the project's own notebook
        if "parameters" in cell.metadata.get("tags", []):
            namespace.update(params)
    plt.close("all")
    return namespace
