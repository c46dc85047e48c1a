"""turs: Probabilistic Truly Unordered Rule Sets (Yang 2024, thesis chapter 3).

>>> from turs import TURSClassifier
>>> model = TURSClassifier().fit(X, y)          # doctest: +SKIP
"""
from . import _config  # noqa: F401  (first: sets OMP_WAIT_POLICY before any OpenMP runtime starts)
from .edit import compare
from .estimator import TURSClassifier
from .mdl import MDLBreakdown, mdl_score
from .parse import ParsedRule, parse_rule
from .rules import Condition, ElseRule, Rule
from .trace import SearchTrace
from ._warmup import warmup
from ._compile import CompileWarning

__all__ = ["TURSClassifier", "mdl_score", "MDLBreakdown", "Condition", "Rule", "ElseRule",
           "SearchTrace", "warmup", "CompileWarning", "parse_rule", "ParsedRule", "compare"]
__version__ = "0.1.0"
