#!/usr/bin/env python3
"""Execute one jupytext (percent-format) notebook source with papermill.

    python tools/run_notebook.py notebooks/fig3_2_gap_to_best.py --profile quick
    python tools/run_notebook.py notebooks/x.py -p n_repeats 3 -p dataset "'iris'"

The notebook receives the parameters ``profile`` and ``out_dir`` (where it writes its
figures: by default ``<repo>/figures`` for ``--profile paper``, the committed figures, and
``<repo>/build/figures`` for ``--profile quick``, ignored by git) plus every ``-p KEY VALUE``; papermill injects them
after the cell tagged ``parameters`` (``# %% tags=["parameters"]``). The kernel runs in the
repository root and the executed notebook is written to ``<repo>/build/notebooks/<name>.ipynb``.
Paths given on the command line are taken relative to the current directory; every
default is derived from this file's location, never from the current directory.

Exit status: 0 on success, 1 if a cell raised (the error is printed and the executed
notebook, with the failing cell, is still written), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colour codes in kernel tracebacks


def parse_value(text: str):
    """A Python literal if ``text`` is one (``3``, ``0.5``, ``[1, 2]``, ``None``), else the string itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Execute a jupytext percent-format notebook with papermill.",
    )
    parser.add_argument("notebook", type=Path, help="path to a jupytext percent-format .py notebook")
    parser.add_argument("--profile", default="quick", help="value of the notebook's `profile` parameter (default: quick)")
    parser.add_argument(
        "--out-dir", type=Path, default=None,
        help="value of the notebook's `out_dir` parameter, where it writes figures (default: <repo>/figures "
             "for --profile paper, <repo>/build/figures for quick, <repo>/build/figures/PROFILE otherwise)",
    )
    parser.add_argument(
        "-p", "--parameter", nargs=2, action="append", default=[], metavar=("KEY", "VALUE"),
        help="extra parameter; VALUE is read as a Python literal if it is one, else kept as a string (repeatable)",
    )
    parser.add_argument(
        "--output", type=Path, default=None,
        help="where to write the executed notebook (default: <repo>/build/notebooks/<name>.ipynb)",
    )
    return parser


def default_out_dir(profile: str) -> Path:
    """The profile's figures folder (the same rule as ``turs.reproduce.figures_dir``)."""
    if profile == "paper":
        return REPO / "figures"
    return REPO / "build" / "figures" if profile == "quick" else REPO / "build" / "figures" / profile


def parameters_from(args: argparse.Namespace) -> dict:
    out_dir = args.out_dir if args.out_dir is not None else default_out_dir(args.profile)
    params = {"profile": args.profile, "out_dir": str(out_dir.resolve())}
    for key, value in args.parameter:
        if not key.isidentifier():
            raise SystemExit(f"run_notebook: parameter name {key!r} is not a Python identifier.")
        params[key] = parse_value(value)
    return params


@contextmanager
def _kernel_manager_class():
    """The kernel talks to papermill over Unix sockets in a private temporary folder, not TCP.

    Over TCP each kernel picks five free ports and binds them only later; notebooks started
    together (the test suite runs several at once) can pick the same port, and one kernel then
    dies with ``ZMQError: Address already in use`` ("Kernel didn't respond in 60 seconds").
    Socket files in a folder of their own cannot collide. papermill creates, owns and shuts down
    the kernel manager as usual. On Windows (no IPC transport) its default TCP kernel is used."""
    if os.name == "nt":
        yield None
        return
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    with tempfile.TemporaryDirectory(prefix="turs-kernel-") as folder:
        class PrivateIPCKernelManager(AsyncKernelManager):
            @default("transport")
            def _private_transport(self):
                return "ipc"

            @default("ip")
            def _private_ip(self):
                return os.path.join(folder, "kernel")

        yield PrivateIPCKernelManager


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    source = args.notebook.resolve()
    if not source.is_file():
        print(f"run_notebook: {args.notebook} does not exist.", file=sys.stderr)
        return 2
    output = (args.output or REPO / "build" / "notebooks" / f"{source.stem}.ipynb").resolve()
    params = parameters_from(args)

    try:
        import jupytext
        import papermill
    except ImportError as exc:
        print(
            f"run_notebook: {exc.name} is missing; install the notebook extra: pip install -e '.[notebooks]'",
            file=sys.stderr,
        )
        return 2

    nb = jupytext.read(source)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    output.parent.mkdir(parents=True, exist_ok=True)
    Path(params["out_dir"]).mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    try:
        with _kernel_manager_class() as manager:
            papermill.execute_notebook(
                nb,
                str(output),
                parameters=params,
                kernel_name="python3",
                cwd=str(REPO),
                progress_bar=False,
                **({"kernel_manager_class": manager} if manager else {}),
            )
    except papermill.PapermillExecutionError as err:
        print(
            f"run_notebook: {source.name} failed in cell {err.cell_index} "
            f"(execution count {err.exec_count}): {err.ename}: {err.evalue}",
            file=sys.stderr,
        )
        print(_ANSI.sub("", "\n".join(err.traceback)), file=sys.stderr)
        print(f"run_notebook: the executed notebook is in {output}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
    print(f"run_notebook: {source.name} ({shown}) ran in {seconds:.1f} s -> {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
