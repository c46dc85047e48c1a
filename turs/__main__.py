"""``python -m turs info``: where numba's compile cache of the kernels is, whether it can be
written and holds every kernel, and what this process has compiled (``turs._compile``).
``python -m turs warmup``: compile every kernel into that cache (``turs.warmup()``), ahead of
a first large fit."""
from __future__ import annotations

import argparse
import sys


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m turs", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["info", "warmup"])
    args = parser.parse_args(argv)
    import turs
    from turs import _compile
    from turs._core.kernels import compiled_here

    if args.command == "warmup":
        with _compile.compile_bar(sys.stderr.isatty()):  # the functions numba compiles, as they come
            seconds = turs.warmup()
        print(f"turs.warmup(): every kernel compiled or loaded in {seconds:.1f} s")
    print(_compile.info(compiled_here()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
