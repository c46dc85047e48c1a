"""Packaging promises: pyproject.toml and environment.yml agree, `import turs` stays light,
tools/run_notebook.py executes a jupytext notebook with parameters, and
tools/replay_kernel.py's cost-model fit still instruments the kernel and recovers known constants."""

import importlib.util
import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")
yaml = pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parent.parent

# Optional parts that `import turs` must never pull in (extras: explorer, notebooks, competitors).
OPTIONAL_TOP_LEVEL = {"ipywidgets", "voila", "papermill", "jupytext", "nbclient", "Orange", "weka", "jpype", "dask",
                      "distributed"}


def normalise(requirement: str) -> str:
    """'Scikit_Learn[extra]>=1.3; python_version>"3"' -> 'scikit-learn'."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, f"cannot read a package name from {requirement!r}"
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def test_normalise():
    assert normalise("Scikit_Learn[extra] >=1.3 ; python_version>'3'") == "scikit-learn"
    assert normalise("pytest-timeout==2.3") == "pytest-timeout"
    assert normalise("PyYAML") == "pyyaml"
    assert normalise("python>=3.10") == "python"


def pyproject_packages() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    return {normalise(r) for r in requirements}


def environment_packages() -> set[str]:
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    names = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):  # the `pip:` list; skip options such as `-e .`
            names |= {normalise(p) for p in dep.get("pip", []) if not p.lstrip().startswith(("-", "."))}
        else:
            names.add(normalise(dep.split("::")[-1]))  # `conda-forge::numba` -> numba
    return names - {"python", "pip"}


def test_pyproject_and_environment_list_the_same_packages():
    in_pyproject, in_environment = pyproject_packages(), environment_packages()
    assert in_pyproject == in_environment, (
        f"only in pyproject.toml: {sorted(in_pyproject - in_environment)}; "
        f"only in environment.yml: {sorted(in_environment - in_pyproject)}"
    )


def test_core_dependencies_and_extras():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["name"] == "turs"
    assert {normalise(r) for r in project["dependencies"]} >= {"numpy", "pandas", "numba", "scikit-learn", "scipy"}
    assert set(project["optional-dependencies"]) >= {"notebooks", "explorer", "competitors", "dev"}


@pytest.mark.subprocess
def test_import_turs_does_not_import_optional_parts():
    code = (
        "import turs, sys; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(OPTIONAL_TOP_LEVEL)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"`import turs` imported optional modules: {done.stdout.strip()}"


# --- tools/run_notebook.py ---------------------------------------------------------------


def load_tool(name: str):
    """A script of ``tools/`` (not a package) as a module."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_runner():
    return load_tool("run_notebook")


def test_run_notebook_parameters(tmp_path):
    runner = load_runner()
    assert runner.parse_value("3") == 3
    assert runner.parse_value("0.5") == 0.5
    assert runner.parse_value("[1, 2]") == [1, 2]
    assert runner.parse_value("None") is None
    assert runner.parse_value("iris") == "iris"
    assert runner.parse_value("'3'") == "3"
    args = runner.build_parser().parse_args(
        ["nb.py", "--profile", "paper", "--out-dir", str(tmp_path), "-p", "n", "3", "-p", "name", "iris"]
    )
    assert runner.parameters_from(args) == {"profile": "paper", "out_dir": str(tmp_path), "n": 3, "name": "iris"}
    default = runner.build_parser().parse_args(["nb.py"])
    assert default.profile == "quick"
    assert default.out_dir is None  # then the profile decides: quick -> build/figures, paper -> figures
    assert runner.default_out_dir("quick") == REPO / "build" / "figures"
    assert runner.default_out_dir("paper") == REPO / "figures"


NOTEBOOK = '''\
# %%
from pathlib import Path

# %% tags=["parameters"]
profile = "quick"
out_dir = "figures"
n = 1

# %%
assert n != 99, "n must not be 99"
Path(out_dir, "result.txt").write_text(f"{profile} {n} {type(n).__name__} {Path.cwd()}")
'''


@pytest.mark.subprocess
def test_run_notebook_end_to_end(tmp_path):
    pytest.importorskip("papermill")
    pytest.importorskip("jupytext")
    source = tmp_path / "tiny.py"
    source.write_text(textwrap.dedent(NOTEBOOK))
    out_dir, output = tmp_path / "figures", tmp_path / "executed.ipynb"
    command = [sys.executable, str(REPO / "tools" / "run_notebook.py"), str(source),
               "--profile", "paper", "--out-dir", str(out_dir), "--output", str(output)]

    ok = subprocess.run(command + ["-p", "n", "3"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert output.is_file()
    assert (out_dir / "result.txt").read_text() == f"paper 3 int {REPO}"  # the kernel runs in the repo root

    failed = subprocess.run(command + ["-p", "n", "99"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 1
    assert "AssertionError: n must not be 99" in failed.stderr


@pytest.mark.subprocess
@pytest.mark.skipif(os.name == "nt", reason="Unix sockets: Windows keeps papermill's TCP kernel")
def test_notebooks_started_together_do_not_share_kernel_ports(tmp_path):
    """Over TCP, kernels started at the same moment could pick the same free port and one died
    with 'Address already in use' (the benchmark-notebook tests run four at once). The runner's
    kernels talk over Unix sockets in private folders: six at once all finish, none over TCP,
    and no socket file is left in the working folder."""
    pytest.importorskip("papermill")
    pytest.importorskip("jupytext")
    source = tmp_path / "tiny.py"
    source.write_text(textwrap.dedent(NOTEBOOK))
    procs = []
    for n in range(6):
        out_dir = tmp_path / f"out{n}"
        command = [sys.executable, str(REPO / "tools" / "run_notebook.py"), str(source), "--out-dir", str(out_dir),
                   "--output", str(tmp_path / f"executed{n}.ipynb"), "-p", "n", str(n)]
        procs.append(subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    for n, proc in enumerate(procs):
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
        assert "over TCP" not in stderr
        assert (tmp_path / f"out{n}" / "result.txt").read_text() == f"quick {n} int {REPO}"
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("kernel")]


# --- tools/replay_kernel.py fit-costs ----------------------------------------------------------
# The union build's cost model is refitted with it, so its instrumented kernel must still find
# its lines in the kernel, and its fit must recover known constants (docs/performance.md).


@pytest.fixture(scope="module")
def tool():
    return load_tool("replay_kernel")


def test_the_instrumented_kernel_takes_the_components_argument(tool):
    module = tool._instrumented_kernel(str(REPO / "turs" / "_core" / "growth.py"))
    names = list(inspect.signature(module._grow_chunk_serial.py_func).parameters)
    assert names[-2:] == ["out", "stats"]
    assert all(f"stats[f, {i}]" in inspect.getsource(module._grow_chunk_impl) for i in range(8))


@pytest.mark.parametrize("seed", range(3))
def test_the_fit_recovers_the_constants_of_simulated_timings(tool, seed):
    """Per-feature times made from known constants (each build's terms, a time common to the
    three builds, and the per-bucket term fixed) give those constants back."""
    rng = np.random.default_rng(seed)
    truth = {"rows": np.array([1.0, 2.3]), "bins": np.array([300.0, 0.29]), "bits": np.array([1000.0, 3.0, 0.27, 1.4])}
    bucket = 0.5
    data = []
    for _ in range(2):
        X = rng.uniform(0, 1000, size=(400, 8))
        X[:, 0] = 1.0
        common = rng.uniform(0, 5000, size=400)
        T = np.c_[tuple(common + X[:, tool._TERMS[b][0]] @ truth[b] for b in ("rows", "bins", "bits"))]
        T[:, 1] += bucket * X[:, 3]
        data.append((X, T * 1e-9))  # seconds
    fitted = tool._fit(data, bucket * 1e-9)
    for build, coef in zip(("rows", "bins", "bits"), fitted):
        np.testing.assert_allclose(coef / 1e-9, truth[build], rtol=1e-6)
