/* The search page's model: the recording, the picture's regions and covers, and the small DOM
   helpers (el, svg, add) that insert every text from the data as text, never as markup.
   Concatenated with player.js inside one function by turs.explorer.page (one script, one hash). */
  var D, T, P, app;
  var COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];
  var CAND = "#CC79A7", RULE = "#555555";
  var SVGNS = "http://www.w3.org/2000/svg";
  var S = {k: 0, it: 0, sel: null, ax: null, pinned: false, point: null, predict: false, tab: "why", sort: {key: null, dir: 1},
    beamSort: {main: null, aux: null}};
  var steps = [], firstStep = [], byIdCache = {}, store = null, memory = {score: {right: 0, asked: 0}, answers: {}};

  // ------------------------------------------------------------------ small helpers
  function el(tag, attrs) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function setAttrs(e, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
      else if (k === "class") e.setAttribute("class", v);
      else e.setAttribute(k, String(v));
    });
  }
  function add(e) {  // add(e, child, child, ...): nodes as they are, anything else as text
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) c.forEach(function (x) { add(e, x); });
      else e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function num(v, digits) {
    if (v === null || v === undefined || (typeof v === "number" && !isFinite(v))) return "\u2013";
    if (typeof v !== "number") return String(v);
    if (Math.abs(v) >= 1e15) return Number(v.toPrecision(digits || 4)).toString();  // 1.7e+308, not 309 digits
    if (Number.isInteger(v)) return v.toLocaleString("en");
    return Number(v.toPrecision(digits || 4)).toString();
  }
  function bits(v) { return (v === null || v === undefined) ? "\u2013" : v.toFixed(2).replace(/^-0\.00$/, "0.00"); }
  function signed(v) {  // rounded first, so that a tiny negative reads 0.00, not -0.00
    if (v === null || v === undefined) return "\u2013";
    var t = v.toFixed(2);
    return /^-0\.00$/.test(t) || t === "0.00" ? "0.00" : (v > 0 ? "+" : "") + t;
  }
  function score(v) { return (v === null || v === undefined) ? -Infinity : v; }
  function conds(c) {
    if (!c) return "(none)";
    return (c.conditions && c.conditions.length) ? c.conditions.join(" AND ") : "(the empty rule: every row)";
  }
  function plural(n, word, many) { return num(n) + " " + (n === 1 ? word : many || (/(s|sh|ch|x)$/.test(word) ? word + "es" : word + "s")); }

  // ------------------------------------------------------------------ the recording
  function search(k) { return T.searches[k]; }
  function iters(k) { return search(k).iterations; }
  function iteration(k, it) { var its = iters(k); return it < its.length ? its[it] : null; }
  function list(k, it, key) { var i = iteration(k, it); return (i && i[key]) || []; }
  var LISTS = {main: "main_beam", aux: "aux_beam", rejected: "rejected_by_local_test",
    aux_rejected: "aux_rejected_by_local_test"};
  function byId(k) {
    if (byIdCache[k]) return byIdCache[k];
    var s = search(k), out = {};
    if (s.empty_rule) out[s.empty_rule.id] = s.empty_rule;
    s.iterations.forEach(function (i) {
      Object.keys(LISTS).forEach(function (w) { (i[LISTS[w]] || []).forEach(function (c) { if (!(c.id in out)) out[c.id] = c; }); });
    });
    ["chosen", "runner_up"].forEach(function (r) { if (s[r] && s[r].id && !(s[r].id in out)) out[s[r].id] = s[r]; });
    byIdCache[k] = out;
    return out;
  }
  function bestIndex(cands, key) {
    var best = null, bv = -Infinity;
    cands.forEach(function (c, i) { var v = score(c[key]); if (best === null || v > bv) { best = i; bv = v; } });
    return best;
  }
  function defaultSel(k, it) {
    if (list(k, it, "main_beam").length) return {which: "main", i: bestIndex(list(k, it, "main_beam"), "r")};
    if (list(k, it, "aux_beam").length) return {which: "aux", i: bestIndex(list(k, it, "aux_beam"), "R")};
    return null;
  }
  function rulesBefore(k) {
    var out = (D.given || []).map(function (g) { return g; });
    for (var j = 0; j < k; j++) if (search(j).accepted && search(j).chosen) out.push(search(j).chosen);
    return out;
  }
  function selected() {
    var sel = S.sel;
    if (!sel) return null;
    if (sel.id) return byId(S.k)[sel.id] || null;
    if (sel.which === "rule") return rulesBefore(S.k)[sel.i] || null;
    return list(S.k, S.it, LISTS[sel.which])[sel.i] || null;
  }
  function chosenId(k) { var c = search(k).chosen; return c ? c.id : null; }
  function onLineage(k, c) { return (search(k).lineage || []).indexOf(c.id) >= 0; }

  // ------------------------------------------------------------------ data and regions
  function colOf(j) { return D.encoded ? D.encoded[j].column : null; }
  function litsOn(lits, col) { return lits.filter(function (l) { return colOf(l[0]) === col; }); }
  function exactLits(c) { return c.exact_literals ? c.exact_literals.map(function (l) { return [l[0], l[1], l[2], true]; }) : (c.literals || []); }
  function litInterval(l) {
    if (l[3]) return [l[1] === null ? -Infinity : l[1], l[2] === null ? Infinity : l[2]];
    var cuts = T.cuts[l[0]], a = l[1], b = l[2];
    return [a > 0 ? cuts[a - 1] : -Infinity, b < cuts.length + 1 ? cuts[b - 1] : Infinity];
  }
  function binOf(cuts, v) {
    var lo = 0, hi = cuts.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (cuts[m] <= v) lo = m + 1; else hi = m; }
    return lo;
  }
  function encodedValue(row, j) {
    var e = D.encoded[j];
    if (e.column === null) return NaN;
    var v = P.values[e.column][row];
    if (v === null) return NaN;
    return e.level !== null ? (v === e.level ? 1 : 0) : v;
  }
  function covers(lits, row) {
    for (var n = 0; n < lits.length; n++) {
      var l = lits[n], v = encodedValue(row, l[0]);
      if (l[3]) { var iv = litInterval(l); if (!(v >= iv[0] && v < iv[1])) return false; }
      else { var b = binOf(T.cuts[l[0]], v); if (!(b >= l[1] && b < l[2])) return false; }
    }
    return true;
  }
  function spans(lits, col) {
    var c = D.columns[col], on = litsOn(lits, col), lo = c.range[0], hi = c.range[1];
    if (c.kind !== "categorical") {
      var low = -Infinity, high = Infinity;
      on.forEach(function (l) { var iv = litInterval(l); low = Math.max(low, iv[0]); high = Math.min(high, iv[1]); });
      return [[isFinite(low) ? Math.max(low, lo) : lo, isFinite(high) ? Math.min(high, hi) : hi]];
    }
    var keep = c.levels.map(function () { return true; });
    on.forEach(function (l) {
      var lev = D.encoded[l[0]].level, positive = l[3] ? l[1] !== null : l[1] >= 1;
      keep = keep.map(function (kp, i) { return positive ? kp && i === lev : kp && i !== lev; });
    });
    var runs = [], start = null;
    keep.forEach(function (kp, i) {
      if (kp && start === null) start = i;
      if (start !== null && (!kp || i === keep.length - 1)) { runs.push([start - 0.5, (kp ? i : i - 1) + 0.5]); start = null; }
    });
    return runs;
  }
  function candidateColumns(c) {
    var out = [];
    exactLits(c).forEach(function (l) { var col = colOf(l[0]); if (col !== null && out.indexOf(col) < 0) out.push(col); });
    return out;
  }
  function defaultAxes() {
    var n = D.columns.length, used = D.columns.map(function () { return 0; });
    rulesBefore(T.searches.length).forEach(function (r) { candidateColumns(r).forEach(function (c) { used[c] += 1; }); });
    var order = D.columns.map(function (_, i) { return i; });
    order.sort(function (a, b) {
      return (used[b] - used[a]) || ((D.columns[a].kind === "numeric" ? 0 : 1) - (D.columns[b].kind === "numeric" ? 0 : 1)) || (a - b);
    });
    if (n === 2) return [0, 1];  // two columns: the data's own order, fixed
    return n > 1 ? [order[0], order[1]] : [order[0], order[0]];
  }
  function axesHoldStill() { return S.pinned || D.columns.length === 2; }
  function follow(c) {
    // the picture follows the selected candidate (its columns on the axes), unless the axes hold still:
    // two-column data (always x = the first column, y = the second) or axes the user pinned
    if (!D.columns || !c || axesHoldStill()) return;
    var cols = candidateColumns(c);
    if (cols.length >= 2) S.ax = [cols[0], cols[1]];
    else if (cols.length === 1 && S.ax[0] !== cols[0] && S.ax[1] !== cols[0]) S.ax = [cols[0], S.ax[0] !== cols[0] ? S.ax[0] : S.ax[1]];
  }
  function jitter(col, row) {
    var h = Math.imul(col + 1, 0x9E3779B1) ^ Math.imul(row + 7, 0x85EBCA77);
    h ^= h >>> 15; h = Math.imul(h, 0x2C1B3C6D); h ^= h >>> 12; h = Math.imul(h, 0x297A2D39); h ^= h >>> 15;
    return ((h >>> 0) / 4294967296 * 2 - 1) * 0.32;
  }
  function position(col, row) {
    var c = D.columns[col], v = P.values[col][row];
    if (v === null) return NaN;
    if (c.kind === "categorical") return v + jitter(col, row);
    return c.gap ? v + c.gap * jitter(col, row) : v;
  }
