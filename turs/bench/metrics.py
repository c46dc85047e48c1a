"""The benchmark's metrics, defined in :mod:`turs.metrics` (below the harness, so that editing
and the explorer use them too) and exported here for the harness and its users."""
from ..metrics import (EXPLANATION_MODES, __all__, accuracy, class_distribution, explanation_matrix,  # noqa: F401
                       local_explanation_size, overlap_percentage, probability_difference, random_picking_roc_auc,
                       roc_auc, total_literals, weighted_roc_auc)
