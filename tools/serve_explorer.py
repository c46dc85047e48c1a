"""Serve the explorer notebook with Voila (``make explorer``), for one user or a class.

Voila does not serve ``.py`` files: ``notebooks/explorer.py`` is converted with jupytext into
``build/explorer/explorer.ipynb`` first. Then Voila serves it on the given host and port (0: a
free one), the URL is printed, and Ctrl-C (or SIGTERM) stops Voila and the kernels it started.

    python tools/serve_explorer.py [--port 8866] [--host 127.0.0.1] [--token T] [--pool 2]
                                   [--cull-idle 300] [--no-convert]

* ``--host``: 127.0.0.1 (default) serves this machine only, with no token. Any other address
  (``0.0.0.0``: every network interface, for students on other machines) needs a token: one is
  made up unless ``--token`` gives it, and the printed URL carries it (``?token=...``); a page
  without it is refused. There is no open server on a network.
* ``--pool N`` (default 2): N kernels are started, and run the notebook, before anyone asks
  (Voila's preheated kernel pool); a page then opens at once, and the kernel it took is replaced
  ``FILL_DELAY`` seconds later, once that page has rendered (a pooled page shows its first
  picture within a few seconds; a replacement started at the same moment would slow it). With
  one kernel refilled a minute later, a second visitor within that minute waits for a kernel of
  their own (44-55 s measured). Each kernel holds about 0.4 GB.
* A page that finds the pool empty shows "Starting a kernel for you: about ``KERNEL_START_S`` s"
  with the seconds so far, instead of Voila's "Executing 3 of 9" (the page template ``turs``,
  written next to the notebook, extends Voila's ``lab``).
* ``--cull-idle S``: a kernel whose page was closed (no connection) and that has been idle for
  S seconds is shut down (checked every minute); open pages are never culled.
* An upload travels to the kernel as one websocket message: messages up to
  ``SERVER_MAX_UPLOAD_MB`` are taken (tornado's default of 10 MB dropped the connection), and the
  explorer refuses files over ``MAX_UPLOAD_MB`` with a message (``turs.explorer._studio``).
* A page whose kernel is slow to answer (many pages opening at once) waits up to
  ``IOPUB_TIMEOUT`` seconds for the notebook's output rather than Voila's 4 s, after which the
  page came up empty.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "notebooks" / "explorer.py"
OUT = REPO / "build" / "explorer" / "explorer.ipynb"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
SERVER_MAX_UPLOAD_MB = 200  # as turs.explorer._studio.SERVER_MAX_UPLOAD_MB (not imported: no turs needed here)
IOPUB_TIMEOUT = 120  # s
DEFAULT_POOL = 2
FILL_DELAY = 5  # s: a pool kernel taken by a page is replaced once the page has rendered
#: Seconds from a page's request to its first picture when no pool kernel is ready (a kernel is
#: started and runs the notebook): 14-22 s on the project's 2-core machine with other work
#: running (docs/performance.md; `pytest -s tests/test_explorer_serve.py -k waiting` prints it).
KERNEL_START_S = 20
TEMPLATE = "turs"
#: Why a page waits (the loading text's last sentence): a pool whose kernels are taken, or no pool
WHY_WAIT = {True: "All ready kernels are in use; the explorer runs its first fit.",
            False: "This server keeps no kernel ready (--pool 0); the explorer runs its first fit."}
#: The page template: Voila's lab template with the loading text of a page that waits for its kernel
TEMPLATE_HTML = """{%- extends 'voila/templates/lab/index.html.j2' -%}
{%- block body_header -%}
{{ super() }}
<script>
(function () {
  const t0 = Date.now();
  const say = () => {
    const el = document.getElementById('loading_text');
    if (el) {
      el.textContent = 'Starting a kernel for you: about KERNEL_START_S s (' + Math.round((Date.now() - t0) / 1000)
        + ' s so far). WHY_WAIT';
    }
  };
  window.update_loading_text = say;
  const timer = setInterval(() => {
    const spinner = document.getElementById('loading');
    if (!spinner || spinner.style.display === 'none') { clearInterval(timer); return; }
    say();
  }, 1000);
})();
</script>
{%- endblock body_header -%}
"""
CULL_INTERVAL = 60  # s


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host if host not in ("0.0.0.0", "") else "127.0.0.1", 0))
        return s.getsockname()[1]


def convert(source: Path = SOURCE, out: Path = OUT) -> Path:
    """``notebooks/explorer.py`` as a notebook (jupytext), written to ``out``."""
    import jupytext

    out.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(jupytext.read(source), out)
    return out


def write_template(folder: Path, pool: int = DEFAULT_POOL) -> Path:
    """The page template ``turs`` under ``folder/share`` (give that to Voila as ``JUPYTER_PATH``);
    its loading text says why the page waits with ``pool`` kernels kept ready."""
    target = folder / "share" / "voila" / "templates" / TEMPLATE
    target.mkdir(parents=True, exist_ok=True)
    (target / "conf.json").write_text(json.dumps({"base_template": "lab"}))
    page = TEMPLATE_HTML.replace("KERNEL_START_S", str(KERNEL_START_S)).replace("WHY_WAIT", WHY_WAIT[pool > 0])
    (target / "index.html.j2").write_text(page)
    return folder / "share"


def server_env(notebook: Path, pool: int = DEFAULT_POOL) -> dict:
    """Voila's environment: the Agg backend, numba's cache, and the page template's folder (its
    loading text written for ``pool`` kernels kept ready)."""
    env = dict(os.environ, MPLBACKEND="Agg")
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / "build" / "numba_cache"))
    share = write_template(notebook.parent, pool)
    env["JUPYTER_PATH"] = os.pathsep.join([str(share)] + ([env["JUPYTER_PATH"]] if env.get("JUPYTER_PATH") else []))
    return env


def voila_config(pool: int = DEFAULT_POOL, cull_idle: int = 300) -> dict:
    """Voila's configuration (``voila.json``): upload size, preheated pool, culling, IOPub wait."""
    config = {
        "Voila": {"tornado_settings": {"websocket_max_message_size": SERVER_MAX_UPLOAD_MB * 2**20}},
        "VoilaExecutor": {"iopub_timeout": IOPUB_TIMEOUT},
        "VoilaConfiguration": {"preheat_kernel": pool > 0, "default_pool_size": max(int(pool), 0),
                               "template": TEMPLATE},
        "VoilaKernelManager": {"fill_delay": FILL_DELAY},
    }
    if cull_idle > 0:
        config["MappingKernelManager"] = {"cull_idle_timeout": int(cull_idle), "cull_interval": CULL_INTERVAL,
                                          "cull_connected": False}
    return config


def voila_command(notebook: Path, port: int, host: str = "127.0.0.1", token: str | None = None,
                  pool: int = DEFAULT_POOL, cull_idle: int = 300) -> list[str]:
    """The Voila command line; writes ``voila.json`` next to the notebook (Voila reads it from its
    working folder, which must be ``notebook.parent``). Run it with :func:`server_env`."""
    (notebook.parent / "voila.json").write_text(json.dumps(voila_config(pool, cull_idle), indent=1))
    cmd = [sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}", f"--Voila.ip={host}",
           "--VoilaConfiguration.extension_denylist=jupyterlab-jupytext"]
    if token:
        cmd.append(f"--Voila.token={token}")
    return cmd


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 60, host: str = "127.0.0.1") -> bool:
    host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection((host, port), timeout=0.5):
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
    parser.add_argument("--port", type=int, default=8866, help="port (0: a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on: 127.0.0.1 (this machine only, no token) or e.g. 0.0.0.0 "
                             "(the network; a token is required)")
    parser.add_argument("--token", default=None, help="the token pages must carry (made up when --host is not "
                                                      "loopback and none is given)")
    parser.add_argument("--pool", type=int, default=DEFAULT_POOL,
                        help="kernels started and run before anyone asks (about 0.5 GB each; 0: none)")
    parser.add_argument("--cull-idle", type=int, default=300,
                        help="seconds after which a kernel whose page was closed is shut down (0: never)")
    parser.add_argument("--no-convert", action="store_true", help="serve the notebook already in build/explorer")
    args = parser.parse_args(argv)
    if args.port < 0 or args.port > 65535:
        parser.error(f"--port must be in 0..65535. Got {args.port}.")
    if args.pool < 0 or args.cull_idle < 0:
        parser.error(f"--pool and --cull-idle must be >= 0. Got {args.pool} and {args.cull_idle}.")
    token = args.token
    if args.host not in LOOPBACK and not token:
        if token == "":
            parser.error(f"--host {args.host} serves the network: an empty --token would open it to anyone. "
                         "Give a token, or leave --token out to have one made up.")
        token = secrets.token_urlsafe(12)
    try:
        notebook = OUT if args.no_convert else convert()
    except ImportError:
        print("jupytext is missing: pip install -e '.[notebooks,explorer]'", file=sys.stderr)
        return 2
    port = args.port or free_port(args.host)
    env = server_env(notebook, args.pool)
    cmd = voila_command(notebook, port, args.host, token, args.pool, args.cull_idle)
    proc = subprocess.Popen(cmd, cwd=notebook.parent, env=env, start_new_session=True)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as Ctrl-C does
    try:
        if not wait_for_port(port, proc, host=args.host):
            print(f"Voila did not start on {args.host}:{port} (exit code {proc.poll()}); is voila installed "
                  "(pip install -e '.[explorer]') and the port free?", file=sys.stderr)
            return 1
        shown = socket.gethostname() if args.host in ("0.0.0.0", "") else args.host
        query = f"?token={token}" if token else ""
        print(f"TURS explorer: http://{shown}:{port}/{query}  (Ctrl-C stops it; {args.pool} kernel"
              f"{'s' if args.pool != 1 else ''} pre-started)", flush=True)
        proc.wait()
        return proc.returncode or 0
    except KeyboardInterrupt:
        print("stopping Voila", flush=True)
        return 0
    finally:
        stop(proc)


if __name__ == "__main__":
    sys.exit(main())
