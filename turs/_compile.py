"""numba's compile cache of the kernels: its stamp, its folder, whether it holds every kernel,
the background compile that fills it, and what a fit is told about it (``docs/compile.md``).

Below the kernels (``turs/_core``), which import it before any kernel is defined; it imports
no kernel. The kernels a fit runs, compiled or their own Python, are chosen in
``turs/_core/kernels.py`` from :func:`choose`.

**The stamp.** numba stamps a cached function with a hash of its own source file only. A kernel
that calls a kernel of another file (``_score_base`` in ``score_base.py`` calls the growth
kernel and ``_finish_growths``) would therefore, after a change to the callee's file alone (a
``git pull`` in an editable install), load its old machine code with the callee's old code
compiled into it: stale results, or a crash if a signature changed, and no error to say why.
Every cached function of ``turs/_core`` is stamped with one hash of all the files the kernels
are compiled from (``turs/_core/*.py`` and ``turs/_config.py``), so a change to any of them
recompiles them all, once. This plugs into numba's cache locators
(``numba.core.caching.CacheImpl._locator_classes``, ``_CacheImpl`` in older releases), an
internal list read when a module's ``@njit(cache=True)`` functions are defined. If a numba
release changes that list, the locators are left alone and each kernel keeps numba's own
stamp; ``tests/test_kernels.py`` then fails and says so.

**The folder.** ``NUMBA_CACHE_DIR`` when it is set (the Makefile sets it to
``build/numba_cache``); otherwise, for a source checkout (``pyproject.toml`` beside the
package), the same ``build/numba_cache``; otherwise (an installed wheel) where numba puts it
(``__pycache__`` beside the sources, or the user's cache folder when that is not writable).
numba takes the first of these it can write to; :func:`cache_folder` asks its locators, as
numba does, which one that is. When none is writable the kernels are defined without a cache
(``_config.NUMBA_CACHE`` is set to False before the first kernel module is imported), and
one warning says so and how to set ``NUMBA_CACHE_DIR``, so ``import turs`` still works there
(numba alone raises "no locator available").

**Ready.** ``turs.warmup()`` compiles every kernel and then writes the ready mark
``turs-kernels-<stamp>.ready`` in the folder (:func:`mark_ready`). On a cold cache, a fit of a
small table runs the kernels as Python (:func:`choose`) and starts one background process
that runs ``turs.warmup()`` (:func:`compile_in_background`; a lock file holding the process
id keeps it to one, and a lock whose process is gone is taken over at once).
"""
from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from typing import NamedTuple

from . import _config

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
CORE_DIR = os.path.join(PACKAGE_DIR, "_core")
CONFIG_FILE = os.path.join(PACKAGE_DIR, "_config.py")
_CHECKOUT = os.path.dirname(PACKAGE_DIR)

INTERPRETED_MAX_CELLS = 40_000
"""Rows x encoded columns up to which a fit on a cold cache runs the kernels as Python. As
Python, on this project's 2-core machine: iris (600 cells) 2 s, breast cancer (17,070) 12 s,
car (36,288, 23 rules) 32 s; compiling what an iris fit needs is 42 s of CPU."""

FIRST_COMPILE = "about 1 to 2 minutes"
"""How long a first large fit compiles (``docs/compile.md``: 87-92 s wall for the noisy 20k
fit on a quiet 2-core machine, 100 s of CPU)."""

MODES = ("auto", "compiled", "python")
STALE_LOCK_SECONDS = 600
"""A lock older than this is taken over even if a process of its id runs (the id was reused)."""


class CompileWarning(UserWarning):
    """What ``turs`` says about compiling its kernels: a first compile about to start, or a
    cache folder it cannot write to. A warning and not a log record: it reaches a notebook's
    user without any logging set up, once per process, and ``warnings.filterwarnings("ignore",
    category=turs.CompileWarning)`` silences it."""


_said: set = set()
_said_lock = threading.Lock()


def _say_once(key: str, message: str, stacklevel: int = 3) -> bool:
    with _said_lock:
        if key in _said:
            return False
        _said.add(key)
    warnings.warn(message, CompileWarning, stacklevel=stacklevel)
    return True


def mode() -> str:
    """``TURS_KERNELS``: ``auto`` (default), ``compiled`` or ``python``."""
    value = os.environ.get("TURS_KERNELS", "auto").strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"TURS_KERNELS={value!r} is not one of {', '.join(MODES)}; unset it for 'auto'.")
    return value


# -------------------------------------------------------------------------- the stamp
def checkout_cache_dir() -> str | None:
    """``build/numba_cache`` of the source checkout the package runs from; None for an installed
    package (no ``pyproject.toml`` beside it)."""
    if not os.path.isfile(os.path.join(_CHECKOUT, "pyproject.toml")):
        return None
    return os.path.join(_CHECKOUT, "build", "numba_cache")


def sources_stamp(directory: str = CORE_DIR, extra: tuple = (CONFIG_FILE,)) -> bytes:
    """SHA-256 over the names and contents of ``directory``'s ``.py`` files and of ``extra``."""
    digest = hashlib.sha256()
    paths = sorted(os.path.join(directory, name) for name in os.listdir(directory) if name.endswith(".py"))
    for path in [*paths, *extra]:
        digest.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as source:
            digest.update(source.read())
    return digest.digest()


@functools.lru_cache(maxsize=None)
def package_stamp() -> bytes:
    return sources_stamp()


def _stamped(locator_class):
    """``locator_class`` for the functions of this package only, stamped with all its sources."""

    class Locator(locator_class):
        def get_source_stamp(self):
            return package_stamp()

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != CORE_DIR:
                return None  # not a turs kernel: numba's own locators take it
            return super().from_function(py_func, py_file)

    Locator.__name__ = Locator.__qualname__ = "TursSources" + locator_class.__name__
    return Locator


def _checkout_locator(user_provided):
    """A locator (stamped ``user_provided``) into :func:`checkout_cache_dir`, taken when
    ``NUMBA_CACHE_DIR`` is not set and the package runs from a source checkout."""

    class Locator(user_provided):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(checkout_cache_dir(), self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            from numba.core import config

            if config.CACHE_DIR or checkout_cache_dir() is None:
                return None
            if os.path.dirname(os.path.abspath(py_file)) != CORE_DIR or not os.path.exists(py_file):
                return None  # not a turs kernel: numba's own locators take it
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None  # not writable: numba's own locators take it
            return self

    Locator.__name__ = Locator.__qualname__ = "TursSourcesCheckoutLocator"
    return Locator


def _locator_list():
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # the name before numba 0.6x
    return impl._locator_classes


def install_locators() -> bool:
    """Put the stamped locators first in numba's list (once). False if numba has no such list."""
    try:
        from numba.core import caching
        classes = _locator_list()
        bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)
    except (ImportError, AttributeError):
        return False
    if not any(c.__name__.startswith("TursSources") for c in classes):
        stamped = [_stamped(base) for base in bases]
        classes[:0] = [stamped[0], _checkout_locator(stamped[0]), *stamped[1:]]
    return True


# -------------------------------------------------------------------------- the folder
class CacheFolder(NamedTuple):
    """Where the kernels' compiled code goes. ``path``: the folder numba writes the kernels to
    (None: no cache); ``asked``: the folder the user or the checkout asked for
    (``NUMBA_CACHE_DIR``, ``build/numba_cache``; None for an installed package); ``reason``:
    why there is no cache (``"off"``: ``TURS_NUMBA_CACHE=0``; ``"not writable"``)."""

    path: str | None
    asked: str | None
    reason: str = ""


def _probe():
    """A stand-in kernel for asking numba's locators where a kernel of ``turs/_core`` goes."""


def _asked_folder() -> str | None:
    from numba.core import config

    return config.CACHE_DIR or checkout_cache_dir()


@functools.lru_cache(maxsize=1)
def cache_folder() -> CacheFolder:
    """The kernels' cache folder, as numba's locators find it (the first one that can write)."""
    asked = _asked_folder()
    if not _config.NUMBA_CACHE:
        return CacheFolder(None, asked, "off")
    try:
        classes = list(_locator_list())
    except (ImportError, AttributeError):
        return CacheFolder(asked, asked)
    source = os.path.join(CORE_DIR, "regret.py")
    for cls in classes:
        try:
            locator = cls.from_function(_probe, source)
        except Exception:  # a locator numba adds later that wants more of a function
            locator = None
        if locator is not None:
            return CacheFolder(locator.get_cache_path(), asked)
    return CacheFolder(None, asked, "not writable")


def cache_dir() -> str | None:
    """The folder numba writes the kernels to; None when there is no cache."""
    return cache_folder().path


def prepare_cache() -> None:
    """Before the first kernel is defined (``turs/_core/__init__.py``): the stamped locators,
    and, when no cache folder can be written, kernels without a cache and one warning."""
    install_locators()
    folder = cache_folder()
    if folder.reason == "not writable":
        _config.NUMBA_CACHE = False  # numba would raise "no locator available" on the first kernel
        where = f"{folder.asked}, " if folder.asked else ""
        _say_once("no cache", (
            f"turs: no folder for numba's compile cache is writable ({where}__pycache__ beside "
            f"{CORE_DIR}, the user's cache folder under HOME={os.environ.get('HOME', '')!r}): every process "
            "compiles the kernels again (about 1-2 minutes for a large table; small tables run them as Python). "
            "Set NUMBA_CACHE_DIR to a writable folder to keep them."), stacklevel=4)
    elif folder.path is not None and folder.asked is not None and not _inside(folder.path, folder.asked):
        _say_once("read-only cache", (
            f"turs: numba's cache folder {folder.asked} is not writable; the kernels are compiled into "
            f"{folder.path} instead. Point NUMBA_CACHE_DIR at a writable folder to choose where."), stacklevel=4)


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.abspath(path), os.path.abspath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


# -------------------------------------------------------------------------- ready
def ready_file(folder: str) -> str:
    return os.path.join(folder, f"turs-kernels-{package_stamp().hex()[:16]}.ready")


def mark_ready() -> None:
    """Say that the cache holds every kernel of this version of the sources (``turs.warmup()``
    calls it when it has compiled them all)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        os.makedirs(folder, exist_ok=True)
        with open(ready_file(folder), "w") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()}\n")
    except OSError as e:
        _say_once("ready mark", f"turs: cannot mark numba's cache folder {folder} as holding every kernel ({e}); "
                                "later fits of small tables run the kernels as Python.")


def cache_is_ready() -> bool:
    """Whether the cache holds every kernel of this version of the sources."""
    folder = cache_dir()
    return folder is not None and os.path.exists(ready_file(folder))


def choose(n_cells: int, compiled_here: bool = False) -> str:
    """``"python"`` or ``"compiled"``: how a fit of ``n_cells`` rows x encoded columns runs its
    kernels. ``compiled_here``: this process has compiled (or loaded) the kernels already.

    ``TURS_KERNELS=compiled`` or ``python`` decide; numba's ``NUMBA_DISABLE_JIT`` and a cache
    turned off (``TURS_NUMBA_CACHE=0``) compile; otherwise a table larger than
    :data:`INTERPRETED_MAX_CELLS` compiles, and a smaller one runs the kernels as Python until
    the cache holds them all (or this process has them)."""
    chosen = mode()
    if chosen != "auto":
        return chosen
    from numba.core import config

    if config.DISABLE_JIT or cache_folder().reason == "off" or n_cells > INTERPRETED_MAX_CELLS:
        return "compiled"
    if compiled_here or cache_is_ready():
        return "compiled"
    return "python"


def compile_pending(compiled_here: bool) -> bool:
    """Whether a fit on the compiled kernels is about to compile them (nothing in the cache)."""
    from numba.core import config

    return not (config.DISABLE_JIT or compiled_here or cache_is_ready())


def say_first_compile(n_cells: int) -> bool:
    """Tell the user once per process, in one line, that a fit is about to compile the
    kernels, about how long it takes and how to do it ahead. Returns whether it told."""
    folder = cache_folder()
    if folder.path is not None:
        after = f"then they are cached in {folder.path} for every later fit and process"
    else:
        why = "TURS_NUMBA_CACHE=0" if folder.reason == "off" else "no writable folder; set NUMBA_CACHE_DIR"
        after = f"and again in every process: there is no compile cache ({why})"
    return _say_once("first compile", (
        f"turs: compiling the numba kernels for this machine before this fit ({n_cells:,} table cells; up to "
        f"{INTERPRETED_MAX_CELLS:,} run them as Python), {FIRST_COMPILE} once; {after}. "
        "To compile them ahead of time: turs.warmup() or `python -m turs warmup`."), stacklevel=6)


@contextmanager
def compile_bar(show: bool):
    """With ``show``: a progress bar (``tqdm.auto``) of the functions numba compiles inside."""
    if not show:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(desc="compiling the turs kernels (once)", unit=" functions")
    try:
        with compile_progress(bar):
            yield bar
    finally:
        bar.close()


@contextmanager
def compile_progress(bar):
    """``bar.update(1)`` for every function numba compiles inside (numba's ``numba:compile``
    events, from any thread), the kernel's name as the bar's postfix."""
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, e):
            pass

        def on_end(self, e):
            dispatcher = e.data.get("dispatcher")
            name = getattr(getattr(dispatcher, "py_func", None), "__name__", "")
            bar.set_postfix_str(name, refresh=False)
            bar.update(1)

    listener = Listener()
    event.register("numba:compile", listener)
    try:
        yield bar
    finally:
        event.unregister("numba:compile", listener)


# -------------------------------------------------------------------------- background compile
def lock_file(folder: str) -> str:
    return os.path.join(folder, "turs-compiling.pid")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OSError:
        return False
    return True


def lock_is_stale(lock: str) -> bool:
    """Whether a compile lock's process is gone (or the lock is older than
    :data:`STALE_LOCK_SECONDS`)."""
    try:
        with open(lock) as f:
            text = f.read().strip()
        age = time.time() - os.path.getmtime(lock)
    except OSError:
        return True
    if age >= STALE_LOCK_SECONDS:
        return True
    try:
        return not _alive(int(text.split()[0]))
    except (ValueError, IndexError):
        return age > 60  # being written: a lock holds its process id from the start


def _take_lock(lock: str) -> bool:
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if not lock_is_stale(lock):
                return False
            try:
                os.remove(lock)  # its process died (killed, say): take it over
            except OSError:
                return False
            continue
        except OSError:
            return False
        os.write(fd, f"{os.getpid()}\n".encode())  # this process until the compile's starts
        os.close(fd)
        return True
    return False


# the launcher starts the compile in a session of its own and exits at once: this process
# waits for the launcher only (no child left running, no ResourceWarning for it)
_LAUNCH = ("import subprocess, sys\n"
           "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,\n"
           "                     stderr=subprocess.DEVNULL, start_new_session=True)\n"
           "print(p.pid)\n")


def compile_in_background() -> bool:
    """Start one process that compiles every kernel into the cache (``turs.warmup()``), unless
    one is running already. Returns whether a process was started."""
    folder = cache_dir()
    if folder is None:
        return False
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return False
    lock = lock_file(folder)
    if not _take_lock(lock):
        return False
    code = ("import os, turs\n"
            "try:\n    turs.warmup()\nfinally:\n"
            f"    lock = {lock!r}\n"
            "    try:\n"
            "        if open(lock).read().split()[0] == str(os.getpid()):\n"
            "            os.remove(lock)\n"
            "    except (OSError, IndexError):\n"
            "        pass\n")
    # the child finds the cache as this process does (the same NUMBA_CACHE_DIR, checkout or
    # install); naming the folder for it would put its kernels under another path there
    env = dict(os.environ, TURS_KERNELS="compiled")
    try:
        out = subprocess.run([sys.executable, "-W", "ignore", "-c", _LAUNCH, sys.executable, "-c", code], env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        pid = int(out.stdout.split()[0])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        try:
            os.remove(lock)
        except OSError:
            pass
        return False
    with open(lock, "w") as f:
        f.write(f"{pid}\n")
    return True


# -------------------------------------------------------------------------- what `python -m turs info` says
def info(compiled_kernels: list) -> str:
    """The cache folder, whether it can be written, whether it holds every kernel, and which
    kernels this process has compiled (``compiled_kernels``: their names)."""
    folder = cache_folder()
    lines = [f"turs kernels: TURS_KERNELS={mode()}, sources stamp {package_stamp().hex()[:16]}"]
    if folder.path is None:
        lines.append(f"cache folder: none ({'TURS_NUMBA_CACHE=0' if folder.reason == 'off' else 'no writable folder'})")
    else:
        writable = os.access(folder.path, os.W_OK)
        lines.append(f"cache folder: {folder.path} ({'writable' if writable else 'NOT writable'})")
        if folder.asked and not _inside(folder.path, folder.asked):
            lines.append(f"asked for: {folder.asked} (not writable)")
        ready = "yes" if cache_is_ready() else "no (turs.warmup() or python -m turs warmup)"
        lines.append(f"every kernel compiled into it: {ready}")
        lock = lock_file(folder.path)
        if os.path.exists(lock):
            lines.append(f"background compile: {'stale lock' if lock_is_stale(lock) else 'running'} ({lock})")
    lines.append(f"compiled or loaded in this process: {len(compiled_kernels)} kernels"
                 + (f" ({', '.join(sorted(compiled_kernels))})" if compiled_kernels else ""))
    return "\n".join(lines)
