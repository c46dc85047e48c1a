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
# # TURS explorer: watch the search, change a setting, re-fit, compare
#
# Step through the search that `TURSClassifier` ran (Yang 2024, thesis §3.5) and see **why** it
# chose each rule: for each rule search (Algorithm 3) and beam iteration (Algorithm 4) the main
# beam (learning speed score $r$, Eq. 3.21) and the auxiliary beam ($R$, Eq. 3.24); the growths
# the **local test** rejected, with both sides of the test in bits (Eq. 3.22, 3.25); the
# **lineage** of the chosen rule from the empty rule, with the candidates that lost and by how
# much; the chosen rule against the runner-up, the MDL change by part; why each search and the
# fit stopped. Pictures: the data on any two columns (categories as strips), the rows × rules
# coverage with the union estimate (Eq. 3.5), the lineage, and MDL score vs coverage (Fig. 3.6).
#
# On the left: a dataset (the bundled ones, a categorical demo, the thesis datasets found under
# `TURS_DATA_DIR`) or your own CSV, and the settings a class discusses. **Re-fit** runs in a worker
# process (the page stays responsive; **Cancel** stops it); **Compare** shows any two fits side by
# side. Keys, with the mouse over the pictures: ← → beam iteration, PageUp / PageDown rule search.
#
# Serve it with `make explorer` (Voila), or run it in JupyterLab. From Python:
# `from turs.explorer import explore; explore(X, y, beam_width=5)`.

# %% tags=["parameters"]
dataset = "sim-local-testing"  # the data the page starts with (turs.explorer.available_datasets())
test_size = 0.3  # share of the rows held out for the test ROC-AUC

# %%
from IPython.display import display

from turs.explorer import Explorer

# %% [markdown]
# ## The local test (thesis §3.6.7, Table 3.6)
#
# On `sim-local-testing` only `X1` matters; the other 49 binary columns are noise. With the local
# test, the search stops growing a rule when no split pays for itself: open **Local test** to see
# the rejected growths with both sides of the test. Untick *local test* and press **Re-fit**: the
# rules grow long on noise; **Compare** shows both fits.

# %%
app = Explorer(dataset=dataset, test_size=test_size)
display(app)

# %% [markdown]
# ## The overlap blockade (Fig. 3.1)
#
# Choose `sim-overlap-blockade` in the dataset list: rule search 2 shows the auxiliary beam at
# work. *Starting the search from two given overlapping rules* (to watch the main beam fail where
# the auxiliary beam succeeds) and *typing a rule to see the MDL change it makes* come with
# `turs.parse_rule` and `fit(initial_rules=...)`; the place for them is marked on the left.
