/* The beam tables: ordered as their captions say, sortable by any number, every candidate's
   number kept (#, from 1, as in links), and r worked out for the selected row. */
  var MARKS = "\u2714 this iteration's winner (best r) \u00b7 \u2605 the rule the search returned \u00b7 " +
    "\u25C6 on its lineage: the candidates it grew from, one condition at a time, from the empty rule";
  var BEAM_COLS = {  // key: [heading, what it is, value of a candidate]
    cov: ["|S|", "training rows covered", function (c) { return c.coverage; }],
    new: ["new", "|S \u2216 M|: covered rows no rule so far covers", function (c) { return c.coverage_uncovered; }],
    r: ["r", "bits saved per newly covered row (Eq. 3.21)", function (c) { return c.r; }],
    R: ["R", "complementary score on the rows no rule covers (Eq. 3.24)", function (c) { return c.R; }],
    kept: ["kept", "share of its parent's rows the growth keeps; the beam keeps growths of different shares (diverse patience, Eq. 3.23)", keptShare],
    mdl: ["MDL", "L(D, M + S) in bits after adding it (Eq. 3.20)", function (c) { return c.mdl_after; }]};
  function keptShare(c) {
    var p = byId(S.k)[c.parent_id];
    return p && p.coverage ? c.coverage / p.coverage : null;
  }
  function beamOrder(which, cands, hide) {
    // the order the caption names: by the beam's score unless the student sorted, recorded order while scores are hidden
    var idx = cands.map(function (_, i) { return i; }), s = S.beamSort[which];
    var key = s ? s.key : (which === "main" ? "r" : "R"), dir = s ? s.dir : -1;
    if (hide && (key === "r" || key === "R" || key === "mdl")) return {idx: idx, text: "in the order the beam recorded them (by coverage)"};
    if (key === "#") return {idx: dir > 0 ? idx : idx.reverse(), text: dir > 0 ? "by #, as the beam recorded them" : "by #, last first"};
    var f = BEAM_COLS[key][2];
    idx.sort(function (a, b) {
      var x = f(cands[a]), y = f(cands[b]);
      x = x === null || x === undefined ? -Infinity : x; y = y === null || y === undefined ? -Infinity : y;
      return ((x < y ? -1 : x > y ? 1 : 0) * dir) || (a - b);
    });
    return {idx: idx, text: "sorted by " + BEAM_COLS[key][0] + (dir < 0 ? ", highest first" : ", lowest first")};
  }
  function beams() {
    var p = pending(), hide = p !== null && p.kind === "cand", hideTest = p !== null;
    var wrap = el("div", {class: "tp-tables"});
    add(wrap, el("div", {class: "tp-note tp-marks"}, hide ? "Predict mode: scores and marks hidden until you answer." : MARKS));
    var note = hide ? null : lineageNote(S.k, S.it);
    if (note) add(wrap, el("div", {class: "tp-lineage-note"}, note));
    add(wrap, beamTable("main", "Main beam", hide, "", hideTest));
    add(wrap, rLine(hide));
    add(wrap, beamTable("aux", "Auxiliary beam", hide, " tp-short", hideTest));
    add(wrap, el("div", {class: "tp-note tp-columns"}, "new: covered rows no rule covers yet \u00b7 kept: the share of its parent's rows it keeps " +
      "(the beam keeps growths of different shares: diverse patience, Eq. 3.23) \u00b7 R: the auxiliary beam's score, on the rows no rule covers " +
      "(Eq. 3.24) \u00b7 test: the local test (Eq. 3.22) \u00b7 MDL: L(D, M + S) in bits with it \u00b7 classes: its rows of each class, " +
      D.classes.join(" / ") + "."));
    return wrap;
  }
  function rLine(hide) {
    var c = selected(), line = el("div", {class: "tp-r-line"});
    if (!c || hide) { add(line, "r = (L(D, M) \u2212 L(D, M + S)) / |S \u2216 M|: the bits a candidate saves per row it newly covers (Eq. 3.21)."); return line; }
    var name = S.sel && (S.sel.which === "main" || S.sel.which === "aux") ? "#" + (S.sel.i + 1) + (S.sel.which === "aux" ? " (auxiliary)" : "") : "the selected rule";
    add(line, "r of " + name + " = (L before \u2212 L with it) / rows newly covered = " + rWorked(c) + " bits per row.");
    return line;
  }
  function beamTable(which, caption, hide, extra, hideTest) {
    var cands = list(S.k, S.it, LISTS[which]), k = S.k, order = beamOrder(which, cands, hide), w = winnerIndex(k, S.it);
    // the title that says how the table is ordered sits above its scroll box, so scrolling the
    // selected row into view never hides it
    var title = caption + ": " + plural(cands.length, "candidate") + ", " + order.text + (cands.length ? "; click a heading to sort" : "");
    var t = el("table", {class: "tp-table tp-beam tp-beam-" + which, "data-order": order.idx.join(","), "aria-label": title});
    function sortHead(key, label, meaning, cls) {
      var s = S.beamSort[which], on = s ? s.key === key : key === (which === "main" ? "r" : "R") && !hide;
      var dir = s ? s.dir : -1;
      return el("th", {class: "tp-sortable" + (cls ? " " + cls : ""), tabindex: 0, title: meaning + "; click to sort", "data-key": key,
        onclick: function () { var cur = S.beamSort[which]; S.beamSort[which] = {key: key, dir: cur && cur.key === key ? -cur.dir : (key === "#" ? 1 : -1)}; render(); },
        onkeydown: function (e) { if (e.key === "Enter") e.target.click(); }},
        label + (on ? (dir > 0 ? " \u25B2" : " \u25BC") : ""));
    }
    var heads = [sortHead("#", "#", "the candidate's number in the beam as recorded (the candidate= of a link)"),
      el("th", {title: MARKS}, ""), el("th", {class: "tp-cond"}, "conditions")];
    ["cov", "new", "r", "R", "kept", "mdl"].forEach(function (key) { heads.push(sortHead(key, BEAM_COLS[key][0], BEAM_COLS[key][1])); });
    heads.push(el("th", {title: "the main beam's local test (Eq. 3.22)"}, "test"), el("th", {title: "class counts in S"}, "classes"));
    add(t, el("thead", null, el("tr", null, heads)));
    var body = el("tbody");
    order.idx.forEach(function (i) {
      var c = cands[i], isSel = S.sel && S.sel.which === which && S.sel.i === i, chosen = !hide && c.id === chosenId(k);
      var win = !hide && which === "main" && i === w;
      var mark = hide ? "" : (win ? "\u2714" : "") + (chosen ? "\u2605" : "") + (onLineage(k, c) ? "\u25C6" : "");
      var kept = keptShare(c);
      var tr = el("tr", {class: "tp-row" + (chosen ? " tp-chosen" : "") + (win ? " tp-winner" : "") + (isSel ? " tp-selected" : ""), tabindex: 0,
        "data-id": c.id, "data-index": i, "aria-selected": isSel ? "true" : "false",
        onclick: function () { select({which: which, i: i}); },
        onkeydown: function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select({which: which, i: i}); } }},
        el("td", null, i + 1), el("td", {class: "tp-mark"}, mark), el("td", {class: "tp-cond"}, conds(c)), el("td", null, num(c.coverage)),
        el("td", null, num(c.coverage_uncovered)),
        el("td", {class: hide ? "tp-hidden-num" : null}, hide ? "?" : num(c.r)),
        el("td", {class: hide ? "tp-hidden-num" : null}, hide ? "?" : num(c.R)),
        el("td", null, kept === null ? "\u2013" : Math.round(100 * kept) + " %"),
        el("td", {class: hide ? "tp-hidden-num" : null}, hide ? "?" : bits(c.mdl_after)),
        el("td", {class: hideTest ? "tp-hidden-num" : (c.local_test ? "tp-pass" : "tp-fail")}, hideTest ? "?" : (c.local_test ? "pass" : "fail")),
        el("td", null, (c.class_counts || []).join("/")));
      add(body, tr);
    });
    add(t, body);
    return el("div", {class: "tp-beam-box"}, el("div", {class: "tp-caption tp-caption-" + which, "aria-hidden": "true"}, title),
      el("div", {class: "tp-scroll" + extra}, t));
  }
  function scrollSelectedIntoView() {
    // the selected row inside its table's scroll box (never the window): deep links and steps too
    var rows = app.querySelectorAll(".tp-scroll tr[aria-selected='true']");
    for (var n = 0; n < rows.length; n++) {
      var tr = rows[n], box = tr.closest(".tp-scroll"), head = box.querySelector("thead");
      var b = box.getBoundingClientRect(), r = tr.getBoundingClientRect(), top = b.top + (head ? head.offsetHeight : 0);
      if (r.top < top) box.scrollTop -= top - r.top;
      else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
    }
  }
