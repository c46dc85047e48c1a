# turs: build, test and reproduce.  `make help` lists the targets.
#
# Every target first makes sure $(VENV) exists and holds turs (editable) with the
# `dev` and `notebooks` extras; that install is redone whenever pyproject.toml changes.
# It then fills numba's compile cache (below), so that no fit compiles.

SHELL := /bin/bash
.DEFAULT_GOAL := help

# The repository root, whatever directory make was started from (make -C, make -f).
ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

VENV ?= .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed

# Where the benchmark datasets are looked up (see docs/datasets.md): ../shared/datasets
# when that folder exists, unless TURS_DATA_DIR is already set.
TURS_DATA_DIR ?= $(if $(wildcard $(ROOT)/../shared/datasets),$(abspath $(ROOT)/../shared/datasets),)
ifneq ($(TURS_DATA_DIR),)
export TURS_DATA_DIR
endif

# Numba's on-disk cache lives in the repository so compiled kernels survive between runs
# (turs picks the same folder when run from this checkout without make: turs/_core/_cache.py).
NUMBA_CACHE_DIR ?= $(ROOT)/build/numba_cache
export NUMBA_CACHE_DIR
# Installed, and the kernels compiled into that cache by `turs.warmup()` (docs/compile.md);
# compiled again after `make clean` or a change to the sources the cache is stamped with.
STAMP := $(NUMBA_CACHE_DIR)/.compiled

# `quick` runs every notebook on bundled data in minutes; `paper` runs the full study.
PROFILE ?= quick
# Every notebook source except the interactive explorer, which is served, not executed.
NOTEBOOKS := $(filter-out notebooks/explorer.py,$(wildcard notebooks/*.py))
EXECUTED := $(patsubst notebooks/%.py,build/notebooks/%.ipynb,$(NOTEBOOKS))
RUN_NOTEBOOK = $(PY) tools/run_notebook.py
# COMPUTE=0: notebooks use the benchmark records that exist and show the rest as missing
# (e.g. `make reproduce PROFILE=paper COMPUTE=0` after `make experiments PROFILE=paper`).
COMPUTE ?= 1
export TURS_REPRODUCE_COMPUTE := $(COMPUTE)

PYTEST_ARGS ?=

.PHONY: help install check test reproduce bench bench-scale bench-scaling bench-cold-start bench-distributed clean competitors data explorer explorer-html experiments compare reference-check class lab FORCE

help:
	@echo "make targets:"
	@echo "  install            create $(VENV) and install turs with the dev and notebooks extras"
	@echo "  check              the fast loop: the unit tests, one seed, no slow/browser/subprocess test (~2 min)"
	@echo "  test               run the whole test suite, every seed (pytest -q; PYTEST_ARGS='...' adds options)"
	@echo "  reproduce          execute every notebook in notebooks/ (PROFILE=$(PROFILE); PROFILE=paper for the full study)"
	@echo "  figures/NAME.EXT   rebuild one figure: runs the notebook whose file name is the longest prefix of NAME.EXT"
	@echo "  build/notebooks/X.ipynb  execute notebooks/X.py"
	@echo "  bench              speed benchmark"
	@echo "  bench-scale        1M-10M rows: fit time, peak RSS, test AUC, predict (SCALE_ROWS=$(SCALE_ROWS); figures/bench_scale.png)"
	@echo "  bench-distributed  DaskTURSClassifier on a table made on 2 LocalCluster workers (DIST_ARGS=$(DIST_ARGS))"
	@echo "  bench-scaling      scaling study (noisy 10k-1M rows, the large datasets; figures/scaling.*)"
	@echo "  bench-cold-start   a new user's first fit on an empty compile cache (iris, noisy 20k; about 10 minutes)"
	@echo "  experiments        run the benchmark (PROFILE, ALGORITHMS=$(ALGORITHMS)) into RESULTS=$(RESULTS); resumable"
	@echo "  compare            compare TURS results in RESULTS with the thesis tables -> figures/turs_vs_thesis.csv"
	@echo "  reference-check    TURS vs the authors' implementation's runs (../shared/anchors) -> figures/turs_vs_reference.csv"
	@echo "  explorer           serve notebooks/explorer.py with Voila (HOST=$(HOST) PORT=$(PORT) POOL=$(POOL) [TOKEN=]; prints the URL)"
	@echo "  explorer-html      write each bundled dataset's recorded search as one HTML page: build/pages/<dataset>.html"
	@echo "  class              the tutorial's class kit -> build/class/ (student.ipynb, teacher.ipynb, pages/, the turs wheel, README.md)"
	@echo "  lab                JupyterLab on 127.0.0.1 (LAB_PORT=$(LAB_PORT)) that opens notebooks/*.py as notebooks (jupyter-config/)"
	@echo "  competitors        install the competitor learners (Weka, Orange CN2, CLASSY, imodels) into $(VENV)"
	@echo "  data               fetch and verify the datasets of DATA_PROFILE=$(DATA_PROFILE) (paper, large, all) into TURS_DATA_DIR or the cache"
	@echo "  clean              remove build/ (executed notebooks, numba cache) and notebooks/*.ipynb"
	@echo "variables: VENV=$(VENV) PROFILE=$(PROFILE) COMPUTE=$(COMPUTE) TURS_DATA_DIR=$(if $(TURS_DATA_DIR),$(TURS_DATA_DIR),(unset))"

$(INSTALLED): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,notebooks,explorer]'
	touch $@

$(STAMP): $(INSTALLED) $(wildcard turs/_core/*.py) turs/_config.py turs/_warmup.py
	$(PY) -c 'import turs; print(f"turs.warmup(): kernels compiled or loaded in {turs.warmup():.0f} s")'
	touch $@

install: $(STAMP)

# The competitor learners (Weka J48/JRip/OneR, Orange CN2, CLASSY, imodels): some need a
# --no-deps install that keeps the core numpy/pandas/scikit-learn versions (see the script).
competitors: $(STAMP)
	VENV=$(VENV) bash .ci/install-competitors.sh

# The interactive explorer: notebooks/explorer.py converted with jupytext (Voila does not serve
# .py files) and served by Voila on HOST (127.0.0.1: this machine only); PORT=0 picks a free port.
# A class: HOST=0.0.0.0 (a token is made up unless TOKEN=... is given; the URL carries it) and
# POOL=N kernels started before anyone asks (about 0.5 GB each).
PORT ?= 8866
HOST ?= 127.0.0.1
POOL ?= 2
explorer: $(STAMP)
	$(PY) tools/serve_explorer.py --port $(PORT) --host $(HOST) --pool $(POOL) $(if $(TOKEN),--token $(TOKEN),)

# The recorded search of each bundled teaching dataset as one self-contained HTML page (no server,
# no Python to view it; docs/explorer-page.md): open build/pages/<dataset>.html in a browser.
explorer-html: $(STAMP)
	$(PY) -m turs.explorer.page build/pages

# The tutorial's class kit: the students' notebook without solutions, the teacher's with them,
# the one-file search pages, the turs wheel (built offline from this checkout into dist/, so that
# students install with pip, no clone) and a README for the teacher (tools/make_class.py).
class: $(STAMP)
	rm -rf dist/turs-*.whl build/lib build/bdist.*  # setuptools' staging: a deleted module must not stay in the wheel
	$(PY) -m pip wheel -q --no-build-isolation --no-deps --wheel-dir dist .
	$(PY) tools/make_class.py --out build/class --wheel dist

# JupyterLab with the project's settings (jupyter-config/labconfig): a double-click opens a
# jupytext .py notebook as a notebook. Your own Jupyter settings still apply on top.
LAB_PORT ?= 8888
lab: $(STAMP)
	JUPYTER_CONFIG_PATH=$(ROOT)/jupyter-config$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH)) \
	  $(VENV)/bin/jupyter lab --ip=127.0.0.1 --port=$(LAB_PORT) --ServerApp.root_dir=$(ROOT) $(if $(filter 0,$(shell id -u)),--allow-root)

# The benchmark datasets (docs/datasets.md): downloaded from their pinned public sources and
# checked against their SHA-256; files already present are verified, not fetched again.
DATA_PROFILE ?= paper
data: $(STAMP)
	$(PY) -m turs.datasets fetch --profile $(DATA_PROFILE)

# The benchmark harness: resumable, one record per (dataset, fold, algorithm).
ALGORITHMS ?= turs,cart
RESULTS ?= results/$(PROFILE)
BENCH_TIMEOUT ?= 600
experiments: $(STAMP)
	$(PY) -m turs.bench run --profile $(PROFILE) --algorithms $(ALGORITHMS) --timeout $(BENCH_TIMEOUT) --probe-first --out $(RESULTS)
	$(PY) -m turs.bench summarize --results $(RESULTS) --out $(RESULTS)/summary.csv
# Our TURS against the authors' implementation's runs (../shared/anchors) on the 17 datasets
# it finished: the defaults (its model code and bookkeeping), the thesis text, and the thesis
# search with its model code.
REFERENCE_DATASETS = iris,glass-2,glass,wine,heartcleveland,backnote,diabetes,tic-tac-toe,car,wdbc,ionosphere,contracept,vehicle,vowels,thyroid,mammography,chess
reference-check: $(STAMP)
	$(PY) -m turs.bench run --profile paper --algorithms turs,turs-thesis,turs-turs2code --datasets $(REFERENCE_DATASETS) --timeout $(BENCH_TIMEOUT) --force --out results/reference
	$(PY) tools/compare_reference.py --results results/reference --algorithms turs,turs-thesis,turs-turs2code
compare: $(STAMP)
	$(PY) -m turs.bench compare --results $(RESULTS) --out figures/turs_vs_thesis.csv

# The fast inner loop: leaves out the tests marked slow, browser or subprocess (a fresh interpreter
# each), runs each seed-parametrized test on its first seed and hypothesis' `check` profile.
check: $(STAMP)
	HYPOTHESIS_PROFILE=check $(PY) -m pytest -q -m "not slow and not browser and not subprocess" $(PYTEST_ARGS)

# Everything, every seed (TURS_TEST_SEEDS=all; tests/conftest.py).
test: $(STAMP)
	TURS_TEST_SEEDS=all $(PY) -m pytest -q $(PYTEST_ARGS)

reproduce: $(EXECUTED)
	@$(if $(NOTEBOOKS),echo "reproduce: ran $(words $(NOTEBOOKS)) notebook(s) with PROFILE=$(PROFILE); figures are in $(if $(filter paper,$(PROFILE)),figures/,build/figures/)",echo "reproduce: no notebooks in notebooks/ yet")

# FORCE: a notebook reads data and code beyond its own source, so it always reruns.
build/notebooks/%.ipynb: notebooks/%.py $(STAMP) FORCE
	$(RUN_NOTEBOOK) $< --profile $(PROFILE) --output $@

# `make figures/fig3_2_gap_to_best.png` (any extension) runs the notebook whose file name
# is the longest prefix of the figure's name, here notebooks/fig3_2_gap_to_best.py;
# a notebook may write several figures (fig3_2.py -> fig3_2a.png, fig3_2b.png).
figures/%: $(STAMP) FORCE
	@best=; for nb in $(NOTEBOOKS); do \
	  b=$$(basename "$$nb" .py); \
	  case "$*" in "$$b"*) if [ $${#b} -gt $${#best} ]; then best=$$b; fi;; esac; \
	done; \
	if [ -z "$$best" ]; then \
	  echo "make: no notebook in notebooks/ whose name is a prefix of '$*'" >&2; exit 1; \
	fi; \
	echo "$(RUN_NOTEBOOK) notebooks/$$best.py --profile $(PROFILE)"; \
	$(RUN_NOTEBOOK) "notebooks/$$best.py" --profile $(PROFILE)

# Speed benchmark: fold 0 of the large datasets in fresh processes, the reference's
# times beside ours, 1 vs 2 threads, and the scaling study -> figures/bench_speed.csv, scaling.png, scaling_d.png.
BENCH_ARGS ?= --scaling --threads vehicle,pendigits,waveform
bench: $(STAMP)
	$(PY) tools/bench_speed.py $(BENCH_ARGS)

# 12.5M noisy rows generated once (build/bench_scale/data), the first n train, the last 2.5M test;
# a fresh process per fit and per prediction (tools/bench_scale.py)
SCALE_ROWS ?= 1000000 2000000 4000000 10000000
bench-scale: $(STAMP)
	$(PY) tools/bench_scale.py $(SCALE_ROWS) --stages --plot figures/bench_scale.png

# DaskTURSClassifier on a table made partition by partition on the workers of a LocalCluster
# (2 worker processes, 1 thread each): fit time, per-worker and client peak memory (tools/bench_distributed.py)
DIST_ARGS ?= --rows 50000000 --partitions 100 --memory 5GiB
bench-distributed: $(STAMP)
	$(PY) tools/bench_distributed.py $(DIST_ARGS)

bench-scaling: $(STAMP)
	$(PY) tools/bench_speed.py --scaling-only $(BENCH_ARGS)

bench-cold-start: $(INSTALLED)
	$(PY) tools/bench_cold_start.py $(BENCH_ARGS)

clean:
	rm -rf build
	rm -f notebooks/*.ipynb

FORCE:
