"""A fit before the kernels are compiled: the kernels' own Python, to the bit.

On a fresh install numba's cache is empty, and the kernels a first fit calls compile before
it can run: about 40 s of CPU for iris, 100 s for 20,000 noisy rows (``docs/compile.md``).
Every kernel is a plain Python function that numba compiles; run as Python (each dispatcher's
``py_func``) it does the same float operations in the same order and gives the same rules and
MDL scores, to the bit (``tests/test_cold_start.py`` fits datasets both ways and compares them
with ``==``). As Python a fit took 4 to 110 times the CPU of the compiled one (iris 2.1 s
against 0.47 s, breast cancer 11.8 s against 0.11 s), far less than the compile for a small
table.

So, while the cache holds no compiled kernels for this version of the sources, a fit of a
small table (at most :data:`INTERPRETED_MAX_CELLS` rows x columns) runs them as Python
(:func:`kernels_for_fit`), and one process in the background compiles them all into the cache
(``turs.warmup()``, which marks the cache ready when it is done, :func:`mark_ready`). The fit
switches to the compiled kernels between two rule searches once the cache is ready
(:func:`switch_when_ready`), and every later fit, in this process or another, uses them.
Larger fits compile in their own process as before.

``TURS_KERNELS`` chooses: ``auto`` (the default, as above), ``compiled`` (always compile; no
background process) or ``python`` (always run the kernels as Python; no background process).
"""
from __future__ import annotations

import functools
import importlib
import os
import pkgutil
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

from .._config import NUMBA_CACHE
from ._cache import _package_stamp, checkout_cache_dir

INTERPRETED_MAX_CELLS = 40_000
"""Rows x encoded columns up to which a fit on a cold cache runs the kernels as Python. As
Python, on this project's 2-core machine: iris (600 cells) 2 s, breast cancer (17,070) 12 s,
car (36,288, 23 rules) 32 s; compiling what an iris fit needs is 42 s of CPU."""

_MODES = ("auto", "compiled", "python")
_lock = threading.RLock()
_swapped: list = []  # (module, name, dispatcher) while the kernels run as Python
_depth = 0
_forced: list = []  # compiled_kernels() in force


def _mode() -> str:
    mode = os.environ.get("TURS_KERNELS", "auto").strip().lower() or "auto"
    if mode not in _MODES:
        raise ValueError(f"TURS_KERNELS={mode!r} is not one of {', '.join(_MODES)}; unset it for 'auto'.")
    return mode


def _kernel_modules() -> list:
    """Every module of ``turs._core``, imported (so that every kernel exists before a swap)."""
    from .. import _core

    names = [f"{_core.__name__}.{m.name}" for m in pkgutil.iter_modules(_core.__path__) if not m.name.startswith("__")]
    return [importlib.import_module(name) for name in names]


@functools.lru_cache(maxsize=1)
def _dispatchers() -> dict:
    """``id(py_func) -> dispatcher`` for every kernel of ``turs._core`` (read once, by the first
    swap, while every module still holds its dispatchers)."""
    from numba.core.dispatcher import Dispatcher

    found = {}
    for module in _kernel_modules():
        for value in vars(module).values():
            if isinstance(value, Dispatcher):
                found[id(value.py_func)] = value
    return found


def _package_modules() -> list:
    return [m for name, m in list(sys.modules.items()) if m is not None and (name == "turs" or name.startswith("turs."))]


def cache_dir() -> str | None:
    """The folder of numba's cache that the kernels use: ``NUMBA_CACHE_DIR``, the checkout's
    ``build/numba_cache``, or (an installed package) the folder numba chose for the kernels;
    None when the cache is off."""
    if not NUMBA_CACHE:
        return None
    from numba.core import config

    if config.CACHE_DIR:
        return config.CACHE_DIR
    checkout = checkout_cache_dir()
    if checkout is not None:
        return checkout
    from . import regret

    try:
        return os.path.dirname(regret._log2_regret_blocks._cache._cache_path)
    except AttributeError:  # a numba without that internal: no cold-start path
        return None


def _ready_file(folder: str) -> str:
    return os.path.join(folder, f"turs-kernels-{_package_stamp().hex()[:16]}.ready")


def mark_ready() -> None:
    """Say that the cache holds every kernel of this version of the sources (``turs.warmup()``
    calls it when it has compiled them all)."""
    folder = cache_dir()
    if folder is None:
        return
    os.makedirs(folder, exist_ok=True)
    with open(_ready_file(folder), "w") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()}\n")


def cache_is_ready() -> bool:
    """Whether the cache holds every kernel of this version of the sources."""
    folder = cache_dir()
    return folder is not None and os.path.exists(_ready_file(folder))


def _compiled_here() -> bool:
    """Whether this process has compiled (or loaded from the cache) the serial growth kernel,
    the one every fit calls (asked only while the kernels are not swapped out)."""
    from . import growth

    return bool(getattr(growth._grow_chunk_serial, "signatures", None))


def choose(n_cells: int) -> str:
    """``"python"`` or ``"compiled"``: how a fit of ``n_cells`` rows x encoded columns runs its
    kernels (see the module docstring)."""
    mode = _mode()
    if _forced:
        return "compiled"
    if mode != "auto":
        return mode
    from numba.core import config

    if config.DISABLE_JIT or cache_dir() is None or n_cells > INTERPRETED_MAX_CELLS:
        return "compiled"
    if _depth > 0 and _swapped:
        return "python"  # a fit inside a fit (the explorer's, a refit) keeps the outer choice
    if cache_is_ready() or _compiled_here():
        return "compiled"
    return "python"


def _swap_in() -> None:
    """Every reference to a kernel in a module of ``turs`` becomes the kernel's Python."""
    _dispatchers()  # import every kernel module first
    from numba.core.dispatcher import Dispatcher

    for module in _package_modules():
        for name, value in list(vars(module).items()):
            if isinstance(value, Dispatcher):
                setattr(module, name, value.py_func)
                _swapped.append((module, name, value))


def _swap_out() -> None:
    """Every kernel back, including references taken while the kernels ran as Python (a
    module imported during the fit holds the Python function under the kernel's name)."""
    for module, name, dispatcher in _swapped:
        setattr(module, name, dispatcher)
    _swapped.clear()
    by_func = _dispatchers()
    for module in _package_modules():
        for name, value in list(vars(module).items()):
            dispatcher = by_func.get(id(value))
            if dispatcher is not None and value is dispatcher.py_func:
                setattr(module, name, dispatcher)


def compile_in_background() -> bool:
    """Start one process that compiles every kernel into the cache (``turs.warmup()``), unless
    one is running already. Returns whether a process was started."""
    folder = cache_dir()
    if folder is None:
        return False
    os.makedirs(folder, exist_ok=True)
    lock = os.path.join(folder, "turs-compiling.pid")
    try:
        if time.time() - os.path.getmtime(lock) < 600:
            return False  # another process compiles (a dead one's lock expires after 10 minutes)
        os.remove(lock)
    except OSError:
        pass
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        return False
    code = ("import os, turs\n"
            "try:\n    turs.warmup()\nfinally:\n"
            f"    os.remove({lock!r}) if os.path.exists({lock!r}) else None\n")
    # the child finds the cache as this process does (the same NUMBA_CACHE_DIR, checkout or
    # install); naming the folder for it would put its kernels under another path there
    env = dict(os.environ, TURS_KERNELS="compiled")
    process = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    os.write(fd, f"{process.pid}\n".encode())
    os.close(fd)
    return True


@contextmanager
def kernels_for_fit(n_cells: int):
    """Run the body with the kernels :func:`choose` picks for ``n_cells``; yields the choice.
    On the Python path a background process compiles the kernels (``TURS_KERNELS=auto``)."""
    global _depth
    with _lock:
        choice = choose(n_cells)
        if choice == "python" and not _swapped:
            _swap_in()
            if _mode() == "auto":
                compile_in_background()
        _depth += 1
    try:
        yield choice
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _swapped:
                _swap_out()


@contextmanager
def compiled_kernels():
    """Fits inside compile their kernels, whatever the cache holds (``turs.warmup()``)."""
    with _lock:
        _forced.append(True)
        if _swapped:
            _swap_out()
    try:
        yield
    finally:
        with _lock:
            _forced.pop()


def switch_when_ready() -> bool:
    """Between two rule searches: if the kernels run as Python and the background process has
    filled the cache, use the compiled kernels from now on. Returns whether they are compiled."""
    with _lock:
        if _swapped and _mode() == "auto" and cache_is_ready():
            _swap_out()
        return not _swapped
