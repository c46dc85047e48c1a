"""numba's on-disk cache for the kernels of this package: the stamped locators are installed
(``turs._compile``, where the stamp and the cache folder are described) by
``turs/_core/__init__.py`` before any kernel module, and kernels defined twice with other
``njit`` flags get names of their own (:func:`_variant`)."""
from __future__ import annotations

import types

from .._compile import CONFIG_FILE as _CONFIG_FILE  # noqa: F401  (the stamped files, for the tests)
from .._compile import CORE_DIR as _CORE_DIR  # noqa: F401
from .._compile import checkout_cache_dir, install_locators as install, sources_stamp  # noqa: F401


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
