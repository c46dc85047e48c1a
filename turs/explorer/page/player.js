/* The search page's player: navigation, keys, deep links, predict-then-reveal and every panel,
   drawn from the recording (model.js) on each step. No network, no server. */
  // ------------------------------------------------------------------ navigation
  function show(k, it, sel, keepAxes) {
    S.k = Math.max(0, Math.min(k, T.searches.length - 1));
    S.it = Math.max(0, Math.min(it, Math.max(iters(S.k).length, 1) - 1));
    var q = candQuestion(S.k, S.it);  // an open "which candidate wins" question starts with nothing selected
    S.sel = sel === undefined ? (S.predict && q && !q.close && !memory.answers[q.key] ? null : defaultSel(S.k, S.it)) : sel;
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
    else if (k === "PageDown" && S.predict) advance(1);  // a presenter's remote: reveal, then step
    else if (k === "PageUp" && S.predict) advance(-1);
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
    // the question and its reveal head the right column, so the picture stays in view beside
    // them at 1280x720 (a full-width box pushed it below a projector's fold)
    app.appendChild(el("div", {class: "tp-main"},
      el("div", {class: "tp-left"}, picture()),
      el("div", {class: "tp-right"}, predictBox(), beams(), tabs())));
    writeHash();
    window.scrollTo(0, keepScroll);
    scrollSelectedIntoView();
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
  // ------------------------------------------------------------------ tabs
  var TABS = [["why", "Why this rule"], ["lineage", "Lineage"], ["test", "Local test"], ["rules", "Rule set"],
    ["predict", "Why this prediction"], ["stops", "Stops"], ["about", "About this page"]];
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
      add(panel, {why: whyPanel, lineage: lineagePanel, test: testPanel, rules: rulesPanel, predict: predictionPanel, stops: stopsPanel,
        about: aboutPanel}[S.tab]());
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
    var extra = redundantRunnerUp(s);
    if (extra) out.push(el("p", {class: "tp-runner-up-extra"}, extra));
    var buttons = el("div");
    if (s.chosen) add(buttons, el("button", {type: "button", class: "tp-show-chosen", onclick: function () { select({id: s.chosen.id}); }}, "show the chosen rule"));
    if (s.runner_up) add(buttons, " ", el("button", {type: "button", class: "tp-show-runner-up", onclick: function () { select({id: s.runner_up.id}); }}, "show the runner-up"));
    out.push(buttons);
    return out;
  }

  function lineagePanel() {
    var rows = D.explain.searches[S.k].lineage;
    if (!rows.length) return el("p", null, "This search recorded no lineage (no rule, or a trace written before lineages were recorded).");
    return [el("p", null, "The lineage of the returned rule: the chain of candidates it grew from, from the empty rule (every row), one condition per step. For each step: the iteration that grew it, its rank there by r, and the best other candidate of that main beam. A step that was behind is one the beam kept anyway (diverse patience): its growths won later. Click a step to go to its iteration."),
      el("div", {class: "tp-scroll"}, table("tp-lineage-table",
        ["step", el("th", {class: "tp-cond"}, "added"), "|S|", "r", "iteration", "rank", el("th", {class: "tp-cond"}, "best other candidate"), el("th", {class: "tp-cond"}, "against it"), "rejected by the test"],
        rows.map(function (r) {
          var go = function () { if (r.iteration !== null) show(S.k, r.iteration, {id: r.id}); else select({id: r.id}); };
          return el("tr", {class: "tp-row", tabindex: 0, onclick: go, onkeydown: function (e) { if (e.key === "Enter") go(); }},
            el("td", null, r.depth), el("td", {class: "tp-cond"}, r.added || "(the empty rule)"), el("td", null, num(r.coverage)),
            el("td", null, num(r.r)), el("td", null, r.iteration === null ? "\u2013" : r.iteration + 1),
            el("td", null, r.rank === null ? (r.iteration === null ? "\u2013" : "aux only") : r.rank + " of " + r.beam_size),
            el("td", {class: "tp-cond"}, r.loser_conditions || "\u2013"), el("td", {class: "tp-cond"}, marginWords(r.margin)), el("td", null, num(r.n_rejected)));
        })))];
  }

  function marginWords(m) {
    if (m === null || m === undefined) return "\u2013";
    var d = num(Math.abs(m), 3);
    return m > 0 ? "ahead by " + d + " in r" : m < 0 ? "behind by " + d + " in r (kept anyway)" : "tied in r";
  }
  function redundantRunnerUp(s) {
    // the runner-up is the chosen rule plus conditions: say whether they change any row
    var c = s.chosen, r = s.runner_up;
    if (!c || !r || !c.literals || !r.literals || r.literals.length <= c.literals.length) return null;
    var key = function (l) { return l.join(","); }, have = c.literals.map(key);
    if (!have.every(function (k) { return r.literals.map(key).indexOf(k) >= 0; })) return null;
    var more = (r.conditions || []).filter(function (t) { return (c.conditions || []).indexOf(t) < 0; }).join(" AND ");
    if (r.coverage === c.coverage) return "The runner-up is the chosen rule plus \u201c" + more + "\u201d, which removes no row (both cover " +
      num(c.coverage) + "): the extra condition only adds model bits, so its r is lower. It is redundant, not a rival.";
    return "The runner-up is the chosen rule narrowed by \u201c" + more + "\u201d (" + num(r.coverage) + " of its " + num(c.coverage) +
      " rows): the rows it drops were worth keeping, since the wider rule has the higher r.";
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
    if ((nMain === 0 && i.n_rejected_by_local_test > 0) || (nAux === 0 && i.n_aux_rejected_by_local_test > 0)) {
      out.push(el("p", {class: "tp-none-recorded"}, "Why none of the " + num(nMain === 0 ? i.n_rejected_by_local_test : i.n_aux_rejected_by_local_test) +
        " rejected growths is listed: the trace keeps a rejected growth only when it would otherwise have been its base's proposal (the best of its patience bucket), " +
        "and here every such growth passed the test. The rows below are growths that passed, with both sides."));
    }
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

