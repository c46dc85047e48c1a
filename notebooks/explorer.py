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
# <details class="turs-about"><summary><b>TURS explorer</b>: watch the search, change a setting, re-fit,
# compare. <i>About this page</i> (click to open)</summary>
#
# Step through the search that `TURSClassifier` ran (Yang 2024, thesis §3.5) and see **why** it
# chose each rule: for each rule search (Algorithm 3) and beam iteration (Algorithm 4) the main
# beam (learning speed score $r$, Eq. 3.21) and the auxiliary beam ($R$, Eq. 3.24); the growths
# the **local test** rejected, with both sides of the test in bits (Eq. 3.22, 3.25); the
# **lineage** of the chosen rule from the empty rule, with the candidates that lost and by how
# much; the chosen rule against the runner-up, the MDL change by part; why each search and the
# fit stopped. Pictures: the data on any two columns (categories as strips), the rows × rules
# coverage with the union estimate (Eq. 3.5), the lineage, and MDL score vs coverage (Fig. 3.6).
# Candidates are numbered from 1, as on the one-file search page (`make explorer-html`).
#
# Laid out for a projector: at 1280×720 the picture and the beam table beside it fill the first
# screen (this text folds away); the play button, the full beam tables and the final model are
# below. **Click a point** of the Data picture: the panel **Point** shows why the fitted rule set
# predicts what it does for that row, in three steps (the rules that cover it, the union of their
# covers with its class counts, the probabilities), each one a picture; **SVG** saves the picture
# shown, for slides.
#
# On the left: a dataset (the bundled ones, a categorical demo, the thesis datasets found under
# `TURS_DATA_DIR`) or your own CSV, and the settings a class discusses. **Re-fit** runs in a worker
# process (the page stays responsive; **Cancel** stops it); **Compare** shows any two fits side by
# side. Keys (anywhere on the page but a text box): ← → beam iteration, PageUp / PageDown rule search.
#
# Serve it with `make explorer` (Voila; two kernels are kept ready, so a class's first visitors
# wait seconds, not a minute), or run it in JupyterLab. From Python:
# `from turs.explorer import explore; explore(X, y, beam_width=5)`.
#
# </details>

# %% tags=["parameters"]
dataset = "sim-overlap-blockade"  # the data the page starts with (turs.explorer.available_datasets())
test_size = 0.3  # share of the rows held out for the test ROC-AUC

# %%
from IPython.display import HTML, display

from turs.explorer import Explorer

# Shown until the explorer is on the page (a page that lost the race for a busy server says so)
display(HTML("<div class='turs-wait-note' style='font-size:15px; padding:8px; background:#fff3c4'>The explorer "
             "is starting below (its first fit runs now). If it has not appeared after a minute, reload this "
             "page: the server was busy.</div><style>body:has(.turs-app) .turs-wait-note {display: none;}</style>"))

# %%
app = Explorer(dataset=dataset, test_size=test_size)
display(app)

# %% [markdown]
# ## Step through a search
#
# The page opens on `sim-overlap-blockade` (two columns, so the picture shows everything): its
# first rule search takes 8 beam iterations, 17 in all. Press **next ▶** (or →): the main beam
# grows, the Data picture outlines the selected candidate on its columns, **Why** says why the
# search chose its rule, **Local test** lists the growths the test kept out of the beam with both
# sides in bits.
#
# ## The local test (thesis §3.6.7, Table 3.6)
#
# Choose `sim-local-testing` in the dataset list: only `X1` matters; the other 49 binary columns
# are noise. With the local test, the search stops growing a rule when no split pays for itself.
# Untick *local test* and press **Re-fit**: the rules grow long on noise; **Compare** shows both fits.

# %% [markdown]
# ## Type a rule, see the MDL change (tab **Edit rules**)
#
# Type a rule on the data's columns, e.g. `X1 >= 1 AND X2 < 0.5`, and press Enter or **Try**:
# the rule is added to the fitted rule set (`model.with_rule`), which is re-estimated and scored
# exactly, and the tab shows the MDL score before and after, the change by part (model code
# $L(M)$, data code, regret), the rule's cover on the data and the rule set with your rule
# marked *yours*. A mistyped rule shows what is wrong. **Remove this rule** takes a rule out
# (`model.without_rule`); the rules after it move up one number (R2 becomes R1), and the tab says
# so. **Continue the search from these rules** re-fits from them
# (`fit(initial_rules=...)`, in the worker: Cancel stops it).

# %% [markdown]
# ## The overlap blockade (Fig. 3.1): start from two overlapping rules
#
# On `sim-overlap-blockade` this explorer starts the search from the two rules of Fig. 3.1,
# $M$ = {`X1 < 1 AND X2 < 1.4`, `X1 >= 0.6 AND X2 >= 0.8`} (`turs.datasets.OVERLAP_BLOCKADE_RULES`).
# In rule search 1, iteration 1, every literal that starts a rule for the bottom-right block
# ($X_1 \ge 1, X_2 < 0.8$, mostly $Y = 0$) overlaps $M$, so its learning speed score $r$ is
# negative and the main beam keeps none that could grow into it; the auxiliary beam scores the
# same literals by $R$, on the rows $M$ leaves uncovered only, and keeps `X2 < 0.652117`, whose new
# rows all lie in that block. `notebooks/fig3_1_overlap_blockade.py` draws both beams.

# %%
blockade = Explorer(dataset="sim-overlap-blockade", test_size=0,
                    initial_rules=["X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"])
display(blockade)
