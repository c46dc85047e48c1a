"""Write the search pages of the bundled teaching datasets: ``python -m turs.explorer.page OUT_DIR``
(``make explorer-html``: ``build/pages/<dataset>.html``).

Each dataset of :data:`turs.datasets.BUNDLED` is fitted with the default settings and
``record_trace=True``, and its page written with every training row (up to 5,000). Options:
``--datasets a,b`` (a subset), ``--points all|sample|none``.
"""
from __future__ import annotations

import argparse
from pathlib import Path


def main(argv=None) -> int:
    from turs import TURSClassifier
    from turs.datasets import BUNDLED, load_bundled

    from . import search_page

    parser = argparse.ArgumentParser(prog="python -m turs.explorer.page", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write <dataset>.html into")
    parser.add_argument("--datasets", default=",".join(BUNDLED), help="comma-separated bundled dataset names")
    parser.add_argument("--points", default="all", choices=["all", "sample", "none"])
    args = parser.parse_args(argv)
    names = [n for n in args.datasets.split(",") if n]
    unknown = [n for n in names if n not in BUNDLED]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}; choose from {list(BUNDLED)}")
    for name in names:
        X, y = load_bundled(name)
        model = TURSClassifier(record_trace=True).fit(X, y)
        page = search_page(model, X, y, args.out / f"{name}.html", points=args.points,
                           title=f"{name}: the TURS search")
        # a command-line tool (not the library) says what it wrote
        print(f"{args.out / (name + '.html')}: {page.size / 1e6:.2f} MB, {len(model.rules_)} rule{'s' if len(model.rules_) != 1 else ''}, "
              f"{len(model.trace_.searches)} rule searches")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
