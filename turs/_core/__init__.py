"""The compiled core of `turs`: numba kernels that take and return named records of arrays
(``typing.NamedTuple`` classes at module level: ``DataTables``, ``ScoringSettings``,
``OverlapLists``, ``BaseRule``, ``GrowthInputs``, ``GrowthScores`` ...) and plain arrays, with
no Python object inside a jitted loop.

Every kernel here has a plain-numpy twin or an independent oracle in ``tests/``, and runs as its
own Python, to the bit, when a fit chooses the Python kernels (:mod:`.kernels`).
"""
from .. import _compile

_compile.prepare_cache()  # before any kernel module: numba's cache stamp and folder (turs._compile)
