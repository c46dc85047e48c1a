"""How many students one explorer server serves: N pages opened at once, time to the first picture.

Starts ``tools/serve_explorer.py``'s Voila (with ``--pool``, ``--cull-idle`` as given) on a free
port, waits until the pool is ready, then opens N pages at the same moment, each in its own
browser context (as N students on N machines), in headless Chromium (/usr/bin/chromium), and
reports for each page the seconds from opening to its first picture (the Data picture of the
first explorer), or the failure, with the kernels' memory (resident set of each ipykernel
process) and the machine's load. Nothing here is a test: the numbers depend on the machine.

    python tools/explorer_class_load.py --pages 10 --pool 10 [--limit 30] [--json out.json]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def _serve():
    spec = importlib.util.spec_from_file_location("serve_explorer", REPO / "tools" / "serve_explorer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_memory_mb(root_pid: int) -> list[float]:
    """Resident memory (MB) of each ipykernel process under ``root_pid``."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,rss,args"], capture_output=True, text=True).stdout.splitlines()[1:]
    rows = [line.split(None, 3) for line in out]
    children: dict[int, list] = {}
    for pid, ppid, rss, cmd in (r for r in rows if len(r) == 4):
        children.setdefault(int(ppid), []).append((int(pid), int(rss), cmd))
    found, todo = [], [root_pid]
    while todo:
        for pid, rss, cmd in children.get(todo.pop(), []):
            todo.append(pid)
            if "ipykernel" in cmd:
                found.append(rss / 1024)
    return found


def open_pages(url: str, n: int, limit: float) -> list[dict]:
    from playwright.sync_api import sync_playwright

    results = [None] * n
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            contexts = [browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(n)]
            pages = []
            for ctx in contexts:
                page = ctx.new_page()
                page.route("**/*", lambda route: route.continue_() if "127.0.0.1" in route.request.url
                           else route.abort())
                pages.append(page)
            t0 = time.monotonic()
            for page in pages:  # every request goes out before any page is waited for
                page.evaluate(f"() => {{ window.location.href = {json.dumps(url)}; }}")
            for i, page in enumerate(pages):
                left = max(1.0, limit + 60 - (time.monotonic() - t0))
                try:
                    page.wait_for_function(
                        "() => { const el = document.querySelector('img.turs-plot'); "
                        "return el && el.src && el.naturalWidth > 0; }", timeout=left * 1000)
                    results[i] = {"page": i, "seconds": round(time.monotonic() - t0, 1), "error": None}
                except Exception as exc:  # noqa: BLE001 - a page that failed is a result
                    text = page.evaluate("() => document.body ? document.body.innerText.slice(0, 300) : ''")
                    results[i] = {"page": i, "seconds": None, "error": f"{type(exc).__name__}: {text!r}"}
            # a page measured late may have been ready earlier: the order of waiting is not the order
            # of arrival, so each time is an upper bound
        finally:
            browser.close()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--pool", type=int, default=10)
    parser.add_argument("--cull-idle", type=int, default=300)
    parser.add_argument("--limit", type=float, default=30.0, help="seconds a page may take to its first picture")
    parser.add_argument("--ready-timeout", type=float, default=900.0,
                        help="seconds to wait for the pool to be ready before opening pages")
    parser.add_argument("--nice-browser", type=int, default=15,
                        help="niceness of the browser (it shares the server's cores here; 0: none)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    serve = _serve()
    tmp = Path(tempfile.mkdtemp(prefix="turs-class-"))
    notebook = serve.convert(serve.SOURCE, tmp / "explorer.ipynb")
    port = serve.free_port()
    env = serve.server_env(notebook, args.pool)
    log = open(tmp / "voila.log", "w")
    proc = subprocess.Popen(serve.voila_command(notebook, port, pool=args.pool, cull_idle=args.cull_idle),
                            cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    report = {"pages": args.pages, "pool": args.pool, "limit": args.limit, "nice_browser": args.nice_browser}
    try:
        if not serve.wait_for_port(port, proc, timeout=60):
            raise RuntimeError(f"Voila did not start (see {tmp / 'voila.log'})")
        t0 = time.monotonic()
        # the pool is ready when its kernels have run the notebook: their memory stops growing
        last, steady = None, 0
        while time.monotonic() - t0 < args.ready_timeout:
            mem = kernel_memory_mb(proc.pid)
            total = round(sum(mem) / 50)
            steady = steady + 1 if (len(mem) >= args.pool and total == last and mem and min(mem) > 200) else 0
            last = total
            if steady >= 6 or args.pool == 0:
                break
            time.sleep(5)
        report["pool_ready_seconds"] = round(time.monotonic() - t0, 1)
        report["load_before"] = os.getloadavg()
        sampler_stop = threading.Event()
        peak = {"load": 0.0}

        def sample():
            while not sampler_stop.wait(2):
                peak["load"] = max(peak["load"], os.getloadavg()[0])

        threading.Thread(target=sample, daemon=True).start()
        if args.nice_browser:
            # the students' browsers run on their own machines: here they share the server's cores, so
            # they yield to it (Voila and its kernels started before this and keep their priority)
            os.nice(args.nice_browser)
        results = open_pages(f"http://127.0.0.1:{port}/", args.pages, args.limit)
        sampler_stop.set()
        time.sleep(5)
        mem = kernel_memory_mb(proc.pid)
        ok = [r["seconds"] for r in results if r["seconds"] is not None]
        report.update({
            "results": results, "failures": sum(r["seconds"] is None for r in results),
            "within_limit": sum(s <= args.limit for s in ok), "slowest_seconds": max(ok) if ok else None,
            "kernels": len(mem), "kernel_mb": [round(m) for m in mem],
            "kernel_mb_median": round(sorted(mem)[len(mem) // 2]) if mem else None,
            "load_after": os.getloadavg(), "load_peak_1min": round(peak["load"], 2), "cpus": os.cpu_count(),
        })
    finally:
        serve.stop(proc)
        log.close()
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0 if report.get("failures") == 0 and report.get("within_limit") == args.pages else 1


if __name__ == "__main__":
    sys.exit(main())
