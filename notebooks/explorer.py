# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # TURS search explorer
#
# Step through the search that `TURSClassifier` ran (Yang 2024, thesis §3.5): for each rule
# search (Algorithm 3) and each beam iteration (Algorithm 4) the **main beam**, ranked by the
# learning speed score $r$ (Eq. 3.21), and the **auxiliary beam**, ranked by the complementary
# score $R$ (Eq. 3.24), with coverage, coverage outside the current rule set, patience bucket
# (Eq. 3.23) and MDL local-test outcome (Eq. 3.22, 3.25); the MDL score against the rule set's
# coverage (as Fig. 3.6); and the data with the boxes of the rules so far and of a selected
# candidate (as Fig. 3.1). The explorer only reads the trace recorded by
# `fit(...)` with `record_trace=True`; it never re-runs the search.
#
# Serve it as an app with `voila` (convert this file to `.ipynb` with jupytext first), or run it
# in Jupyter. It needs the `explorer` extra: `pip install 'turs[explorer]'`.

# %% tags=["parameters"]
n = 1000  # rows of the simulated Fig. 3.1 data
seed = 0  # its seed

# %%
from IPython.display import display

from turs import TURSClassifier
from turs.datasets import load_bundled, make_overlap_blockade_data
from turs.explorer import SearchExplorer

# %% [markdown]
# ## The overlap blockade of Fig. 3.1
#
# Two features on $[0, 2)^2$ (`turs.datasets.make_overlap_blockade_data`): a left and a top
# block with $P(Y=1)=0.9$ that overlap, and a bottom-right block with $P(Y=1)=0.1$ that a rule
# can only reach with both literals $X_1 \geq 1$ and $X_2 < 0.8$. Move the **beam iteration**
# slider to watch the candidate box grow; rule search 2 shows the auxiliary beam at work.

# %%
X, y = make_overlap_blockade_data(n, seed)
blockade = TURSClassifier(record_trace=True).fit(X, y)
blockade_explorer = SearchExplorer(blockade, X, y)
display(blockade_explorer)

# %% [markdown]
# ## Iris
#
# The scatter plot starts on the first two numeric columns; choose petal length and petal width
# in the dropdowns to see the rules' boxes where they cut.

# %%
X_iris, y_iris = load_bundled("sklearn-iris")
iris = TURSClassifier(record_trace=True).fit(X_iris, y_iris)
iris_explorer = SearchExplorer(iris, X_iris, y_iris)
display(iris_explorer)
