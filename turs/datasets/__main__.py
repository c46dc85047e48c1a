"""``python -m turs.datasets``: fetch and verify the benchmark datasets, or list them.

    python -m turs.datasets fetch [--profile paper|large|all] [--datasets a,b] [--dest DIR]
                                  [--base-url URL] [--retries N] [--timeout S]
                                  [--verify-only] [--no-progress]
    python -m turs.datasets list [--profile paper|large|all] [--dest DIR]

``fetch`` fills DIR = ``--dest``, else ``$TURS_DATA_DIR``, else the cache folder (where
``turs.datasets.load`` looks last), prints one line per dataset and a summary line, and exits 0
when every dataset is there and verified, 1 otherwise (2 for a usage error). ``make data`` runs
``fetch --profile $(DATA_PROFILE)`` (default ``paper``).
"""
from __future__ import annotations

import argparse
import logging
import sys

from ._fetch import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    ENV_BASE_URL,
    FETCH_PROFILES,
    default_dest,
    fetch,
    profile_datasets,
    source_url,
)
from ._load import get_info, sha256_file


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m turs.datasets",
        description="Fetch and verify the benchmark datasets (see docs/datasets.md).",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    f = sub.add_parser(
        "fetch", help="download the datasets of a profile and verify their SHA-256",
        description="Download the datasets of a profile from their pinned public sources and "
        "verify their SHA-256. Files already present with the right checksum are verified, "
        "not downloaded again. Exit status 0 when every dataset is there and verified, else 1.",
    )
    f.add_argument("--profile", choices=FETCH_PROFILES, default="paper",
                   help="paper: the 30 thesis datasets the study has; large: cover, campaign, "
                        "shuttle, skin; all: both (default: paper)")
    f.add_argument("--datasets", default=None,
                   help="comma-separated dataset names instead of a profile, e.g. car,iris")
    f.add_argument("--dest", default=None,
                   help="data folder to fill (default: $TURS_DATA_DIR, else the cache folder)")
    f.add_argument("--base-url", default=None,
                   help=f"a mirror replacing https://raw.githubusercontent.com/ with the same "
                        f"layout (default: ${ENV_BASE_URL}, else GitHub)")
    f.add_argument("--retries", type=int, default=DEFAULT_RETRIES,
                   help=f"extra attempts after a failed download (default: {DEFAULT_RETRIES})")
    f.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help=f"seconds without an answer before an attempt fails (default: "
                        f"{DEFAULT_TIMEOUT:g})")
    f.add_argument("--verify-only", action="store_true",
                   help="download nothing: check that the files are there with the right SHA-256")
    f.add_argument("--no-progress", action="store_true", help="no progress bars")

    ls = sub.add_parser("list", help="list the datasets of a profile, their files and sources")
    ls.add_argument("--profile", choices=FETCH_PROFILES, default="all")
    ls.add_argument("--dest", default=None,
                    help="data folder to inspect (default: $TURS_DATA_DIR, else the cache folder)")
    return parser


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError(f"--datasets names no dataset. Got {text!r}; give e.g. --datasets car,iris.")
    return names


def _cmd_fetch(args) -> int:
    dest = default_dest(args.dest)
    results = fetch(
        _names(args.datasets), profile=args.profile, dest=dest, base_url=args.base_url,
        retries=args.retries, timeout=args.timeout, progressbar=not args.no_progress,
        download=not args.verify_only,
    )
    width = max(len(r.name) for r in results)
    for r in results:
        line = f"{r.status:9s}{r.name:{width}s}  {r.path}"
        print(line if r.error is None else f"{line}\n  {r.error}")
    counts = {s: sum(r.status == s for r in results) for s in ("fetched", "verified", "failed")}
    what = f"profile {args.profile}" if args.datasets is None else "--datasets"
    print(f"{len(results)} datasets ({what}) in {dest}: {counts['fetched']} fetched, "
          f"{counts['verified']} verified, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


def _cmd_list(args) -> int:
    dest = default_dest(args.dest)
    print(f"data folder: {dest}")
    for name in profile_datasets(args.profile):
        info = get_info(name)
        path = dest / info.file
        if not path.is_file():
            state = "missing"
        else:
            state = "ok" if sha256_file(path) == info.sha256 else "CHECKSUM MISMATCH"
        print(f"{name:15s} {info.group:7s} {info.file:26s} {state:8s} {source_url(info)}")
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return {"fetch": _cmd_fetch, "list": _cmd_list}[args.command](args)
    except ValueError as exc:  # unknown names, a bad base URL or option value
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: no partial file was kept under a dataset's name; run the same "
              "command again to fetch what is still missing", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
