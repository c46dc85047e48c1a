"""numba's on-disk cache for the kernels of this package, stamped with all their sources.

numba stamps a cached function with a hash of its own source file only. A kernel that calls a
kernel of another file (``_score_base`` in ``score_base.py`` calls the growth kernel and
``_finish_growths``) would therefore, after a change to the callee's file alone (a ``git
pull`` in an editable install, say), load its old machine code with the callee's old code
compiled into it: stale results, or a crash if a signature changed, and no error to say
why. Here every cached function of ``turs/_core`` is stamped with one hash of all the files
the kernels are compiled from (``turs/_core/*.py`` and ``turs/_config.py``), so a change to
any of them recompiles them all, once (about a minute, as on a fresh install).

Where the cache lives: in ``NUMBA_CACHE_DIR`` when it is set (the Makefile sets it to
``build/numba_cache`` of the repository); otherwise, for a source checkout (``pyproject.toml``
beside the package, as in an editable install), in the same ``build/numba_cache``, so that
``make install``'s warm-up (``turs.warmup()``) fills the cache that the README's
example run outside ``make`` reads; otherwise (an installed wheel) where numba puts it
(``__pycache__`` beside the sources, or the user's cache folder when that is not writable).

This plugs into numba's cache locators (``numba.core.caching.CacheImpl._locator_classes``,
``_CacheImpl`` in older releases), an internal list read when a module's ``@njit(cache=True)``
functions are defined: this module is imported by ``turs/_core/__init__.py`` before any
kernel module. If a numba release changes that list, the locators are left alone and each
kernel keeps numba's own stamp; ``tests/test_kernels.py`` then fails and says so.
"""
from __future__ import annotations

import functools
import hashlib
import os
import types

_CORE_DIR = os.path.dirname(os.path.abspath(__file__))
_CONFIG_FILE = os.path.join(os.path.dirname(_CORE_DIR), "_config.py")
_CHECKOUT = os.path.dirname(os.path.dirname(_CORE_DIR))


def checkout_cache_dir() -> str | None:
    """``build/numba_cache`` of the source checkout the package runs from; None for an installed
    package (no ``pyproject.toml`` beside it)."""
    if not os.path.isfile(os.path.join(_CHECKOUT, "pyproject.toml")):
        return None
    return os.path.join(_CHECKOUT, "build", "numba_cache")


def sources_stamp(directory: str = _CORE_DIR, extra: tuple = (_CONFIG_FILE,)) -> bytes:
    """SHA-256 over the names and contents of ``directory``'s ``.py`` files and of ``extra``."""
    digest = hashlib.sha256()
    paths = sorted(os.path.join(directory, name) for name in os.listdir(directory) if name.endswith(".py"))
    for path in [*paths, *extra]:
        digest.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as source:
            digest.update(source.read())
    return digest.digest()


@functools.lru_cache(maxsize=None)
def _package_stamp() -> bytes:
    return sources_stamp()


def _stamped(locator_class):
    """``locator_class`` for the functions of this package only, stamped with all its sources."""

    class Locator(locator_class):
        def get_source_stamp(self):
            return _package_stamp()

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != _CORE_DIR:
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
            if os.path.dirname(os.path.abspath(py_file)) != _CORE_DIR or not os.path.exists(py_file):
                return None  # not a turs kernel: numba's own locators take it
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None  # not writable: numba's own locators take it
            return self

    Locator.__name__ = Locator.__qualname__ = "TursSourcesCheckoutLocator"
    return Locator


def install() -> bool:
    """Put the stamped locators first in numba's list (once). False if numba has no such list."""
    try:
        from numba.core import caching
        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # the name before numba 0.6x
        classes = impl._locator_classes
        bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)
    except (ImportError, AttributeError):
        return False
    if not any(c.__name__.startswith("TursSources") for c in classes):
        stamped = [_stamped(base) for base in bases]
        classes[:0] = [stamped[0], _checkout_locator(stamped[0]), *stamped[1:]]
    return True


install()


def _variant(func, name):
    """A copy of ``func`` under another name.

    numba's on-disk cache keys a compiled function by its module, qualified name and line, not
    by its ``parallel`` flag: two ``njit`` variants of one Python function share one cache entry,
    and the second loads the first's machine code. Each variant therefore gets its own name.
    """
    copy = types.FunctionType(func.__code__, func.__globals__, name, func.__defaults__, func.__closure__)
    copy.__qualname__ = name
    copy.__doc__ = func.__doc__
    return copy
