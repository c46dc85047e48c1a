/* Why this prediction: a clicked row (or an overlap pattern), the rules that cover it, the union
   of their covers with its class counts, and the probabilities (Eq. 3.5), step by step, from the
   pattern counts the page carries (every training row, whatever the picture draws). */
  function finalRules() { return rulesBefore(T.searches.length); }
  function ruleName(i) { return "R" + (i + 1); }
  function predictionPanel() {
    var f = D.final, out = [];
    if (!f.patterns.length) return el("p", null, "This page carries no overlap patterns (written without the training data), so it cannot add up a prediction.");
    var pt = S.point, pi = null, row = null;
    if (pt && pt.row !== undefined && P.pattern && P.pattern.length) { row = pt.row; pi = P.pattern[row]; }
    else if (pt && pt.pattern !== undefined) pi = pt.pattern;
    var how = P.n_shown ? "Click a point of the picture, or a pattern below." :
      "This page carries no training rows (" + P.mode + "), so there are no points to click: pick an overlap pattern below; every row with that pattern gets the same prediction.";
    if (pi === null) {
      out.push(el("p", null, "Why a row gets its prediction: the rules that cover it, the union of their covers, and the class shares in that union (Eq. 3.5). " + how));
    } else out.push(steps4(pi, row));
    if (P.n_shown && P.n_shown < P.n_train) out.push(el("p", {class: "tp-note"}, "The picture draws " + num(P.n_shown) + " of the " + num(P.n_train) +
      " training rows; the counts below are of all of them."));
    out.push(el("div", {class: "tp-scroll tp-short"}, table("tp-pattern-pick", [el("th", {class: "tp-cond"}, "covered by exactly"), "rows"],
      f.patterns.map(function (p, i) {
        var go = function () { S.point = {pattern: i}; render(); };
        return el("tr", {class: "tp-row" + (i === pi ? " tp-selected" : ""), tabindex: 0, "aria-selected": i === pi ? "true" : "false", onclick: go,
          onkeydown: function (e) { if (e.key === "Enter") go(); }},
          el("td", {class: "tp-cond"}, p.pattern.length ? p.pattern.map(ruleName).join(" + ") : "no rule (else)"), el("td", null, num(p.n)));
      }))));
    return out;
  }
  function steps4(pi, row) {
    var f = D.final, p = f.patterns[pi], rules = finalRules(), box = el("ol", {class: "tp-steps"});
    var who = row !== null ? "Row " + (row + 1) + " of the picture (class " + D.classes[P.class[row]] + ")" : "A row covered by exactly " +
      (p.pattern.length ? p.pattern.map(ruleName).join(" + ") : "no rule");
    if (row !== null && D.columns) {
      var cols = [S.ax[0], S.ax[1]].concat(D.columns.map(function (_, j) { return j; }));  // the picture's columns first
      cols = cols.filter(function (j, n) { return cols.indexOf(j) === n; });
      who += ": " + cols.slice(0, 4).map(function (j) {
        var c = D.columns[j], v = P.values[j][row];
        return c.name + " = " + (v === null ? "missing" : c.kind === "categorical" ? c.levels[v] : num(v, 6));
      }).join(", ") + (cols.length > 4 ? ", \u2026" : "");
    }
    var total = function (c) { return c.reduce(function (a, b) { return a + b; }, 0); };
    if (!p.pattern.length) {
      add(box, el("li", null, "No rule covers it, so the else-rule predicts: the rows no rule covers."),
        el("li", null, "Those rows: " + num(p.n) + ", class counts [" + p.counts.join(", ") + "]."),
        el("li", {class: "tp-proba"}, probaText(p.union)));
    } else {
      add(box, el("li", null, "The rules that cover it: " + p.pattern.map(function (i) {
        return ruleName(i) + " (" + conds(rules[i]) + "; " + num(total(f.rule_counts[i])) + " rows, [" + f.rule_counts[i].join(", ") + "])";
      }).join(", ") + "."));
      if (p.pattern.length > 1) {
        var parts = f.patterns.filter(function (q) { return q.pattern.some(function (r) { return p.pattern.indexOf(r) >= 0; }); });
        add(box, el("li", null, "The union of their covers: every training row covered by " + p.pattern.map(ruleName).join(" or ") +
          ", counted once: " + parts.map(function (q) { return "[" + q.counts.join(", ") + "] (" + q.pattern.map(ruleName).join(" + ") + ")"; }).join(" + ") +
          " = " + num(total(p.union)) + " rows, [" + p.union.join(", ") + "]."));
      } else add(box, el("li", null, "One rule covers it: its own cover, " + num(total(p.union)) + " rows, [" + p.union.join(", ") + "]."));
      add(box, el("li", {class: "tp-proba"}, probaText(p.union)));
    }
    return el("div", {class: "tp-why-point"}, el("p", null, el("strong", null, who)), box);
  }
  function probaText(c) {
    var n = c.reduce(function (a, b) { return a + b; }, 0);
    if (!n) return "No training row to count: no probability.";
    return "The probabilities are the class shares of those rows: " + D.classes.map(function (name, i) {
      return "P(" + name + ") = " + c[i] + " / " + n + " = " + (c[i] / n).toFixed(3);
    }).join("; ") + ". The prediction is the class with the largest share: \u201c" + D.classes[c.indexOf(Math.max.apply(null, c))] + "\u201d.";
  }
