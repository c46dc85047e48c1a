/* The search page's player: navigation, keys, deep links, predict-then-reveal and every panel,
   drawn from the recording (model.js) on each step. No network, no server. */
  // ------------------------------------------------------------------ storage (score, answers)
  function openStore() {
    var key = "turs-search-page:" + D.title + ":" + T.n_train + ":" + T.searches.length;
    try {
      var ls = window.localStorage, got = JSON.parse(ls.getItem(key) || "null");
      ls.setItem(key, JSON.stringify(got || memory));
      if (got && got.score && got.answers) memory = got;
      store = {save: function () { try { ls.setItem(key, JSON.stringify(memory)); } catch (e) { /* full: keep in memory */ } }, kind: "this browser"};
    } catch (e) {
      store = {save: function () {}, kind: "this page until it is closed (the browser allows no storage here)"};
    }
  }

  // ------------------------------------------------------------------ predict, then reveal
  function candQuestion(k, it) {
    var beam = list(k, it, "main_beam");
    return beam.length >= 2 ? {key: "c:" + k + ":" + it, best: bestIndex(beam, "r")} : null;
  }
  function testQuestion(k, it) {
    var pool = [];
    ["main_beam", "rejected_by_local_test"].forEach(function (key) {
      list(k, it, key).forEach(function (c) { if (c.local_test_bits) pool.push(c); });
    });
    if (!pool.length) return null;
    var pick = pool[(Math.imul(k + 3, 2654435761) + Math.imul(it + 5, 40503) >>> 0) % pool.length];
    return {key: "t:" + k + ":" + it, cand: pick, passed: !!pick.local_test_bits.passed};
  }
  function pending() {
    if (!S.predict) return null;
    var q = candQuestion(S.k, S.it);
    if (q && !memory.answers[q.key]) return {kind: "cand", q: q};
    var t = testQuestion(S.k, S.it);
    if (t && !memory.answers[t.key]) return {kind: "test", q: t};
    return null;
  }
  function answer(key, right, picked) {
    memory.answers[key] = {right: right, picked: picked};
    memory.score.asked += 1;
    if (right) memory.score.right += 1;
    store.save();
    render();
  }

  // ------------------------------------------------------------------ navigation
  function show(k, it, sel, keepAxes) {
    S.k = Math.max(0, Math.min(k, T.searches.length - 1));
    S.it = Math.max(0, Math.min(it, Math.max(iters(S.k).length, 1) - 1));
    S.sel = sel === undefined ? (S.predict && candQuestion(S.k, S.it) && !memory.answers[candQuestion(S.k, S.it).key] ? null : defaultSel(S.k, S.it)) : sel;
    if (!keepAxes) follow(selected());
    render();
  }
  function step(d) {
    var s = firstStep[S.k] + S.it + d;
    if (s >= 0 && s < steps.length) show(steps[s][0], steps[s][1]);
  }
  function select(sel) { S.sel = sel; follow(selected()); render(); }
  function handleKey(ev) {
    var t = ev.target, tag = t && t.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var k = ev.key, n = T.searches.length;
    if (k === "ArrowRight") step(1);
    else if (k === "ArrowLeft") step(-1);
    else if (k === "PageDown") { if (S.k + 1 < n) show(S.k + 1, 0); }
    else if (k === "PageUp") { if (S.k > 0) show(S.k - 1, 0); }
    else if (k === "Home") show(0, 0);
    else if (k === "End") show(steps[steps.length - 1][0], steps[steps.length - 1][1]);
    else if (k === "p" || k === "P") { S.predict = !S.predict; show(S.k, S.it); }
    else return;
    ev.preventDefault();
  }
  function readHash() {
    var h = (window.location.hash || "").replace(/^#/, "");
    if (!h) return false;
    var q = new URLSearchParams(h), k = parseInt(q.get("search"), 10), it = parseInt(q.get("iteration"), 10);
    var c = parseInt(q.get("candidate"), 10), beam = q.get("beam") === "aux" ? "aux" : "main";
    if (!isFinite(k)) return false;
    k = Math.max(1, Math.min(k, T.searches.length)) - 1;
    it = isFinite(it) ? Math.max(1, Math.min(it, Math.max(iters(k).length, 1))) - 1 : 0;
    var sel;
    if (isFinite(c) && list(k, it, LISTS[beam])[c - 1]) sel = {which: beam, i: c - 1};
    show(k, it, sel);
    return true;
  }
  function writeHash() {
    var h = "#search=" + (S.k + 1) + "&iteration=" + (S.it + 1);
    if (S.sel && (S.sel.which === "main" || S.sel.which === "aux")) h += "&candidate=" + (S.sel.i + 1) + (S.sel.which === "aux" ? "&beam=aux" : "");
    if (window.location.hash === h) return;
    try { window.history.replaceState(null, "", h); } catch (e) { /* a sandboxed frame: no address to keep */ }
  }

  // ------------------------------------------------------------------ rendering
  function render() {
    var keepScroll = window.scrollY;
    clear(app);
    app.appendChild(header());
    app.appendChild(status());
    var p = predictBox();
    if (p) app.appendChild(p);
    app.appendChild(el("div", {class: "tp-main"},
      el("div", {class: "tp-left"}, picture()),
      el("div", {class: "tp-right"}, beams(), tabs())));
    writeHash();
    window.scrollTo(0, keepScroll);
  }

  function header() {
    var n = T.searches.length, s = firstStep[S.k] + S.it;
    var its = Math.max(iters(S.k).length, 1);
    function btn(label, title, cls, on, disabled) {
      return el("button", {type: "button", class: cls, title: title, "aria-label": title, onclick: on, disabled: disabled}, label);
    }
    var sc = memory.score;
    return el("header", {class: "tp-bar"},
      el("h1", {class: "tp-title"}, D.title),
      btn("first", "first step (Home)", "tp-first", function () { show(0, 0); }, s === 0),
      btn("\u25C0\u25C0 search", "previous rule search (PageUp)", "tp-prev-search", function () { show(S.k - 1, 0); }, S.k === 0),
      btn("\u25C0 back", "previous beam iteration (\u2190)", "tp-prev", function () { step(-1); }, s === 0),
      el("span", {class: "tp-where"}, "rule search " + (S.k + 1) + " of " + n + " \u00b7 beam iteration " + (S.it + 1) + " of " + its),
      btn("next \u25B6", "next beam iteration (\u2192)", "tp-next", function () { step(1); }, s === steps.length - 1),
      btn("search \u25B6\u25B6", "next rule search (PageDown)", "tp-next-search", function () { show(S.k + 1, 0); }, S.k === n - 1),
      btn("last", "last step (End)", "tp-last", function () { show(steps[steps.length - 1][0], steps[steps.length - 1][1]); }, s === steps.length - 1),
      el("label", {class: "tp-toggle", title: "pick the answer before the page shows it (key P)"},
        el("input", {type: "checkbox", class: "tp-predict-toggle", checked: S.predict, onchange: function (e) { S.predict = e.target.checked; show(S.k, S.it); }}),
        "predict, then reveal"),
      S.predict ? el("span", {class: "tp-score"}, "score: " + sc.right + " of " + sc.asked) : null,
      S.predict ? btn("reset score", "forget the answers given on this page", "tp-reset", function () {
        memory = {score: {right: 0, asked: 0}, answers: {}}; store.save(); show(S.k, S.it);
      }) : null);
  }

  function status() {
    var s = search(S.k), its = iters(S.k), rules = rulesBefore(S.k);
    var mdl = s.mdl_before;
    var box = el("div", {class: "tp-status"},
      "Rules so far: " + rules.length + "; MDL score before this search: " + bits(mdl) + " bits. ");
    var i = iteration(S.k, S.it);
    if (i) {
      add(box, plural(i.n_growths, "growth") + " of " + plural(i.n_bases, "base") + " scored; main beam " + num(i.main_beam_size) +
        ", auxiliary beam " + num(i.aux_beam_size) + "; the local test rejected " + num(i.n_rejected_by_local_test) +
        " (main) and " + num(i.n_aux_rejected_by_local_test) + " (auxiliary). ");
    } else add(box, "This search recorded no beam iteration. ");
    if (s.sample_rows) add(box, el("span", {class: "tp-note"}, "This search ran on a sample of " + num(s.sample_rows) + " rows (its candidates' counts are the sample's). "));
    if (S.it >= its.length - 1) {
      add(box, el("span", {class: "tp-stop"}, "This search " + D.explain.searches[S.k].stop_text + "; its rule " +
        (s.accepted ? "was added." : "was not added.")));
      if (S.k === T.searches.length - 1) add(box, " ", el("span", {class: "tp-stop tp-fit-stop"}, D.explain.fit_stop_text));
    }
    return box;
  }

  function predictBox() {
    if (!S.predict) return null;
    var p = pending(), box = el("div", {class: "tp-predict", role: "region", "aria-label": "predict, then reveal"});
    if (!p) {
      var q = candQuestion(S.k, S.it), t = testQuestion(S.k, S.it), said = [];
      if (q) said.push(answerText(memory.answers[q.key], "Which candidate wins: "));
      if (t) said.push(answerText(memory.answers[t.key], "Local test: "));
      if (!said.length) said.push("No question at this step (fewer than two candidates and no recorded local test). Step on with \u2192.");
      add(box, said.map(function (x) { return el("div", null, x); }));
      return box;
    }
    if (p.kind === "cand") {
      var beam = list(S.k, S.it, "main_beam"), sel = S.sel && S.sel.which === "main" ? S.sel.i : null;
      add(box, el("div", {class: "tp-q"}, "Which candidate of the main beam wins this iteration (the best r, Eq. 3.21)?"),
        el("div", null, "Select rows of the main beam to see them on the picture, then lock in your pick. r, R and the MDL columns are hidden until then."),
        el("button", {type: "button", class: "tp-lock", disabled: sel === null, onclick: function () {
          var best = beam[p.q.best];
          var right = sel === p.q.best || score(beam[sel].r) === score(best.r);
          answer(p.q.key, right, sel);
        }}, sel === null ? "select a row first" : "lock in #" + (sel + 1)));
      return box;
    }
    var c = p.q.cand, parent = byId(S.k)[c.parent_id];
    add(box, el("div", {class: "tp-q"}, "Does this growth pass the main beam's local test (Eq. 3.22)?"),
      el("div", null, "Growth: " + conds(c) + " (adds " + (c.added_condition || "?") + "), covering " + num(c.coverage) +
        " rows with class counts [" + (c.class_counts || []).join(", ") + "]."),
      el("div", null, "Its parent: " + (parent ? conds(parent) : "?") + (parent ? ", " + num(parent.coverage) + " rows [" + (parent.class_counts || []).join(", ") + "]." : "")),
      el("button", {type: "button", class: "tp-answer-pass", onclick: function () { answer(p.q.key, p.q.passed, "pass"); }}, "it passes"),
      el("button", {type: "button", class: "tp-answer-fail", onclick: function () { answer(p.q.key, !p.q.passed, "fail"); }}, "it fails"));
    return box;
  }
  function answerText(a, prefix) {
    if (!a) return prefix + "(not asked)";
    return el("span", null, prefix, el("span", {class: a.right ? "tp-right-answer" : "tp-wrong-answer"}, a.right ? "right" : "not this time"),
      typeof a.picked === "number" ? " (you picked #" + (a.picked + 1) + "; the winner is marked \u2605 best r below)" : " (you said it " + (a.picked === "pass" ? "passes" : "fails") + "; see the Local test tab)");
  }

  // ------------------------------------------------------------------ the data picture
  function picture() {
    var wrap = el("div", {class: "tp-picture"});
    if (!D.columns) { add(wrap, el("p", {class: "tp-note tp-points-note"}, P.note), leftOut(), selectedBox()); return wrap; }
    if (!S.ax) S.ax = defaultAxes();
    function axisSelect(a) {
      var s = el("select", {class: "tp-axis-" + (a ? "y" : "x"), "aria-label": (a ? "y" : "x") + " axis column", onchange: function (e) {
        S.ax[a] = parseInt(e.target.value, 10); render();
      }});
      D.columns.forEach(function (c, i) { add(s, el("option", {value: i, selected: S.ax[a] === i}, c.name)); });
      return s;
    }
    add(wrap, el("div", {class: "tp-axes"}, el("label", null, "x: ", axisSelect(0)), el("label", null, "y: ", axisSelect(1))));
    add(wrap, plot());
    var legend = el("div", {class: "tp-legend"});
    D.classes.forEach(function (name, i) { add(legend, el("span", null, el("span", {class: "tp-swatch tp-sw-" + (i % 8)}), name)); });
    add(legend, el("span", null, "dashed grey: rules so far; purple: the selected candidate"));
    add(wrap, legend);
    add(wrap, el("div", {class: "tp-note tp-points-note"}, P.note));
    add(wrap, leftOut());
    add(wrap, selectedBox());
    return wrap;
  }
  function leftOut() {
    return (D.left_out || []).filter(function (t) { return t !== P.note; }).map(function (t) { return el("div", {class: "tp-note tp-left-out"}, t); });
  }

  function ticks(lo, hi, n) {
    var span = hi - lo; if (!(span > 0)) return [lo];
    var stepv = Math.pow(10, Math.floor(Math.log10(span / n))), err = span / n / stepv;
    stepv *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = []; for (var v = Math.ceil(lo / stepv) * stepv; v <= hi + 1e-9 * span; v += stepv) out.push(Number(v.toPrecision(10)));
    return out;
  }

  function plot() {
    var W = 440, H = 360, m = {l: 58, r: 10, t: 12, b: 44};
    var cx = S.ax[0], cy = S.ax[1], X = D.columns[cx], Y = D.columns[cy];
    function pad(r) { var d = (r[1] - r[0]) || 1; return [r[0] - 0.02 * d, r[1] + 0.02 * d]; }
    var rx = pad(X.range), ry = pad(Y.range);
    function sx(v) { return m.l + (v - rx[0]) / (rx[1] - rx[0]) * (W - m.l - m.r); }
    function sy(v) { return H - m.b - (v - ry[0]) / (ry[1] - ry[0]) * (H - m.t - m.b); }
    var g = svg("svg", {class: "tp-plot", viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": "training rows on " + X.name + " and " + Y.name + " with the rules' regions"});
    // axes and ticks
    add(g, svg("rect", {x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, fill: "none", stroke: "#999"}));
    function axis(col, r, horizontal) {
      var c = D.columns[col], tk = c.kind === "categorical" ? c.levels.map(function (_, i) { return i; }) : ticks(r[0], r[1], 5);
      var every = Math.max(1, Math.ceil(tk.length / (horizontal ? 6 : 10)));
      tk.forEach(function (v, i) {
        if (i % every) return;
        var label = c.kind === "categorical" ? c.levels[v] : num(v, 4);
        var long = c.kind === "categorical" && String(label).length > 5;
        if (horizontal) {
          add(g, svg("line", {x1: sx(v), x2: sx(v), y1: H - m.b, y2: H - m.b + 5, stroke: "#555"}));
          if (long) {  // a long level name goes inside the plot, along its strip, whole
            add(g, svg("text", {x: sx(v) - 4, y: H - m.b - 6, transform: "rotate(-90 " + (sx(v) - 4) + " " + (H - m.b - 6) + ")",
              stroke: "#fff", "stroke-width": 4, "paint-order": "stroke", class: "tp-level"}, label));
          } else add(g, svg("text", {x: sx(v), y: H - m.b + 20, "text-anchor": "middle"}, label));
        } else if (long) {
          add(g, svg("line", {x1: m.l - 5, x2: m.l, y1: sy(v), y2: sy(v), stroke: "#555"}));
          add(g, svg("text", {x: m.l + 4, y: sy(v + 0.36), stroke: "#fff", "stroke-width": 4, "paint-order": "stroke", class: "tp-level"}, label));
        } else {
          add(g, svg("line", {x1: m.l - 5, x2: m.l, y1: sy(v), y2: sy(v), stroke: "#555"}));
          add(g, svg("text", {x: m.l - 8, y: sy(v) + 5, "text-anchor": "end"}, label));
        }
      });
    }
    axis(cx, rx, true); axis(cy, ry, false);
    add(g, svg("text", {x: (W + m.l) / 2, y: H - 6, "text-anchor": "middle", class: "tp-xlabel"}, X.name));
    // points
    var cand = selected(), lits = cand ? exactLits(cand) : null, pts = svg("g", {class: "tp-points"});
    var nCovered = 0;
    for (var row = 0; row < P.n_shown; row++) {
      var px = position(cx, row), py = position(cy, row);
      if (!isFinite(px) || !isFinite(py)) continue;
      var cov = lits ? covers(lits, row) : true;
      if (lits && cov) nCovered += 1;
      add(pts, svg("circle", {cx: sx(px).toFixed(1), cy: sy(py).toFixed(1), r: cov ? 3.2 : 2.6,
        fill: COLORS[P.class[row] % 8], "fill-opacity": lits ? (cov ? 0.9 : 0.15) : 0.7,
        stroke: cov && lits ? "#222" : "none", "stroke-width": 0.4}));
    }
    add(g, pts);
    // regions: the rules so far, then the selection
    function region(l, color, width, dash, label, fill, labelRow) {  // labelRow: rules' labels do not overlap
      spans(l, cx).forEach(function (x) {
        spans(l, cy).forEach(function (y) {
          var x0 = sx(x[0]), x1 = sx(x[1]), y0 = sy(y[1]), y1 = sy(y[0]);
          add(g, svg("rect", {x: x0, y: y0, width: Math.max(x1 - x0, 1), height: Math.max(y1 - y0, 1), fill: fill || "none",
            "fill-opacity": fill ? 0.08 : null, stroke: color, "stroke-width": width, "stroke-dasharray": dash}));
          if (label) add(g, svg("text", {x: x0 + 4, y: y0 + 16 + 16 * (labelRow % 4), class: "tp-box-label",
            stroke: "#fff", "stroke-width": 3, "paint-order": "stroke"}, label));
        });
      });
    }
    rulesBefore(S.k).forEach(function (r, i) { region(exactLits(r), RULE, 1.6, "6 4", "R" + (i + 1), null, i); });
    if (cand) region(lits, CAND, 3, null, null, CAND);
    g.setAttribute("data-covered", String(nCovered));
    return g;
  }

  function selectedBox() {
    var c = selected();
    if (!c) return el("div", {class: "tp-selected-box tp-note"}, "No candidate selected. Click a row of a table.");
    var box = el("div", {class: "tp-selected-box"}, el("strong", null, "Selected: "), conds(c));
    add(box, el("div", {class: "tp-note"}, "covers " + num(c.coverage) + " training rows" +
      (c.coverage_uncovered !== undefined ? " (" + num(c.coverage_uncovered) + " outside the rules so far)" : "") +
      "; class counts [" + (c.class_counts || []).join(", ") + "]"));
    if (D.columns) {
      var hidden = exactLits(c).filter(function (l) { var col = colOf(l[0]); return col !== S.ax[0] && col !== S.ax[1]; });
      if (hidden.length) {
        var texts = hidden.map(function (l) { var i = exactLits(c).indexOf(l); return (c.conditions || [])[i] || D.encoded[l[0]].name; });
        add(box, el("div", {class: "tp-note tp-not-shown"}, "The picture cannot show " + texts.join(" AND ") +
          " (other columns); the bright rows satisfy every condition."));
      }
    }
    return box;
  }

  // ------------------------------------------------------------------ beams
  function beams() {
    var p = pending(), hide = p !== null;
    var wrap = el("div", {class: "tp-tables"});
    add(wrap, beamTable("main", "Main beam (ranked by r, Eq. 3.21)", hide, ""));
    add(wrap, beamTable("aux", "Auxiliary beam (ranked by R, Eq. 3.24)", hide, " tp-short"));
    add(wrap, el("div", {class: "tp-note"}, hide ? "Predict mode: scores hidden until you answer." :
      "\u2605 the rule this search returned; \u25C6 on its lineage; b: patience bucket of |S'|/|S| (Eq. 3.23), aux b: of |S' \\ M| / |S \\ M|; test: the local test (Eq. 3.22); MDL: L(D, M + S) in bits."));
    return wrap;
  }
  function beamTable(which, caption, hide, extra) {
    var cands = list(S.k, S.it, LISTS[which]), k = S.k;
    var buckets = {};
    cands.forEach(function (c) { var b = which === "main" ? c.bucket : c.aux_bucket; buckets[b] = (buckets[b] || 0) + 1; });
    var bucketText = Object.keys(buckets).sort(function (a, b) { return a - b; }).map(function (b) { return b + ":" + buckets[b]; }).join(" ");
    var t = el("table", {class: "tp-table tp-beam tp-beam-" + which});
    add(t, el("caption", null, caption + " \u2014 " + plural(cands.length, "candidate") + (bucketText ? "; per bucket " + bucketText : "")));
    var heads = [["#", "row number (the candidate= of a link)"], ["", "\u2605 returned by the search, \u25C6 on its lineage"],
      ["conditions", "the rule's literals, in the order they were added"], ["|S|", "training rows covered"],
      ["|S\\M|", "covered rows no rule so far covers"], ["r", "learning speed score (Eq. 3.21)"], ["R", "complementary score (Eq. 3.24)"],
      ["b", "patience bucket of |S'|/|S| (Eq. 3.23)"], ["aux b", "patience bucket of |S' \\ M| / |S \\ M|"],
      ["test", "the main beam's local test (Eq. 3.22)"], ["MDL", "L(D, M + S) in bits after adding it (Eq. 3.20)"], ["classes", "class counts in S"]];
    add(t, el("thead", null, el("tr", null, heads.map(function (h) { return el("th", {title: h[1], class: h[0] === "conditions" ? "tp-cond" : null}, h[0]); }))));
    var body = el("tbody");
    cands.forEach(function (c, i) {
      var isSel = S.sel && S.sel.which === which && S.sel.i === i, chosen = !hide && c.id === chosenId(k);
      var mark = hide ? "" : (chosen ? "\u2605" : "") + (onLineage(k, c) ? "\u25C6" : "");
      var tr = el("tr", {class: "tp-row" + (chosen ? " tp-chosen" : "") + (isSel ? " tp-selected" : ""), tabindex: 0,
        "data-id": c.id, "aria-selected": isSel ? "true" : "false",
        onclick: function () { select({which: which, i: i}); },
        onkeydown: function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select({which: which, i: i}); } }},
        el("td", null, i + 1), el("td", null, mark), el("td", {class: "tp-cond"}, conds(c)), el("td", null, num(c.coverage)),
        el("td", null, num(c.coverage_uncovered)),
        el("td", {class: hide ? "tp-hidden-num" : null}, hide ? "?" : num(c.r)),
        el("td", {class: hide ? "tp-hidden-num" : null}, hide ? "?" : num(c.R)),
        el("td", null, num(c.bucket)), el("td", null, num(c.aux_bucket)),
        el("td", {class: hide ? "tp-hidden-num" : (c.local_test ? "tp-pass" : "tp-fail")}, hide ? "?" : (c.local_test ? "pass" : "fail")),
        el("td", {class: hide ? "tp-hidden-num" : null}, hide ? "?" : bits(c.mdl_after)),
        el("td", null, (c.class_counts || []).join("/")));
      add(body, tr);
    });
    add(t, body);
    return el("div", {class: "tp-scroll" + extra}, t);
  }

  // ------------------------------------------------------------------ tabs
  var TABS = [["why", "Why this rule"], ["lineage", "Lineage"], ["test", "Local test"], ["rules", "Rule set"],
    ["stops", "Stops"], ["about", "About this page"]];
  function tabs() {
    var bar = el("div", {class: "tp-tabs", role: "tablist"});
    TABS.forEach(function (t) {
      add(bar, el("button", {type: "button", role: "tab", class: "tp-tab tp-tab-" + t[0], "aria-selected": S.tab === t[0] ? "true" : "false",
        onclick: function () { S.tab = t[0]; render(); }}, t[1]));
    });
    var panel = el("div", {class: "tp-panel tp-panel-" + S.tab, role: "tabpanel"});
    var p = pending();
    if (p && (S.tab === "why" || S.tab === "lineage" || S.tab === "test")) {
      add(panel, el("p", {class: "tp-note"}, "Predict mode: answer the question above first; this panel would give it away."));
    } else {
      add(panel, {why: whyPanel, lineage: lineagePanel, test: testPanel, rules: rulesPanel, stops: stopsPanel, about: aboutPanel}[S.tab]());
    }
    return el("div", null, bar, panel);
  }
  function table(cls, heads, rows) {
    var t = el("table", {class: "tp-table " + cls});
    add(t, el("thead", null, el("tr", null, heads.map(function (h) {
      return typeof h === "string" ? el("th", null, h) : h;
    }))));
    add(t, el("tbody", null, rows));
    return t;
  }

  function whyPanel() {
    var s = search(S.k), why = D.explain.searches[S.k].why, out = [];
    if (why.parts.length) {
      out.push(table("tp-why-table", ["MDL part", "chosen (bits)", "runner-up (bits)", "chosen \u2212 runner-up"],
        why.parts.map(function (p) {
          var d = (p.chosen === null || p.runner_up === null) ? null : p.chosen - p.runner_up;
          return el("tr", {title: p.meaning}, el("td", {class: "tp-cond"}, p.part), el("td", null, signed(p.chosen)),
            el("td", null, signed(p.runner_up)), el("td", null, signed(d)));
        })));
    }
    why.sentences.forEach(function (w) { out.push(el("p", null, w)); });
    var buttons = el("div");
    if (s.chosen) add(buttons, el("button", {type: "button", class: "tp-show-chosen", onclick: function () { select({id: s.chosen.id}); }}, "show the chosen rule"));
    if (s.runner_up) add(buttons, " ", el("button", {type: "button", class: "tp-show-runner-up", onclick: function () { select({id: s.runner_up.id}); }}, "show the runner-up"));
    out.push(buttons);
    return out;
  }

  function lineagePanel() {
    var rows = D.explain.searches[S.k].lineage;
    if (!rows.length) return el("p", null, "This search recorded no lineage (no rule, or a trace written before lineages were recorded).");
    return [el("p", null, "How the returned rule grew from the empty rule, one literal per step: the main beam of the iteration that grew it, its rank there by r, and the best other candidate of that beam. Click a step to go to its iteration."),
      el("div", {class: "tp-scroll"}, table("tp-lineage-table",
        ["step", el("th", {class: "tp-cond"}, "added"), "|S|", "r", "iteration", "rank", el("th", {class: "tp-cond"}, "best other candidate"), "lost by (r)", "rejected"],
        rows.map(function (r) {
          var go = function () { if (r.iteration !== null) show(S.k, r.iteration, {id: r.id}); else select({id: r.id}); };
          return el("tr", {class: "tp-row", tabindex: 0, onclick: go, onkeydown: function (e) { if (e.key === "Enter") go(); }},
            el("td", null, r.depth), el("td", {class: "tp-cond"}, r.added || "(the empty rule)"), el("td", null, num(r.coverage)),
            el("td", null, num(r.r)), el("td", null, r.iteration === null ? "\u2013" : r.iteration + 1),
            el("td", null, r.rank === null ? (r.iteration === null ? "\u2013" : "aux only") : r.rank + " of " + r.beam_size),
            el("td", {class: "tp-cond"}, r.loser_conditions || "\u2013"), el("td", null, num(r.margin)), el("td", null, num(r.n_rejected)));
        })))];
  }

  function testPanel() {
    var i = iteration(S.k, S.it);
    if (!i) return el("p", null, "No beam iteration recorded here.");
    var by = byId(S.k), rows = [];
    [["main", "main_beam", "local_test_bits", "in the main beam"], ["main", "rejected_by_local_test", "local_test_bits", "rejected"],
      ["aux", "aux_beam", "aux_local_test_bits", "in the auxiliary beam"], ["aux", "aux_rejected_by_local_test", "aux_local_test_bits", "rejected"]].forEach(function (spec) {
      (i[spec[1]] || []).forEach(function (c, n) {
        var b = c[spec[2]];
        if (!b) return;
        var parent = by[c.parent_id];
        rows.push({test: spec[0], where: spec[3], c: c, parent: parent ? conds(parent) : "?", without: b.bits_without_split,
          with: b.bits_with_split, excess: b.bits_with_split - b.bits_without_split, passed: b.passed, cov: c.coverage,
          sel: spec[1] === "main_beam" ? {which: "main", i: n} : spec[1] === "aux_beam" ? {which: "aux", i: n} : {id: c.id}});
      });
    });
    var key = S.sort.key, dir = S.sort.dir;
    if (key) rows.sort(function (a, b) { var x = a[key], y = b[key]; return (x < y ? -1 : x > y ? 1 : 0) * dir; });
    function head(label, k, cls, meaning) {
      return el("th", {class: "tp-sortable" + (cls ? " " + cls : ""), tabindex: 0, title: (meaning ? meaning + "; " : "") + "click to sort",
        onclick: function () { S.sort = {key: k, dir: S.sort.key === k ? -S.sort.dir : 1}; render(); }},
        label + (key === k ? (dir > 0 ? " \u25B2" : " \u25BC") : ""));
    }
    var nMain = (i.rejected_by_local_test || []).length, nAux = (i.aux_rejected_by_local_test || []).length;
    var out = [el("p", null, "Eq. 3.22 (main beam) and 3.25 (auxiliary beam): a growth passes when sending the parent's labels without the split costs more bits than with it (the two children and L_split). Both sides in bits; click a column to sort."),
      el("p", {class: "tp-counts"}, "Rejected growths shown: " + nMain + " of " + num(i.n_rejected_by_local_test) + " (main test) and " + nAux + " of " +
        num(i.n_aux_rejected_by_local_test) + " (auxiliary test); the trace records the best rejected growths and counts them all. Growths in the beams passed (or entered by the fallback).")];
    out.push(el("div", {class: "tp-scroll"}, table("tp-test-table", [head("Eq.", "test"), head("growth", "where", "tp-cond"), head("|S'|", "cov"),
      el("th", {class: "tp-cond"}, "parent"), head("without", "without", null, "bits without the split: the parent's labels alone"),
      head("with", "with", null, "bits with the split: both children and L_split"), head("with \u2212 without", "excess"), head("verdict", "passed")],
      rows.map(function (r) {
        return el("tr", {class: "tp-row", tabindex: 0, onclick: function () { select(r.sel); }},
          el("td", null, r.test === "main" ? "3.22" : "3.25"), el("td", {class: "tp-cond"}, conds(r.c) + " \u2014 " + r.where),
          el("td", null, num(r.cov)), el("td", {class: "tp-cond"}, r.parent), el("td", null, bits(r.without)), el("td", null, bits(r.with)),
          el("td", null, signed(r.excess)), el("td", {class: r.passed ? "tp-pass" : "tp-fail"}, r.passed ? "pass" : "fail"));
      }))));
    return out;
  }

  function rulesPanel() {
    var rules = rulesBefore(S.k), out = [];
    out.push(el("p", null, "Before this search: " + plural(rules.length, "rule") + ", MDL score " + bits(search(S.k).mdl_before) + " bits. Click a rule to see it on the picture."));
    if (rules.length) {
      out.push(table("tp-rules-before", ["", el("th", {class: "tp-cond"}, "rule"), "|S|", "class counts"], rules.map(function (r, i) {
        var isSel = S.sel && S.sel.which === "rule" && S.sel.i === i;
        return el("tr", {class: "tp-row" + (isSel ? " tp-selected" : ""), tabindex: 0, "aria-selected": isSel ? "true" : "false",
          onclick: function () { select({which: "rule", i: i}); }},
          el("td", null, "R" + (i + 1)), el("td", {class: "tp-cond"}, conds(r)), el("td", null, num(r.coverage)), el("td", null, (r.class_counts || []).join("/")));
      })));
    }
    var f = D.final;
    out.push(el("p", null, el("strong", null, "The fitted rule set"), " (as the estimator prints it):"));
    out.push(el("pre", {class: "tp-final"}, f.text));
    if (f.patterns.length) {
      out.push(el("p", null, "Each overlap pattern (the rows covered by exactly these rules) and its union estimate (Eq. 3.5): the class distribution of every training row the pattern's rules cover together; for rows no rule covers, the else-rule's." +
        (f.overlap ? " Rows covered by no rule: " + num(f.overlap.none) + ", by one: " + num(f.overlap.one) + ", by two or more: " + num(f.overlap.several) + "." : "")));
      out.push(el("div", {class: "tp-scroll"}, table("tp-patterns", [el("th", {class: "tp-cond"}, "covered by"), "rows", "class counts"].concat(D.classes.map(function (c) { return "P(" + c + ")"; })),
        f.patterns.map(function (p) {
          return el("tr", null, el("td", {class: "tp-cond"}, p.pattern.length ? p.pattern.map(function (r) { return "R" + (r + 1); }).join(" + ") : "no rule (else)"),
            el("td", null, num(p.n)), el("td", null, p.counts.join("/")), p.proba.map(function (v) { return el("td", null, v === null ? "\u2013" : v.toFixed(3)); }));
        }))));
    }
    return out;
  }

  function stopsPanel() {
    return [el("p", {class: "tp-fit-stop"}, D.explain.fit_stop_text),
      el("div", {class: "tp-scroll"}, table("tp-stops", ["search", "iterations", el("th", {class: "tp-cond"}, "why it stopped"), "rule added"],
        T.searches.map(function (s, k) {
          var go = function () { show(k, Math.max(s.iterations.length, 1) - 1); };
          return el("tr", {class: "tp-row" + (k === S.k ? " tp-selected" : ""), tabindex: 0, onclick: go},
            el("td", null, k + 1), el("td", null, s.iterations.length), el("td", {class: "tp-cond"}, D.explain.searches[k].stop_text), el("td", null, s.accepted ? "yes" : "no"));
        })))];
  }

  function aboutPanel() {
    var out = [el("p", null, "A recorded TURS search (Yang 2024, ch. 3): " + plural(T.searches.length, "rule search") + " on " + num(T.n_train) +
      " training rows. This page needs nothing but a browser: it loads nothing from the network and runs no server.")];
    out.push(el("div", {class: "tp-left-out"}, P.note));
    (D.left_out || []).forEach(function (t) { if (t !== P.note) out.push(el("div", {class: "tp-left-out"}, t)); });
    if (D.compressed) out.push(el("div", {class: "tp-left-out"}, "The recording is stored gzip-compressed in this file and read by the browser's DecompressionStream; no number was dropped."));
    out.push(el("p", {class: "tp-keys"}, "Keys: ", el("kbd", null, "\u2190"), " ", el("kbd", null, "\u2192"), " beam iterations; ", el("kbd", null, "PageUp"), " ",
      el("kbd", null, "PageDown"), " rule searches; ", el("kbd", null, "Home"), " ", el("kbd", null, "End"), " first and last step; ", el("kbd", null, "P"), " predict, then reveal."));
    out.push(el("p", {class: "tp-keys"}, "Link to a step: add #search=2&iteration=3&candidate=5 to this file's address (numbers as on screen; &beam=aux for the auxiliary beam)."));
    out.push(el("p", {class: "tp-keys"}, "Predict mode keeps its score in " + store.kind + "."));
    return out;
  }

  // ------------------------------------------------------------------ start
  function start(data) {
    D = data; T = D.trace; P = D.points;
    if (D.format !== "turs-page/1") throw new Error("This page holds a recording in the format " + D.format + "; this player reads turs-page/1.");
    if (!T.searches.length) throw new Error("The recording has no rule search to step through.");
    T.searches.forEach(function (s, k) {
      firstStep.push(steps.length);
      for (var it = 0; it < Math.max(s.iterations.length, 1); it++) steps.push([k, it]);
    });
    if (D.columns) S.ax = defaultAxes();
    openStore();
    document.addEventListener("keydown", handleKey);
    window.addEventListener("hashchange", readHash);
    if (!readHash()) show(0, 0);
  }
  function fail(err) {
    clear(app);
    add(app, el("p", {class: "tp-error"}, "The page could not show the recorded search: " + (err && err.message ? err.message : String(err))));
  }
  function load() {
    app = document.getElementById("turs-app");
    var plain = document.getElementById("turs-data"), gz = document.getElementById("turs-data-gz");
    try {
      if (plain) { start(JSON.parse(plain.textContent)); return; }
      if (typeof DecompressionStream === "undefined") {
        throw new Error("the recording is gzip-compressed and this browser has no DecompressionStream; open the page in a current Chrome, Edge, Firefox (113 or later) or Safari (16.4 or later).");
      }
      var raw = atob(gz.textContent.trim()), bytes = new Uint8Array(raw.length);
      for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      new Response(stream).text().then(function (text) {
        var data = JSON.parse(text); data.compressed = true; start(data);
      }).catch(fail);
    } catch (err) { fail(err); }
  }
  load();
