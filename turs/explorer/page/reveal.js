/* Predict, then reveal: the questions of a step, the answers kept in the browser, and the reveal
   that shows the pick beside the winner with r worked out from their numbers. */
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
  //: two candidates whose r differ by less than this share of the larger are too close to call
  var CLOSE_CALL = 0.005;
  function rankByR(beam) {  // indices, best r first; ties keep the recorded order (the search's tie rule)
    return beam.map(function (_, i) { return i; }).sort(function (a, b) { return (score(beam[b].r) - score(beam[a].r)) || (a - b); });
  }
  function closeCall(beam) {
    if (beam.length < 2) return null;
    var o = rankByR(beam), a = beam[o[0]].r, b = beam[o[1]].r;
    if (a === null || b === null || a === undefined || b === undefined) return null;
    return Math.abs(a - b) < CLOSE_CALL * Math.max(Math.abs(a), Math.abs(b)) ? {first: o[0], second: o[1]} : null;
  }
  function winnerIndex(k, it) { var beam = list(k, it, "main_beam"); return beam.length ? rankByR(beam)[0] : null; }
  function candQuestion(k, it) {
    var beam = list(k, it, "main_beam");
    return beam.length >= 2 ? {key: "c:" + k + ":" + it, best: winnerIndex(k, it), close: closeCall(beam)} : null;
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
    if (q && !q.close && !memory.answers[q.key]) return {kind: "cand", q: q};
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
  function revealWithoutGuess(key) {  // a presenter's PageDown: show the answer, count nothing
    memory.answers[key] = {right: null, picked: null, revealed: true};
    var w = key.charAt(0) === "c" ? winnerIndex(S.k, S.it) : null;
    if (w !== null) { S.sel = {which: "main", i: w}; follow(selected()); }  // the winner on the picture
    store.save();
    render();
  }
  function advance(d) {
    // PageDown / PageUp in predict mode (a presenter's remote): reveal the open question, else step
    if (d > 0) { var p = pending(); if (p) { revealWithoutGuess(p.q.key); return; } }
    step(d);
  }

  function predictBox() {
    if (!S.predict) return null;
    var p = pending(), box = el("div", {class: "tp-predict", role: "region", "aria-label": "predict, then reveal"});
    var q = candQuestion(S.k, S.it), beam = list(S.k, S.it, "main_beam");
    if (q && q.close && !(p && p.kind === "cand")) {
      add(box, el("div", {class: "tp-q tp-close-call"}, "Too close to call: no prediction at this step."),
        el("div", null, "The top two candidates, #" + (q.close.first + 1) + " and #" + (q.close.second + 1) + ", differ in r by less than 0.5 % (" +
          num(beam[q.close.first].r, 4) + " against " + num(beam[q.close.second].r, 4) + "): the search keeps the first, but the data hardly prefer it. " +
          "Their numbers:"),
        compareTable([["#" + (q.close.first + 1) + " (kept)", beam[q.close.first]], ["#" + (q.close.second + 1), beam[q.close.second]]], !p));
    }
    if (!p) {
      var t = testQuestion(S.k, S.it);
      if (q && !q.close) add(box, el("div", null, answerText(memory.answers[q.key], "Which candidate wins: ")), candReveal(q, memory.answers[q.key]));
      if (t) add(box, el("div", null, answerText(memory.answers[t.key], "Local test: ")), testReveal(t));
      if (!q && !t) add(box, el("div", null, "No question at this step (fewer than two candidates and no recorded local test). Step on with \u2192 or PageDown."));
      return box;
    }
    if (q && !q.close && memory.answers[q.key]) add(box, el("div", null, answerText(memory.answers[q.key], "Which candidate wins: ")), candReveal(q, memory.answers[q.key]));
    if (p.kind === "cand") {
      var sel = S.sel && S.sel.which === "main" ? S.sel.i : null;
      add(box, el("div", {class: "tp-q"}, "Which candidate of the main beam wins this iteration (the best r, Eq. 3.21)?"),
        el("div", null, "Select rows of the main beam to see them on the picture, then lock in your pick (PageDown reveals without a guess). r, R and the MDL columns are hidden until then."),
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
    if (a.revealed) return el("span", null, prefix, el("span", {class: "tp-revealed"}, "revealed without a guess"));
    return el("span", null, prefix, el("span", {class: a.right ? "tp-right-answer" : "tp-wrong-answer"}, a.right ? "right" : "not this time"),
      typeof a.picked === "number" ? " (you picked #" + (a.picked + 1) + ")" : " (you said it " + (a.picked === "pass" ? "passes" : "fails") + ")");
  }

  // ------------------------------------------------------------------ the reveal: numbers side by side
  function rWorked(c) {
    // r (Eq. 3.21) from the candidate's own numbers: bits saved per row it newly covers
    var before = search(S.k).mdl_before;
    if (c.mdl_after === null || c.mdl_after === undefined || !c.coverage_uncovered) return "r = " + num(c.r, 4);
    return "(" + bits(before) + " \u2212 " + bits(c.mdl_after) + ") / " + num(c.coverage_uncovered) + " = " + num(c.r, 4);
  }
  function testSides(b) {
    if (!b) return "\u2013";
    return bits(b.bits_without_split) + " bits without the split " + (b.bits_without_split > b.bits_with_split ? ">" : "\u2264") + " " +
      bits(b.bits_with_split) + " with it: " + (b.passed ? "passes" : "fails");
  }
  function compareTable(cols, withTest) {  // cols: [[heading, candidate], ...]; withTest: the local test's row too
    var before = search(S.k).mdl_before;
    var rows = [
      ["rule", function (c) { return conds(c); }],
      ["L(D, M) before it, bits", function () { return bits(before); }],
      ["L(D, M + S) with it, bits", function (c) { return bits(c.mdl_after); }],
      ["rows it newly covers, |S \u2216 M|", function (c) { return num(c.coverage_uncovered); }],
      ["r = (before \u2212 with it) / newly covered", function (c) { return rWorked(c); }],
      ["local test (Eq. 3.22)", function (c) { return testSides(c.local_test_bits); }]].slice(0, withTest ? 6 : 5);
    return table("tp-compare", [el("th", {class: "tp-cond"}, "")].concat(cols.map(function (h) { return el("th", {class: "tp-cond"}, h[0]); })),
      rows.map(function (r) {
        return el("tr", null, el("td", {class: "tp-cond"}, r[0]), cols.map(function (h) { return el("td", {class: "tp-cond"}, r[1](h[1])); }));
      }));
  }
  function candReveal(q, a) {
    var beam = list(S.k, S.it, "main_beam"), w = q.best, o = rankByR(beam);
    var other = a && typeof a.picked === "number" && a.picked !== w ? a.picked : o[1];
    var words = "The winner of this iteration is #" + (w + 1) + ", marked \u2714 in the table (\u2605 marks the rule the whole search returned). ";
    words += other === a.picked ? "Your pick, #" + (other + 1) + ", beside it:" : (a.revealed ? "" : "You picked it. ") + "Beside it the next best, #" + (other + 1) + ":";
    return el("div", {class: "tp-reveal"}, el("div", null, words),
      compareTable([[other === a.picked ? "your pick #" + (other + 1) : "next best #" + (other + 1), beam[other]], ["the winner #" + (w + 1), beam[w]]],
        !pending()));  // the test's sides wait while the local-test question is open
  }
  function testReveal(t) {
    var b = t.cand.local_test_bits;
    var inBeam = list(S.k, S.it, "main_beam").some(function (c) { return c.id === t.cand.id; });
    return el("div", {class: "tp-reveal tp-test-reveal"}, "Both sides for " + conds(t.cand) + ": " + testSides(b) +
      ". A growth passes when sending the parent's labels without the split costs more than with it (both children and L_split). " +
      (inBeam && b && b.passed ? "It is in the main beam above: the test comes first, and the beam only keeps growths that pass it." :
        inBeam ? "It is in the main beam all the same: this fit let growths that fail the test in (local_test_fallback)." :
        "It is in no main beam: a growth that fails the test is dropped before the beam ranks by r (the Local test tab lists them)."));
  }

  // ------------------------------------------------------------------ lineage, in words
  function lineageNote(k, it) {
    // when the returned rule grew from a candidate of this iteration that did not win it
    var lin = search(k).lineage || [], main = list(k, it, "main_beam"), aux = list(k, it, "aux_beam"), w = winnerIndex(k, it);
    var mi = -1, ai = -1;
    main.forEach(function (c, i) { if (lin.indexOf(c.id) >= 0) mi = i; });
    aux.forEach(function (c, i) { if (lin.indexOf(c.id) >= 0 && main.every(function (m) { return m.id !== c.id; })) ai = i; });
    if (mi >= 0 && mi === w) return null;
    var ch = search(k).chosen;
    if (!ch) return null;
    if (mi >= 0) {
      if (ch.id === main[mi].id) return null;
      return "The returned rule (\u2605) grows from #" + (mi + 1) + " of this main beam, not from its winner #" + (w + 1) +
        ": the beam keeps its other candidates too (diverse patience), and a growth of #" + (mi + 1) + " scored a higher r later.";
    }
    if (ai >= 0) return "The returned rule (\u2605) grows from #" + (ai + 1) + " of the auxiliary beam, not from the main beam: the auxiliary beam " +
      "keeps candidates ranked by R (Eq. 3.24) on the rows no rule covers yet, and one of their growths scored the best r later.";
    return null;
  }
