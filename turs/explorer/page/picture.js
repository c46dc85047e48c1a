/* The data picture: the training rows on two columns, the rules so far, every candidate of the
   beam faintly and the selected one bold; axes that hold still; export as SVG. */
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
    var two = D.columns.length === 2;
    add(wrap, el("div", {class: "tp-axes"}, el("label", null, "x: ", axisSelect(0)), el("label", null, "y: ", axisSelect(1)),
      el("div", {class: "tp-axes-row"},
        two ? el("span", {class: "tp-note tp-axes-fixed"}, "Two columns: the axes stay fixed.") :
          el("label", {class: "tp-toggle", title: "keep these axes when another candidate is selected"},
            el("input", {type: "checkbox", class: "tp-pin-axes", checked: S.pinned, onchange: function (e) { S.pinned = e.target.checked; render(); }}),
            "pin the axes"),
        el("button", {type: "button", class: "tp-export-svg", title: "save this picture as an SVG file for slides", onclick: exportSvg}, "save picture (SVG)"))));
    add(wrap, plot());
    var legend = el("div", {class: "tp-legend"});
    D.classes.forEach(function (name, i) { add(legend, el("span", null, el("span", {class: "tp-swatch tp-sw-" + (i % 8)}), name)); });
    add(legend, el("span", null, "dashed grey: rules so far; thin purple: the beam's other candidates; bold purple: the selected one. Click a point: why it gets its prediction."));
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
    var span = hi - lo;
    if (!isFinite(span)) return [lo, hi];  // wider than the largest double: the ends only
    if (!(span > 0)) return [lo];
    var stepv = Math.pow(10, Math.floor(Math.log10(span / n))), err = span / n / stepv;
    stepv *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = []; for (var v = Math.ceil(lo / stepv) * stepv; v <= hi + 1e-9 * span; v += stepv) out.push(Number(v.toPrecision(10)));
    return out;
  }

  function plot() {
    var W = 440, H = 360, m = {l: 66, r: 10, t: 12, b: 44};
    var cx = S.ax[0], cy = S.ax[1], X = D.columns[cx], Y = D.columns[cy];
    function pad(r) {
      var d = (r[1] / 2 - r[0] / 2) || 0.5;  // half the span, finite for any finite range
      return [Math.max(-Number.MAX_VALUE, r[0] - 0.04 * d), Math.min(Number.MAX_VALUE, r[1] + 0.04 * d)];
    }
    var rx = pad(X.range), ry = pad(Y.range);
    // halves: a column spanning the whole double range (about ±1.8e308) has no finite width
    function frac(v, r) { return (v / 2 - r[0] / 2) / (r[1] / 2 - r[0] / 2); }
    function sx(v) { return m.l + Math.max(-0.05, Math.min(1.05, frac(v, rx))) * (W - m.l - m.r); }
    function sy(v) { return H - m.b - Math.max(-0.05, Math.min(1.05, frac(v, ry))) * (H - m.t - m.b); }
    var g = svg("svg", {class: "tp-plot", viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": "training rows on " + X.name + " and " + Y.name + " with the rules' regions"});
    // axes and ticks
    add(g, svg("rect", {x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, fill: "none", stroke: "#999"}));
    function axis(col, r, horizontal) {
      var c = D.columns[col], tk = c.kind === "categorical" ? c.levels.map(function (_, i) { return i; }) :
        isFinite(r[1] - r[0]) ? ticks(r[0], r[1], 5) : c.range.slice();  // wider than a double: the data's ends
      var every = Math.max(1, Math.ceil(tk.length / (horizontal ? 6 : 10)));
      var long = c.kind === "categorical" && c.levels.some(function (lv) { return String(lv).length > 5; });
      tk.forEach(function (v, i) {
        if (i % every) return;
        var label = c.kind === "categorical" ? c.levels[v] : num(v, 4);
        if (horizontal) {
          add(g, svg("line", {x1: sx(v), x2: sx(v), y1: H - m.b, y2: H - m.b + 5, stroke: "#555"}));
          if (long) {  // a long level name goes inside the plot, along its strip, whole
            add(g, svg("text", {x: sx(v) - 4, y: H - m.b - 6, transform: "rotate(-90 " + (sx(v) - 4) + " " + (H - m.b - 6) + ")",
              stroke: "#fff", "stroke-width": 4, "paint-order": "stroke", class: "tp-level"}, label));
          } else {  // a label that would pass the picture's edge is anchored at its tick's side
            var half = String(label).length * 4.5, anchor = sx(v) + half > W ? "end" : sx(v) - half < 0 ? "start" : "middle";
            add(g, svg("text", {x: sx(v), y: H - m.b + 20, "text-anchor": anchor}, label));
          }
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
    function short(name, n) { return name.length > n ? name.slice(0, n - 1) + "\u2026" : name; }  // the whole name is in the axis menu
    add(g, svg("text", {x: (W + m.l) / 2, y: H - 6, "text-anchor": "middle", class: "tp-xlabel"}, short(X.name, 40)));
    add(g, svg("text", {x: 14, y: (H - m.b + m.t) / 2, "text-anchor": "middle", class: "tp-ylabel",
      transform: "rotate(-90 14 " + (H - m.b + m.t) / 2 + ")"}, short(Y.name, 30)));
    // points
    var cand = selected(), lits = cand ? exactLits(cand) : null, pts = svg("g", {class: "tp-points"});
    var nCovered = 0, drawn = [];
    for (var row = 0; row < P.n_shown; row++) {
      var px = position(cx, row), py = position(cy, row);
      if (!isFinite(px) || !isFinite(py)) continue;
      drawn.push([row, sx(px), sy(py)]);
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
          add(g, svg("rect", {class: width === 1 ? "tp-beam-region" : null, x: x0, y: y0, width: Math.max(x1 - x0, 1), height: Math.max(y1 - y0, 1), fill: fill || "none",
            "fill-opacity": fill ? 0.08 : null, stroke: color, "stroke-width": width, "stroke-dasharray": dash}));
          if (label) add(g, svg("text", {x: x0 + 4, y: y0 + 16 + 16 * (labelRow % 4), class: "tp-box-label",
            stroke: "#fff", "stroke-width": 3, "paint-order": "stroke"}, label));
        });
      });
    }
    rulesBefore(S.k).forEach(function (r, i) { region(exactLits(r), RULE, 1.6, "6 4", "R" + (i + 1), null, i); });
    // every candidate of the main beam faintly, so the selected one is seen among its rivals
    var beam = list(S.k, S.it, "main_beam");
    beam.forEach(function (c) { if (c !== cand) region(exactLits(c), CAND, 1, "2 2", null, null); });
    if (cand) region(lits, CAND, 3.5, null, null, CAND);
    if (S.point !== null && S.point.row !== undefined) {
      var pr = S.point.row, qx = position(cx, pr), qy = position(cy, pr);
      if (isFinite(qx) && isFinite(qy)) add(g, svg("circle", {class: "tp-picked-point", cx: sx(qx), cy: sy(qy), r: 8, fill: "none", stroke: "#000", "stroke-width": 2.5}));
    }
    g.setAttribute("data-covered", String(nCovered));
    g.setAttribute("data-beam-regions", String(beam.length - (cand && beam.indexOf(cand) >= 0 ? 1 : 0)));
    g.addEventListener("click", function (e) {  // the nearest drawn row within 12 px of the click
      var rect = g.getBoundingClientRect(), k = W / rect.width;
      var x = (e.clientX - rect.left) * k, y = (e.clientY - rect.top) * k, best = null, bd = 144;
      drawn.forEach(function (d) { var dd = (d[1] - x) * (d[1] - x) + (d[2] - y) * (d[2] - y); if (dd < bd) { bd = dd; best = d[0]; } });
      if (best !== null) {
        S.point = {row: best}; S.tab = "predict"; render();
        var panel = app.querySelector(".tp-why-point");  // the steps, on screen
        if (panel && panel.scrollIntoView) panel.scrollIntoView({block: "nearest"});
      }
    });
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


  // ------------------------------------------------------------------ export for slides
  function exportSvg() {
    var node = app.querySelector("svg.tp-plot");
    if (!node) return;
    var copy = node.cloneNode(true);
    copy.setAttribute("xmlns", SVGNS);
    // a slide has no page around it: the file carries its own legend and says what it shows
    var vb = copy.getAttribute("viewBox").split(" ").map(Number), W = vb[2], y = vb[3] + 20, x = 12;
    (D.classes || []).forEach(function (name, i) {
      var label = String(name).length > 24 ? String(name).slice(0, 23) + "\u2026" : String(name), w = 24 + 8.5 * label.length;
      if (x + w > W && x > 12) { x = 12; y += 20; }
      add(copy, svg("circle", {cx: x + 5, cy: y - 5, r: 5, fill: COLORS[i % 8], stroke: "#333", "stroke-width": 0.6}),
        svg("text", {x: x + 14, y: y, class: "tp-export-legend"}, label));
      x += w;
    });
    var c = selected(), what = "search " + (S.k + 1) + ", iteration " + (S.it + 1) + (c ? ": " + conds(c) : "");
    y += 20;
    add(copy, svg("text", {x: 12, y: y, class: "tp-export-caption", "font-size": 13},
      what.length > 64 ? what.slice(0, 63) + "\u2026" : what));
    y += 18;
    ["dashed grey: rules so far; bold purple: the selected candidate;", "thin purple: the beam's other candidates"].forEach(function (t, i) {
      add(copy, svg("text", {x: 12, y: y + 18 * i, class: "tp-export-caption", "font-size": 13}, t));
    });
    var h = y + 26;
    copy.setAttribute("viewBox", vb[0] + " " + vb[1] + " " + W + " " + h);
    copy.setAttribute("width", String(2 * W)); copy.setAttribute("height", String(Math.round(2 * h)));
    // the page's style rules do not travel with the file: the text's font goes in as an element
    var st = document.createElementNS(SVGNS, "style");
    st.textContent = "text { font-size: 15px; font-family: 'DejaVu Sans', Arial, sans-serif; fill: #111; } " +
      "text.tp-export-caption { font-size: 13px; }";
    copy.insertBefore(st, copy.firstChild);
    var text = new XMLSerializer().serializeToString(copy);
    var a = el("a", {href: URL.createObjectURL(new Blob([text], {type: "image/svg+xml"})), class: "tp-svg-link",
      download: "turs-search-" + (S.k + 1) + "-" + (S.it + 1) + ".svg"});
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
  }
