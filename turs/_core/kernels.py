"""The kernels a fit calls, chosen once per fit: compiled, or their own Python, to the bit.

On a fresh install numba's cache is empty, and the kernels a first fit calls compile before
it can run: about 40 s of CPU for iris, 100 s for 20,000 noisy rows (``docs/compile.md``).
Every kernel is a plain Python function that numba compiles; run as Python (the dispatcher's
``py_func``) it does the same float operations in the same order and gives the same rules and
MDL scores, to the bit (``tests/test_cold_start.py``). As Python a fit took 4 to 110 times the
CPU of the compiled one, far less than the compile for a small table.

A :class:`Kernels` record holds every function of ``turs/_core`` by name: :func:`compiled_set`
the module's own (the dispatchers), :func:`python_set` the Python twins, built once without
changing any module: copies of each kernel's ``py_func`` (and of each plain function of
``turs/_core``) whose globals are a copy of their module's in which every kernel name maps to
its twin, so that a twin calls twins all the way down. No module attribute changes at run time.

A fit takes its set once (:func:`kernels_for_fit`, which asks ``turs._compile.choose``) and
keeps it in a :class:`FitKernels` that its ``SearchData`` holds, so the search's calls, in
the fit's thread and in its scoring threads, go to that set; code below the search (the MDL
score of ``turs.mdl``) reads the set of the fit running in its thread (:func:`current`).
Between two rule searches a Python fit switches to the compiled set once the background compile
has filled the cache (:func:`switch_when_ready`). Fits in other threads are not affected: each
thread has its own fit, as with the fit's control (``turs._fit_control``) and scoring pool.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
import threading
import types
from contextlib import contextmanager

from .. import _compile

_OWN_MODULES = ("_cache", "kernels")


class Kernels:
    """Every function of ``turs/_core`` by its name (``kernels._score_base(...)``), compiled or
    as Python; ``kind``: ``"compiled"`` or ``"python"``."""

    def __init__(self, kind: str, functions: dict):
        self.kind = kind
        self.__dict__.update(functions)

    def __repr__(self) -> str:
        return f"<turs kernels: {self.kind}, {len(self.__dict__) - 1} functions>"


def kernel_modules() -> list:
    """Every kernel module of ``turs._core``, imported."""
    from .. import _core

    names = [m.name for m in pkgutil.iter_modules(_core.__path__)
             if not m.name.startswith("__") and m.name not in _OWN_MODULES]
    return [importlib.import_module(f"{_core.__name__}.{name}") for name in names]


def _own_functions(module) -> dict:
    """The functions (plain or jitted) defined in ``module``: name -> object."""
    from numba.core.dispatcher import Dispatcher

    own = {}
    for name, value in vars(module).items():
        func = value.py_func if isinstance(value, Dispatcher) else value
        if isinstance(func, types.FunctionType) and func.__globals__ is vars(module):
            own[name] = value
    return own


def _flat(per_module: dict) -> dict:
    out = {}
    for module, functions in per_module.items():
        for name, value in functions.items():
            if name in out and out[name] is not value:
                raise RuntimeError(f"turs._core defines {name!r} twice ({module}); a kernel name must be unique.")
            out[name] = value
    return out


@functools.lru_cache(maxsize=1)
def compiled_set() -> Kernels:
    """The kernels as numba compiles them (each module's own functions)."""
    return Kernels("compiled", _flat({m.__name__: _own_functions(m) for m in kernel_modules()}))


_build_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def python_set() -> Kernels:
    """The kernels' Python twins (see the module docstring), built once."""
    from numba.core.dispatcher import Dispatcher

    with _build_lock:
        modules = kernel_modules()
        globals_of = {m.__name__: dict(vars(m)) for m in modules}
        twin_of = {}  # id(original) -> twin
        per_module = {}
        for m in modules:
            per_module[m.__name__] = {}
            for name, value in _own_functions(m).items():
                if id(value) not in twin_of:
                    func = value.py_func if isinstance(value, Dispatcher) else value
                    twin = types.FunctionType(func.__code__, globals_of[m.__name__], func.__name__, func.__defaults__,
                                              func.__closure__)
                    twin.__kwdefaults__ = func.__kwdefaults__
                    twin.__qualname__, twin.__doc__, twin.__module__ = func.__qualname__, func.__doc__, func.__module__
                    twin.__dict__.update(func.__dict__)
                    twin_of[id(value)] = twin
                per_module[m.__name__][name] = twin_of[id(value)]
        for namespace in globals_of.values():  # every name of a kernel, in every module: its twin
            for name, value in list(namespace.items()):
                if id(value) in twin_of:
                    namespace[name] = twin_of[id(value)]
        for twin in twin_of.values():
            if twin.__defaults__ and any(id(v) in twin_of for v in twin.__defaults__):
                twin.__defaults__ = tuple(twin_of.get(id(v), v) for v in twin.__defaults__)
        return Kernels("python", _flat(per_module))


def kernel_codes() -> set:
    """The code objects of every jitted kernel's Python (a call that runs one of them ran a
    kernel as Python)."""
    from numba.core.dispatcher import Dispatcher

    return {v.py_func.__code__ for v in vars(compiled_set()).values() if isinstance(v, Dispatcher)}


def compiled_here() -> list:
    """The names of the kernels this process has compiled or loaded from the cache."""
    from numba.core.dispatcher import Dispatcher

    return [name for name, v in vars(compiled_set()).items() if isinstance(v, Dispatcher) and v.signatures]


def _serial_growth_compiled() -> bool:
    """Whether this process has the serial growth kernel, the one every fit calls."""
    return bool(getattr(compiled_set()._grow_chunk_serial, "signatures", None))


class FitKernels:
    """The kernel set of one fit (``kernels``), which :func:`switch_when_ready` may change to the
    compiled set between two rule searches; ``choice`` is what the fit started with."""

    __slots__ = ("kernels", "choice", "compiling")

    def __init__(self, kernels: Kernels):
        self.kernels = kernels
        self.choice = kernels.kind
        self.compiling = False  # the fit compiles the kernels (nothing in the cache yet)


_local = threading.local()  # .fit: the FitKernels of the fit running in this thread; .forced


def current_fit() -> FitKernels | None:
    """The kernel set of the fit running in this thread, if any."""
    return getattr(_local, "fit", None)


def current() -> Kernels:
    """The kernels of the fit running in this thread; the compiled ones outside a fit."""
    fit = getattr(_local, "fit", None)
    return fit.kernels if fit is not None else compiled_set()


def for_this_fit() -> FitKernels:
    """The fit's :class:`FitKernels` for a ``SearchData`` made in this thread (outside a fit: a
    compiled set of its own)."""
    fit = getattr(_local, "fit", None)
    return fit if fit is not None else FitKernels(compiled_set())


@contextmanager
def kernels_for_fit(n_cells: int):
    """Run the body as a fit of ``n_cells`` rows x encoded columns with the kernels
    ``turs._compile.choose`` picks; yields its :class:`FitKernels`. A fit inside a fit in this
    thread (a refit, the MDL score of a fit's rules) keeps the outer one's. On the Python set a
    background process compiles the kernels (``TURS_KERNELS=auto``); on the compiled set with
    nothing compiled yet, the fit is marked ``compiling`` and the user told so, once per process
    (``turs._compile.say_first_compile``)."""
    outer = getattr(_local, "fit", None)
    if outer is not None:
        yield outer
        return
    forced = getattr(_local, "forced", 0) > 0
    choice = "compiled" if forced else _compile.choose(n_cells, _serial_growth_compiled())
    fit = FitKernels(python_set() if choice == "python" else compiled_set())
    if choice == "python":
        if _compile.mode() == "auto":
            _compile.compile_in_background()
    elif not forced and _compile.compile_pending(_serial_growth_compiled()):
        fit.compiling = True
        _compile.say_first_compile(n_cells)
    _local.fit = fit
    try:
        yield fit
    finally:
        _local.fit = None


@contextmanager
def compiled_kernels():
    """Fits inside, in this thread, compile their kernels whatever the cache holds
    (``turs.warmup()``)."""
    _local.forced = getattr(_local, "forced", 0) + 1
    try:
        yield
    finally:
        _local.forced -= 1


def switch_when_ready() -> bool:
    """Between two rule searches: if this thread's fit runs the kernels as Python and the
    background process has filled the cache, the fit uses the compiled kernels from now on.
    Returns whether they are compiled."""
    fit = getattr(_local, "fit", None)
    if fit is None:
        return True
    if fit.kernels.kind == "python" and _compile.mode() == "auto" and _compile.cache_is_ready():
        fit.kernels = compiled_set()
    return fit.kernels.kind == "compiled"
