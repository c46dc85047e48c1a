#!/usr/bin/env bash
# Install the competitor learners of the benchmark (docs/competitors.md) into a venv:
#
#   bash .ci/install-competitors.sh            # into $VENV, default .venv (must exist, turs installed)
#   VENV=/path/to/venv bash .ci/install-competitors.sh
#
# Idempotent: a second run finds everything installed and changes nothing.
# It never changes numpy, pandas, numba, llvmlite, scipy or scikit-learn: their installed
# versions are written to a pip constraints file, so pip fails rather than up- or downgrade
# them, and the script checks afterwards that they are unchanged.
#
# Why not plain `pip install`: Orange3 pins numpy<2.4 and pandas<3 and pulls ~1 GB of GUI
# packages (PyQt, xgboost, ...); rulelist 0.2.0 pins scikit-learn~=0.23 and scipy~=1.5. Both are
# installed with --no-deps, plus only the modules their code really imports.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV=${VENV:-.venv}
PY="$VENV/bin/python"
if [ ! -x "$PY" ]; then
  echo "install-competitors: no Python at $PY; create the venv first (make install)." >&2
  exit 1
fi
PIP=("$PY" -m pip --disable-pip-version-check)

# Pinned versions (the ones the adapters and tests were written against).
NORMAL=(
  "python-weka-wrapper3==0.3.3"   # Weka J48, JRip, OneR; ships weka.jar; needs JPype1 and Java
  "imodels==3.0.4"                # BRS, BRL, RuleFit
  "six"                           # imported by imodels but not declared
  "gmpy2"                         # rulelist
  "bottleneck" "openpyxl" "xlrd" "xlsxwriter" "chardet"   # imported by Orange.data / Orange.classification
)
NO_DEPS=(
  "orange3==3.40.0"               # CN2 unordered
  "orange-canvas-core==0.2.9"     # Orange.data imports orangecanvas.localization
  "rulelist==0.2.0"               # CLASSY (the authors' code)
)
CORE_RE='^(numpy|pandas|numba|llvmlite|scipy|scikit-learn)=='

if ! command -v java >/dev/null 2>&1; then
  echo "install-competitors: warning: no 'java' on PATH; Weka (C45, RIPPER, OneR) needs Java >= 11" >&2
  echo "  (Debian: apt-get install -y default-jre-headless)." >&2
fi

start=$(date +%s)
core_before=$("${PIP[@]}" list --format=freeze 2>/dev/null | grep -iE "$CORE_RE" | sort)
constraints=$(mktemp)
trap 'rm -f "$constraints"' EXIT
printf '%s\n' "$core_before" > "$constraints"

# Fast path: everything already there at the pinned versions.
if "$PY" - "${NORMAL[@]}" "${NO_DEPS[@]}" <<'PYEOF' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
for req in sys.argv[1:]:
    name, _, want = req.partition("==")
    try:
        have = version(name)
    except PackageNotFoundError:
        sys.exit(1)
    if want and have != want:
        sys.exit(1)
PYEOF
then
  echo "install-competitors: all competitor packages already installed in $VENV"
else
  "${PIP[@]}" install -q -c "$constraints" "${NORMAL[@]}"
  "${PIP[@]}" install -q --no-deps -c "$constraints" "${NO_DEPS[@]}"
fi

core_after=$("${PIP[@]}" list --format=freeze 2>/dev/null | grep -iE "$CORE_RE" | sort)
if [ "$core_before" != "$core_after" ]; then
  echo "install-competitors: ERROR: core package versions changed:" >&2
  diff <(echo "$core_before") <(echo "$core_after") >&2 || true
  exit 1
fi

# Every adapter's library must import (without starting the JVM).
"$PY" -W ignore::DeprecationWarning - <<'PYEOF'
import importlib
for mod in ("weka.core.jvm", "jpype", "imodels", "Orange.classification", "Orange.data",
            "rulelist", "gmpy2"):
    importlib.import_module(mod)
PYEOF
echo "install-competitors: done in $(( $(date +%s) - start )) s; core packages unchanged:" $core_after
