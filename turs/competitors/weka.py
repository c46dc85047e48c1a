"""Weka learners through python-weka-wrapper3: C4.5 (J48), RIPPER (JRip) and OneR.

The thesis ran C4.5 and RIPPER from Weka (Section 3.6.1). ``python-weka-wrapper3`` ships
``weka.jar`` and drives a JVM through JPype (Java 17 is on the machine):

* the JVM starts lazily, at the first fit or prediction, offline (``packages=False``: no Weka
  package manager, no network), once per process. A JVM cannot be restarted after
  ``jvm.stop()``, and a JVM does not survive ``fork``: the benchmark runner runs each task in a
  worker process, which starts its own JVM. :func:`start_jvm` refuses a JVM inherited from a
  parent process rather than hang.
* every feature is passed as a numeric attribute (``turs.datasets.load`` one-hot encodes the
  categorical columns); NaN is Weka's missing value. The class is a nominal attribute whose
  values are ``classes_`` in order, and predicted distributions are mapped back to that order
  by the class attribute's value names.
* rules are read from the fitted Java objects (J48's tree by reflection on ``m_root``, JRip's
  ``getRuleset()``, OneR's ``m_rule``), and their masks are recomputed in numpy with Weka's
  own comparisons (J48: ``<=`` left / ``>`` right; JRip: ``<=`` / ``>=``; OneR: intervals
  ``[b_{i-1}, b_i)``), so ``mask`` never calls the JVM. The tests check every mask against
  Weka's predictions.
"""
from __future__ import annotations

import logging
import os
import re

import numpy as np

from ..adapter import ExtractedRule
from ._common import CompetitorAdapter, first_match_masks, fmt, import_or_hint, label_strings

__all__ = ["C45Adapter", "RIPPERAdapter", "OneRAdapter", "start_jvm", "jvm_running"]

_MODULES = ("weka", "jpype")
_PACKAGES = "python-weka-wrapper3 (and JPype1; Java >= 11 on PATH)"
_CLASS_ATTRIBUTE = "__turs_class__"

_JVM_PID: int | None = None  # the process that started the JVM


def jvm_running() -> bool:
    """Whether this process has started the Weka JVM (without starting it)."""
    return _JVM_PID is not None and _JVM_PID == os.getpid()


def start_jvm(max_heap_size: str | None = None) -> None:
    """Start the Weka JVM once per process, offline (``packages=False``); later calls do nothing.

    Raises ``RuntimeError`` when the JVM was started by a parent process before a ``fork``
    (it would hang) or was stopped (JPype cannot start a second JVM in one process).
    """
    global _JVM_PID
    jvm = import_or_hint("Weka", _PACKAGES, lambda: __import__("weka.core.jvm", fromlist=["jvm"]))
    import jpype

    if jpype.isJVMStarted():
        if _JVM_PID is not None and _JVM_PID != os.getpid():
            raise RuntimeError(
                f"The Weka JVM was started in process {_JVM_PID} and this process ({os.getpid()}) "
                "is a fork of it; a JVM does not survive fork. Start workers with the 'spawn' "
                "method or do not fit Weka models in the parent process."
            )
        if _JVM_PID is None:  # started by someone else in this process (e.g. the user)
            _JVM_PID = os.getpid()
        return
    if _JVM_PID is not None or getattr(jvm, "started", None) is not None:
        raise RuntimeError(
            "The Weka JVM of this process was stopped and cannot be restarted (a JPype limit); "
            "run Weka learners in a new process."
        )
    if os.environ.get("TURS_WEKA_HEAP") and max_heap_size is None:
        max_heap_size = os.environ["TURS_WEKA_HEAP"]
    jvm.start(packages=False, max_heap_size=max_heap_size, logging_level=logging.WARNING)
    _JVM_PID = os.getpid()


def _instances(X: np.ndarray, y_idx: np.ndarray | None, columns: list[str], labels: list[str],
               template=None):
    """A Weka ``Instances`` with numeric attributes ``columns`` and a nominal class (last).

    With ``template`` (the training header) the attributes are copied from it; rows without
    ``y_idx`` get a missing class.
    """
    import jpype
    from weka.core.dataset import Attribute, Instances

    if template is None:
        atts = [Attribute.create_numeric(c) for c in columns]
        atts.append(Attribute.create_nominal(_CLASS_ATTRIBUTE, labels))
        data = Instances.create_instances("turs", atts, X.shape[0])
        data.class_is_last()
    else:
        data = Instances.template_instances(template, X.shape[0])
    cls_col = np.full(X.shape[0], np.nan) if y_idx is None else np.asarray(y_idx, dtype=float)
    M = np.ascontiguousarray(np.column_stack([np.asarray(X, dtype=float), cls_col]))
    dense = jpype.JClass("weka.core.DenseInstance")
    jarray = jpype.JArray(jpype.JDouble)
    jdata = data.jobject
    for row in M:
        jdata.add(dense(1.0, jarray(row)))
    return data


def _reflect(obj, field: str):
    """A protected or private Java field (the classes live in the unnamed module)."""
    cls = obj.getClass()
    while cls is not None:
        try:
            f = cls.getDeclaredField(field)
        except Exception:  # NoSuchFieldException: look in the superclass
            cls = cls.getSuperclass()
            continue
        f.setAccessible(True)
        return f.get(obj)
    raise AttributeError(f"Java object of class {obj.getClass().getName()} has no field {field!r}")


class _WekaAdapter(CompetitorAdapter):
    """Shared fit/predict for a Weka classifier (``params``: ``options`` list, ``max_heap_size``)."""

    classname = ""
    default_options: tuple[str, ...] = ()
    requires = _MODULES
    packages = _PACKAGES

    def _fit(self, X, y):
        start_jvm(self.params.get("max_heap_size"))
        from weka.classifiers import Classifier

        self.feature_names_in_ = list(X.columns)
        self.columns_ = [str(c) for c in X.columns]
        if len(set(self.columns_)) != len(self.columns_):
            raise ValueError(f"{self.name}: column names must be distinct as strings. Got {self.columns_}.")
        self.labels_ = label_strings(self.classes_)
        y_idx = np.searchsorted(self.classes_, y)
        data = _instances(X.to_numpy(float), y_idx, self.columns_, self.labels_)
        options = list(self.params.get("options", self.default_options))
        self.model_ = Classifier(classname=self.classname, options=options)
        self.model_.build_classifier(data)
        self.header_ = data.copy_structure()
        cls_att = self.header_.class_attribute
        # Weka's class index of each class in classes_ order
        self.class_order_ = np.array([cls_att.index_of(lab) for lab in self.labels_])
        self._read_model()

    def _read_model(self):
        pass

    def predict_proba(self, X):
        start_jvm(self.params.get("max_heap_size"))
        data = _instances(X[self.feature_names_in_].to_numpy(float), None, self.columns_, self.labels_,
                          template=self.header_)
        P = np.asarray(self.model_.distributions_for_instances(data), dtype=float)
        return P[:, self.class_order_]

    def describe(self) -> str:
        """Weka's own text of the fitted model."""
        return str(self.model_)


class C45Adapter(_WekaAdapter):
    """C4.5 as Weka's J48 with its defaults (``-C 0.25 -M 2``): one rule per leaf, literals = depth."""

    name = "C45"
    kind = "tree"
    classname = "weka.classifiers.trees.J48"
    default_options = ("-C", "0.25", "-M", "2")

    def _read_model(self):
        root = _reflect(self.model_.jobject, "m_root")
        leaves = []  # (conditions [(column index, op, value)], class counts)
        stack = [(root, ())]
        while stack:
            node, conds = stack.pop()
            if node.isLeaf():
                dist = node.getLocalModel().distribution()
                counts = [float(dist.perClass(int(k))) for k in self.class_order_]
                leaves.append((conds, counts))
                continue
            split = node.getLocalModel()
            sons = list(node.getSons())
            if split.getClass().getSimpleName() != "C45Split" or len(sons) != 2:
                raise NotImplementedError(
                    f"C45: unexpected J48 split {split.getClass().getName()} with {len(sons)} "
                    "branches; every feature is passed as numeric, so only binary C45Split "
                    "nodes are expected."
                )
            att, sp = int(split.attIndex()), float(split.splitPoint())
            stack.append((sons[1], conds + ((att, ">", sp),)))
            stack.append((sons[0], conds + ((att, "<=", sp),)))
        self.leaves_ = leaves

    def rules(self):
        out = []
        cols = self.columns_
        for i, (conds, counts) in enumerate(self.leaves_):
            body = " AND ".join(f"{cols[a]} {op} {fmt(v)}" for a, op, v in conds) or "TRUE"
            dist = ", ".join(f"{lab}={c:g}" for lab, c in zip(self.labels_, counts))
            text = f"IF {body} THEN leaf {i} ({dist})"

            def mask(X, conds=conds):
                A = X[self.feature_names_in_].to_numpy(float)
                m = np.ones(len(A), dtype=bool)
                for a, op, v in conds:
                    m &= (A[:, a] <= v) if op == "<=" else (A[:, a] > v)
                return m

            out.append(ExtractedRule(text, len(conds), mask, is_default=not conds))
        return out


_JRIP_LINE = re.compile(r"=>")


class RIPPERAdapter(_WekaAdapter):
    """RIPPER as Weka's JRip with its defaults (``-F 3 -N 2.0 -O 2 -S 1``).

    JRip learns one rule set per class, classes in order of increasing frequency, and the last
    (most frequent) class is the default rule; prediction takes the first rule that covers the
    row, so the rules form a list and each mask is the rows a rule is *used* for.
    """

    name = "RIPPER"
    kind = "rule_list"
    classname = "weka.classifiers.rules.JRip"
    default_options = ("-F", "3", "-N", "2.0", "-O", "2", "-S", "1")

    def _read_model(self):
        rules = []
        for rule in self.model_.jobject.getRuleset():
            conds = []
            for antd in rule.getAntds():
                kind = antd.getClass().getSimpleName()
                if kind != "NumericAntd":
                    raise NotImplementedError(f"RIPPER: unexpected JRip antecedent {kind}")
                op = "<=" if int(antd.getAttrValue()) == 0 else ">="
                conds.append((int(antd.getAttr().index()), op, float(antd.getSplitPoint())))
            rules.append(tuple(conds))
        self.rule_conds_ = rules
        lines = [ln.strip().replace(f"{_CLASS_ATTRIBUTE}=", "")
                 for ln in str(self.model_).splitlines() if _JRIP_LINE.search(ln)]
        self.rule_texts_ = lines if len(lines) == len(rules) else None

    def _covers(self, X):
        A = X[self.feature_names_in_].to_numpy(float)
        covers = []
        for conds in self.rule_conds_:
            m = np.ones(len(A), dtype=bool)
            for a, op, v in conds:
                m &= (A[:, a] <= v) if op == "<=" else (A[:, a] >= v)
            covers.append(m)
        return covers

    def rules(self):
        cols = self.columns_
        out = []
        n = len(self.rule_conds_)
        for i, conds in enumerate(self.rule_conds_):
            if self.rule_texts_ is not None:
                text = self.rule_texts_[i]
            else:
                text = " AND ".join(f"{cols[a]} {op} {fmt(v)}" for a, op, v in conds) or "TRUE"
            out.append(ExtractedRule(text, len(conds), (lambda X, i=i: first_match_masks(self._covers(X))[i]),
                                     is_default=(not conds and i == n - 1)))
        return out


class OneRAdapter(_WekaAdapter):
    """OneR (Holte 1993) as Weka's ``rules.OneR`` (``-B 6``): one feature cut into intervals.

    Predictions are hard (Weka gives one-hot distributions: ``hard_predictions=True``). Each
    interval is a rule with one literal (``x < b``, ``a <= x < b`` or ``x >= a``, as TURS counts
    an interval); a single interval (no cut) is a default rule with no literal. The intervals do
    not overlap, so "used for" and "covers" coincide.
    """

    name = "OneR"
    kind = "rule_list"
    explanation = "leaf"  # the intervals partition the rows: the one interval explains a row
    hard_predictions = True
    classname = "weka.classifiers.rules.OneR"
    default_options = ("-B", "6")

    def _read_model(self):
        rule = _reflect(self.model_.jobject, "m_rule")
        att = _reflect(rule, "m_attr")
        if not att.isNumeric():
            raise NotImplementedError("OneR: the chosen attribute is not numeric")
        self.attribute_ = int(att.index())
        self.breakpoints_ = np.array([float(b) for b in _reflect(rule, "m_breakpoints")])
        classif = [int(c) for c in _reflect(rule, "m_classifications")]
        inv = {int(k): i for i, k in enumerate(self.class_order_)}
        self.interval_classes_ = [inv[c] for c in classif]

    def rules(self):
        col = self.columns_[self.attribute_]
        b = self.breakpoints_
        out = []
        for i, k in enumerate(self.interval_classes_):
            lo = b[i - 1] if i > 0 else -np.inf
            hi = b[i] if i < len(b) else np.inf
            if np.isinf(lo) and np.isinf(hi):
                body = "TRUE"
            elif np.isinf(lo):
                body = f"{col} < {fmt(hi)}"
            elif np.isinf(hi):
                body = f"{col} >= {fmt(lo)}"
            else:
                body = f"{fmt(lo)} <= {col} < {fmt(hi)}"

            def mask(X, lo=lo, hi=hi):
                v = X[self.feature_names_in_[self.attribute_]].to_numpy(float)
                return (v >= lo) & (v < hi)

            out.append(ExtractedRule(f"IF {body} THEN {self.labels_[k]}", 0 if body == "TRUE" else 1,
                                     mask, is_default=body == "TRUE"))
        return out
