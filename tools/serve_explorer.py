"""Serve the explorer notebook with Voila on 127.0.0.1 (``make explorer``).

Voila does not serve ``.py`` files: ``notebooks/explorer.py`` is converted with jupytext into
``build/explorer/explorer.ipynb`` first. Then Voila serves it on 127.0.0.1 and the given port
(0: a free one), the URL is printed, and Ctrl-C (or SIGTERM) stops Voila and the kernels it
started.

    python tools/serve_explorer.py [--port 8866] [--no-convert]
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "notebooks" / "explorer.py"
OUT = REPO / "build" / "explorer" / "explorer.ipynb"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def convert(source: Path = SOURCE, out: Path = OUT) -> Path:
    """``notebooks/explorer.py`` as a notebook (jupytext), written to ``out``."""
    import jupytext

    out.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(jupytext.read(source), out)
    return out


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to Voila, up to 15 s to finish, then SIGKILL to its own process group."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait(timeout=15)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8866, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--no-convert", action="store_true", help="serve the notebook already in build/explorer")
    args = parser.parse_args(argv)
    if args.port < 0 or args.port > 65535:
        parser.error(f"--port must be in 0..65535. Got {args.port}.")
    try:
        notebook = OUT if args.no_convert else convert()
    except ImportError:
        print("jupytext is missing: pip install -e '.[notebooks,explorer]'", file=sys.stderr)
        return 2
    port = args.port or free_port()
    env = dict(os.environ, MPLBACKEND="Agg")
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / "build" / "numba_cache"))
    cmd = [sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
           "--VoilaConfiguration.extension_denylist=jupyterlab-jupytext"]
    proc = subprocess.Popen(cmd, cwd=notebook.parent, env=env, start_new_session=True)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as Ctrl-C does
    try:
        if not wait_for_port(port, proc):
            print(f"Voila did not start on 127.0.0.1:{port} (exit code {proc.poll()}); is voila installed "
                  "(pip install -e '.[explorer]') and the port free?", file=sys.stderr)
            return 1
        print(f"TURS explorer: http://127.0.0.1:{port}/  (Ctrl-C stops it)", flush=True)
        proc.wait()
        return proc.returncode or 0
    except KeyboardInterrupt:
        print("stopping Voila", flush=True)
        return 0
    finally:
        stop(proc)


if __name__ == "__main__":
    sys.exit(main())
