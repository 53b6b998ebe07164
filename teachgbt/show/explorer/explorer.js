/* teachgbt explorer: step through the rounds of a boosted model, click its trees.
 *
 * Plain JavaScript, no library, no network. The data (#tg-data) comes from
 * teachgbt/show/explorer/data.py; every number with a formula behind it is computed there,
 * the running margins too (in the model's own precision). Here we only apply the link
 * (sigmoid or softmax), count the rows a node's chart shows, lay the tree out and draw.
 *
 * window.teachgbtExplorer exposes the pure helpers (formatNumber, formatValue, tidyLayout,
 * pathTo) and the running app, so that the tests can check them against Python.
 */
(function () {
  "use strict";

  // ------------------------------------------------------------ pure helpers
  // teachgbt.core.format.format_number: at most p decimals, trailing zeros dropped, never
  // -0; exact ties round half to even, as Python's f"{x:.{p}f}" does
  function formatNumber(x, p) {
    if (p === undefined) p = 3;
    if (x === null || x === undefined || Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    var s = x.toFixed(p);
    var exact = Math.abs(x).toFixed(Math.min(100, p + 30));
    var dot = exact.indexOf(".");
    var rest = exact.slice(dot + 1 + p);
    if (/^50*$/.test(rest)) {  // an exact tie: toFixed rounds away from zero; Python to even
      var down = exact.slice(0, dot + 1 + p).replace(/\.$/, "");
      var last = down.replace(".", "").slice(-1);
      if (parseInt(last, 10) % 2 === 0) s = (x < 0 ? "-" : "") + down;
    }
    if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s === "-0" || s === "" ? "0" : s;
  }

  // teachgbt.core.format.format_threshold for a value: the shortest decimal that reads back
  // as the same float32 (f32) or float64, plain between 1e-4 and 1e9, else in e-notation
  function formatValue(x, f32) {
    if (x === null || x === undefined || Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";  // as numpy prints a float32 -0
    var digits = 17, p;
    for (p = 1; p <= 17; p++) {
      var back = parseFloat(x.toPrecision(p));
      if (f32 ? Math.fround(back) === Math.fround(x) : back === x) { digits = p; break; }
    }
    var sci = x.toExponential(digits - 1);  // "d.ddde±x", the digits that read back
    var m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(sci);
    var sign = m[1], ds = (m[2] + (m[3] || "")).replace(/0+$/, "") || "0", e = parseInt(m[4], 10);
    var a = Math.abs(x);
    if (a >= 1e-4 && a < 1e9) {
      var point = e + 1;  // digits before the decimal point
      var body = point <= 0 ? "0." + "0".repeat(-point) + ds
        : ds.length <= point ? ds + "0".repeat(point - ds.length)
        : ds.slice(0, point) + "." + ds.slice(point);
      return sign + body;
    }
    // numpy's format_float_scientific(unique=True, trim="-"): 1e+300, 1.5e-07
    var mant = ds.length > 1 ? ds[0] + "." + ds.slice(1) : ds;
    var ex = Math.abs(e);
    return sign + mant + "e" + (e < 0 ? "-" : "+") + (ex < 10 ? "0" + ex : String(ex));
  }

  function sigmoid(m) { return 1 / (1 + Math.exp(-m)); }

  function softmax(ms) {
    var mx = Math.max.apply(null, ms), e = ms.map(function (m) { return Math.exp(m - mx); });
    var s = e.reduce(function (a, b) { return a + b; }, 0);
    return e.map(function (v) { return v / s; });
  }

  // A row's value of feature fx as the rules read it (teachgbt.core.format.format_value):
  // missing, the category a code names (a set split tests codes: categories[c] is code
  // c's name), or the number as a threshold reads (f32: as a float32; default true).
  function valueText(d, fx, v, f32) {
    if (v === null) return "missing";
    var names = d.categories && d.categories[fx];
    if (!names) return formatValue(v, f32 !== false);
    if (v === Math.floor(v) && v >= 0 && v < names.length) return names[v];
    return v === -1 ? "unseen" : "unseen (" + formatNumber(v, 6) + ")";  // -1: a name never seen
  }

  // Node ids from the root to `node`, root first.
  function pathTo(tree, node) {
    var out = [node];
    while (tree.parent[out[0]] >= 0) out.unshift(tree.parent[out[0]]);
    return out;
  }

  function isLeaf(tree, i) { return tree.feature[i] < 0; }
  function isSet(tree, i) { return !!(tree.sets && tree.sets[String(i)]); }
  function hasSets(tree) { return !!(tree.sets && Object.keys(tree.sets).length); }

  // A tidy top-down layout of the open part of a tree with boxes of any size: subtrees
  // side by side as close as their widest box at every depth allows (the Reingold–Tilford
  // idea), a parent centred over its two children, each row as tall as its tallest box.
  // size(i) -> [w, h]. Returns {x, top, w, h (by node id), rowTop, rowH, minX, width, height}.
  function tidyLayout(tree, collapsed, size, gapX, gapY) {
    var rel = {}, w = {}, hh = {}, depth = {}, rowH = [];
    function contour(i, d) {
      var sz = size(i);
      w[i] = sz[0]; hh[i] = sz[1]; depth[i] = d;
      rowH[d] = Math.max(rowH[d] || 0, sz[1]);
      var own = [-sz[0] / 2, sz[0] / 2];
      if (isLeaf(tree, i) || collapsed.has(i)) return [own];
      var cl = contour(tree.left[i], d + 1), cr = contour(tree.right[i], d + 1), sep = 0;
      for (var k = 0; k < Math.min(cl.length, cr.length); k++) sep = Math.max(sep, cl[k][1] - cr[k][0] + gapX);
      rel[tree.left[i]] = -sep / 2; rel[tree.right[i]] = sep / 2;
      var out = [own];
      for (k = 0; k < Math.max(cl.length, cr.length); k++) {
        var a = cl[k] ? [cl[k][0] - sep / 2, cl[k][1] - sep / 2] : null;
        var b = cr[k] ? [cr[k][0] + sep / 2, cr[k][1] + sep / 2] : null;
        out.push(a && b ? [Math.min(a[0], b[0]), Math.max(a[1], b[1])] : (a || b));
      }
      return out;
    }
    var c = contour(0, 0), x = { 0: 0 }, order = [0];
    for (var q = 0; q < order.length; q++) {
      var i = order[q];
      if (isLeaf(tree, i) || collapsed.has(i)) continue;
      [tree.left[i], tree.right[i]].forEach(function (j) { x[j] = x[i] + rel[j]; order.push(j); });
    }
    var rowTop = [0];
    for (var d = 1; d < rowH.length; d++) rowTop[d] = rowTop[d - 1] + rowH[d - 1] + gapY;
    var top = {};
    order.forEach(function (j) { top[j] = rowTop[depth[j]]; });
    var minX = Math.min.apply(null, c.map(function (p) { return p[0]; }));
    var maxX = Math.max.apply(null, c.map(function (p) { return p[1]; }));
    return { x: x, top: top, w: w, h: hh, depth: depth, ids: order, rowTop: rowTop, rowH: rowH,
             minX: minX, width: maxX - minX, height: rowTop[rowTop.length - 1] + rowH[rowH.length - 1] };
  }

  var helpers = { formatNumber: formatNumber, formatValue: formatValue, valueText: valueText,
                  tidyLayout: tidyLayout, pathTo: pathTo, sigmoid: sigmoid, softmax: softmax };
  window.teachgbtExplorer = helpers;

  // ------------------------------------------------------------ loading
  function bytesOf(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }

  // leaf ids come as base64 of little-endian uint8/16/32, margins as float64: typed arrays
  function unpack(data) {
    data.trees.forEach(function (t, i) { t.index = i; });
    if (!data.rows) return data;
    data.rows.leaf = data.rows.leaf.map(function (p) {
      var bytes = bytesOf(p.b64);
      if (p.bytes === 1) return bytes;
      var view = new DataView(bytes.buffer), n = bytes.length / p.bytes;
      var out = p.bytes === 2 ? new Uint16Array(n) : new Uint32Array(n);
      for (var j = 0; j < n; j++) out[j] = p.bytes === 2 ? view.getUint16(2 * j, true) : view.getUint32(4 * j, true);
      return out;
    });
    var p = data.rows.margins, mb = bytesOf(p.b64), mv = new DataView(mb.buffer);
    var m = new Float64Array(mb.length / p.bytes);
    for (var j = 0; j < m.length; j++) m[j] = p.bytes === 4 ? mv.getFloat32(4 * j, true) : mv.getFloat64(8 * j, true);
    data.rows.margins = m;
    return data;
  }

  function decode(el) {
    var raw = JSON.parse(el.textContent);
    if (!raw.gzip) return Promise.resolve(unpack(raw));
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error(
        "this browser cannot unpack the page's data (no DecompressionStream); " +
        "open the file in a current Chrome, Edge, Firefox or Safari"));
    }
    var stream = new Blob([bytesOf(raw.gzip)]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse).then(unpack);
  }

  function h(tag, attrs, children) {
    var el = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") el.textContent = attrs[k];
      else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), attrs[k]);
      else el.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) el.appendChild(c); });
    return el;
  }
  var SVG = "http://www.w3.org/2000/svg";
  function s(tag, attrs, children) {
    var el = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) {
      if (k === "text") el.textContent = attrs[k];
      else el.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) el.appendChild(c); });
    return el;
  }

  // ------------------------------------------------------------ the app
  // a number for reading; "—" where the model does not know it (an import without counts)
  function num(v, p) {
    return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v)) ? "—" : formatNumber(v, p);
  }
  function count(v) { return v === null || v === undefined || v < 0 ? "—" : String(v); }
  function signed(v, p) { var t = num(v, p); return v > 0 ? "+" + t : t; }
  // one precision per quantity (data.py: DIGITS), so that one number under one name reads
  // the same in a box, the Node tab, the tables and the formulas of tg.explain: a tree's
  // numbers (n, G, H, w*, η·w*, gain, loss_chg) to TREE_DIGITS decimals, as explain and the
  // diagrams print them; a row's (g, h, margin, probability, prediction, residual) to
  // ROW_DIGITS; a hover shows more
  var TREE_DIGITS = 3, ROW_DIGITS = 4;
  function T(v) { return num(v, TREE_DIGITS); }
  function N(v) { return num(v, ROW_DIGITS); }

  var PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"];
  function colour(k) { return PALETTE[k % PALETTE.length]; }
  // embedded in a notebook's frame: the wheel scrolls the notebook, Ctrl+wheel zooms
  var EMBEDDED = (function () { try { return window.self !== window.top; } catch (e) { return true; } })();
  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';

  // the tree's text, in the drawing's units before the zoom (× the A−/A+ factor)
  var TITLE_PX = 14, TEXT_PX = 13, EDGE_PX = 12;
  var READABLE_PX = 9;      // the smallest node text a tree opens with (at 1280 px and up)
  var AUTO_DEPTH = 4;       // a deeper tree opens folded below this depth, or a shallower one
  var PAD = 6;              // inside a box
  var CHART_W = 104, CHART_H = 30, SHARE_H = 11;  // a node's chart, a leaf's class shares
  var RULE_MAX = 124;       // a rule wider than this wraps (feature name / threshold)
  var GAP_X = 10, GAP_Y = 40;
  var HIST_BINS = 16;
  var OVERVIEW_NODES = 63;  // trees up to this size open with the data in their nodes
  var TRANSPOSE_ROWS = 8;   // the epoch table of this few rows has one column per row
  var CAT_W = 150, CAT_ROW = 12, CAT_PX = 10, CAT_GAP = 5, CAT_ROWS = 8;  // a set split's chart

  // as the style sheet's --screen: larger screens (a projector's 1920 × 1080) start larger
  function screenFactor() { return window.innerWidth >= 2400 ? 1.45 : window.innerWidth >= 1600 ? 1.2 : 1; }

  var ruler = document.createElement("canvas").getContext("2d");
  function textWidth(text, px, bold) {
    ruler.font = (bold ? "600 " : "") + px + "px " + FONT;
    return ruler.measureText(text).width;
  }

  function App(data) {
    this.d = data;
    if (data.digits) { TREE_DIGITS = data.digits.tree; ROW_DIGITS = data.digits.row; }
    this.round = 0;       // round t shows the model after tree t; round 0 is the base score
    this.cls = 0;
    this.node = null;
    this.row = null;
    this.tab = "node";
    this.collapsed = {};  // tree index -> Set of collapsed node ids
    this.openedTo = {};   // tree index -> the depth it was opened to
    this.depthChoice = null;  // the depth control's value; null: the deepest that is readable
    this.view = null;     // {s, x, y}: zoom and pan of the tree
    this.fs = 1;          // the font-size control's factor (× the screen's default)
    this.chartCache = {};
    var X = data.rows && data.rows.X, y = data.rows && data.rows.y;
    var biggest = Math.max.apply(null, data.trees.map(function (t) { return t.feature.length; }).concat([0]));
    this.overview = !!(data.rows && (X || y)) && biggest <= OVERVIEW_NODES;
  }

  App.prototype.treeIndex = function () { return (this.round - 1) * this.d.K + this.cls; };
  App.prototype.tree = function () { return this.round > 0 ? this.d.trees[this.treeIndex()] : null; };

  // row r's margins after rounds 0..T (data.py: Model.margins_after), or null when the page
  // has them only for the first rows
  App.prototype.margins = function (r) {
    var d = this.d, T = d.rounds, K = d.K, m = d.rows.margins, out = [];
    if (r >= d.rows.margin_rows) return null;
    for (var t = 0; t <= T; t++) {
      var at = (r * (T + 1) + t) * K, ms = [];
      for (var k = 0; k < K; k++) ms.push(m[at + k]);
      out.push(ms);
    }
    return out;
  };

  // the probabilities of margins ms, by the model's link (data.py: prob_link, as
  // Loss.probability); null where a margin means no probability (a regressor, binary:hinge)
  App.prototype.probs = function (ms) {
    var link = this.d.prob_link;
    if (link === "softmax") return softmax(ms);
    if (link === "sigmoid") return [sigmoid(ms[0])];
    if (link === "sigmoid2") return [sigmoid(2 * ms[0])];  // scikit-learn's exponential loss
    if (link === "sigmoid_each") return ms.map(sigmoid);  // LightGBM's multiclassova
    if (link === "identity") return ms.slice();  // a forest's margins are class fractions
    return null;
  };

  // the prediction of margins ms where it is not the margin and no probability (data.py:
  // pred_link): e^margin (a log link), the class (binary:hinge), log(1 + e^margin); null
  // where the prediction is the margin itself
  App.prototype.pred = function (ms) {
    var link = this.d.pred_link;
    if (link === "exp") return [Math.exp(ms[0])];
    if (link === "class") return [ms[0] > 0 ? 1 : 0];
    if (link === "softplus") return [Math.max(ms[0], 0) + Math.log1p(Math.exp(-Math.abs(ms[0])))];
    return null;
  };

  // what a residual subtracts from y (as trace_.epochs()): the probability, else the
  // prediction, else the margin
  App.prototype.predicted = function (ms) {
    return this.probs(ms) || this.pred(ms) || ms;
  };

  // the prediction's formula, with the margin named m ("e^margin")
  App.prototype.predName = function (m) {
    m = m || "margin";
    var link = this.d.pred_link;
    return link === "exp" ? "e^" + m : link === "class" ? "(1 if " + m + " > 0 else 0)" : link === "softplus" ? "log(1 + e^" + m + ")" : m;
  };

  // a leaf's value: w* = −G/(H+λ), or q for a model whose leaves were refreshed (quantile,
  // absolute error)
  App.prototype.refreshed = function () {
    return this.d.trees.some(function (t) { return !!t.newton; });
  };
  App.prototype.weightName = function () { return this.refreshed() ? "q" : "w*"; };

  App.prototype.setFont = function (f) {
    var old = this.fs;
    this.fs = Math.max(0.7, Math.min(2.2, f));
    document.documentElement.style.setProperty("--fs", String(this.fs));
    this.keepScale = old;  // the text grows: keep the zoom rather than fit it back
    this.render();
  };

  // ------------------------------------------------------------ the frame
  App.prototype.mount = function (root) {
    var self = this, d = this.d;
    this.slider = h("input", {
      type: "range", min: "0", max: String(d.rounds), value: String(this.round),
      id: "round-slider", "aria-label": "round",
      oninput: function () { self.go(parseInt(self.slider.value, 10)); }
    });
    this.label = h("span", { id: "round-label", "aria-live": "polite" });
    this.shortLabel = h("span", { id: "round-short" });
    var controls = [
      h("button", { id: "prev", title: "previous round (←)", text: "◀ Prev", onclick: function () { self.go(self.round - 1); } }),
      this.slider,
      h("button", { id: "next", title: "next round (→)", text: "Next ▶", onclick: function () { self.go(self.round + 1); } }),
      this.label, this.shortLabel
    ];
    if (d.K > 1) {
      this.classSelect = h("select", { id: "class-select", "aria-label": "class",
        onchange: function () { self.cls = parseInt(self.classSelect.value, 10); self.node = null; self.view = null; self.render(); } },
        d.classes.map(function (c, k) { return h("option", { value: String(k), text: "class " + k + (String(c) === String(k) ? "" : ": " + c) }); }));
      controls.push(h("label", { class: "ctl" }, [h("span", { class: "ctl-name", text: "Class " }), this.classSelect]));
    }
    if (d.rows) {
      this.rowInput = h("input", { id: "row-input", type: "number", min: "0", max: String(d.rows.n - 1),
        placeholder: "row #", "aria-label": "pick a row",
        onchange: function () {
          var v = self.rowInput.value === "" ? null : parseInt(self.rowInput.value, 10);
          self.pick(v !== null && v >= 0 && v < d.rows.n ? v : null);
        } });
      controls.push(h("label", { class: "ctl" }, [h("span", { class: "ctl-name", text: "Row " }), this.rowInput]));
      controls.push(h("button", { id: "clear-row", text: "×", title: "forget the picked row",
        onclick: function () { self.pick(null); } }));
    }
    this.header = h("header", {}, [h("h1", { text: d.title, title: d.title }), h("div", { class: "controls" }, controls)]);
    this.svg = s("svg", { id: "tree-svg", role: "img" });
    this.start = h("div", { id: "start" });
    this.treeBox = h("div", { id: "tree-box" }, [this.svg, this.start]);
    this.legend = h("div", { id: "legend" });
    var area = h("section", { id: "tree-area" }, [this.toolbar(), this.legend, this.treeBox]);
    this.tabs = h("nav", { class: "tabs", role: "tablist" });
    this.panel = h("div", { id: "panel" });
    var side = h("aside", {}, [this.tabs, this.panel]);
    this.splitter = h("div", { id: "splitter", title: "drag to widen the panel", role: "separator" });
    this.main = h("main", {}, [area, this.splitter, side]);
    root.appendChild(this.header);
    if (d.assumed && d.assumed.length) {  // an import's assumptions, where everyone sees them
      root.appendChild(h("div", { id: "assumed", class: "assumed", text: "Assumed on import: " + d.assumed.join("; ") }));
    }
    root.appendChild(this.main);
    this.bindPanZoom();
    this.bindSplitter();
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" && e.target.type !== "range" || tag === "SELECT") return;
      if (e.key === "ArrowLeft") { self.go(self.round - 1); e.preventDefault(); }
      if (e.key === "ArrowRight") { self.go(self.round + 1); e.preventDefault(); }
      if (e.key === "Escape") self.menu.hidden = true;
    });
    document.addEventListener("click", function (e) {
      if (!self.menu.hidden && !self.menu.contains(e.target) && e.target !== self.menuButton) self.menu.hidden = true;
    });
    window.addEventListener("resize", function () { self.view = null; self.render(); });
    this.render();
  };

  // The tree's tools, one line: the rare ones live in the "⋯" menu, so that the bar never
  // wraps, whatever the text size
  App.prototype.toolbar = function () {
    var self = this;
    function act(f) { return function () { self.menu.hidden = true; f(); }; }
    this.depthSelect = h("select", { id: "depth-select", "aria-label": "open to depth", title: "open the tree to this depth",
      onchange: function () {
        var v = self.depthSelect.value;
        self.depthChoice = v === "all" ? Infinity : parseInt(v, 10);
        self.collapsed = {}; self.view = null; self.render();
      } });
    this.overviewBox = h("input", { type: "checkbox", id: "overview",
      onchange: function () { self.overview = self.overviewBox.checked; self.collapsed = {}; self.view = null; self.render(); } });
    this.menuButton = h("button", { id: "more", title: "more tools", text: "⋯", "aria-haspopup": "true",
      onclick: function (e) { e.stopPropagation(); self.menu.hidden = !self.menu.hidden; } });
    this.menu = h("div", { class: "menu", id: "menu", role: "menu" }, [
      h("button", { id: "zoom-in", text: "Zoom in", onclick: act(function () { self.zoom(1.25); }) }),
      h("button", { id: "zoom-out", text: "Zoom out", onclick: act(function () { self.zoom(0.8); }) }),
      h("button", { id: "open-all", text: "Open every node", onclick: act(function () {
        self.depthChoice = Infinity; self.collapsed = {}; self.view = null; self.render(); }) }),
      h("button", { id: "save-svg", text: "Save the tree as SVG", onclick: act(function () { self.save("svg"); }) }),
      h("button", { id: "save-png", text: "Save the tree as PNG", onclick: act(function () { self.save("png"); }) })
    ]);
    this.menu.hidden = true;
    var hint = EMBEDDED ? h("span", { class: "zoomhint", text: "Ctrl + wheel zooms" }) : null;
    return h("div", { class: "toolbar", id: "toolbar" }, [
      h("button", { id: "fit", title: "show the whole open tree", text: "Fit", onclick: function () { self.view = null; self.drawTree(); } }),
      h("button", { id: "font-down", title: "smaller text", text: "A−", onclick: function () { self.setFont(self.fs / 1.15); } }),
      h("button", { id: "font-up", title: "larger text (for a projector)", text: "A+", onclick: function () { self.setFont(self.fs * 1.15); } }),
      h("label", { class: "ctl", title: "open the tree to this depth" }, [h("span", { class: "ctl-name", text: "Depth" }), this.depthSelect]),
      h("label", { class: "ctl", title: "a chart of the rows in every node" }, [this.overviewBox, h("span", { text: "Data" })]),
      this.menuButton, this.menu, hint
    ]);
  };

  App.prototype.bindSplitter = function () {
    var self = this, drag = null;
    this.splitter.addEventListener("pointerdown", function (e) {
      drag = { x: e.clientX, w: self.main.lastElementChild.getBoundingClientRect().width };
      self.splitter.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    this.splitter.addEventListener("pointermove", function (e) {
      if (!drag) return;
      var w = Math.max(280, Math.min(window.innerWidth - 320, drag.w + drag.x - e.clientX));
      self.dragWidth = w;
      self.main.style.gridTemplateColumns = "minmax(0, 1fr) 8px " + w + "px";
    });
    this.splitter.addEventListener("pointerup", function () { drag = null; self.view = null; self.render(); });
  };

  App.prototype.go = function (t) {
    t = Math.max(0, Math.min(this.d.rounds, t));
    if (t === this.round) return;
    this.round = t;
    this.node = null;
    this.view = null;
    this.render();
  };

  App.prototype.pick = function (r) {
    this.row = r;
    if (this.rowInput) this.rowInput.value = r === null ? "" : String(r);
    if (r !== null) {
      this.tab = "row";
      // open the collapsed nodes on its path in every tree; the view then fits the whole
      // open tree, so the root stays in sight
      for (var i = 0; i < this.d.trees.length; i++) {
        if (!this.collapsed[i]) continue;
        var p = pathTo(this.d.trees[i], this.d.rows.leaf[i][r]);
        for (var j = 0; j < p.length; j++) this.collapsed[i].delete(p[j]);
      }
    }
    this.view = null;
    this.render();
  };

  App.prototype.render = function () {
    var d = this.d;
    this.slider.value = String(this.round);
    var tree = this.tree();
    this.label.textContent = this.round === 0 ? "Round 0 of " + d.rounds + ": the base score"
      : "Round " + this.round + " of " + d.rounds + ": after " + tree.label;
    this.shortLabel.textContent = "Round " + this.round + "/" + d.rounds;
    document.getElementById("prev").disabled = this.round === 0;
    document.getElementById("next").disabled = this.round === d.rounds;
    this.overviewBox.checked = this.overview;
    this.overviewBox.disabled = !(d.rows && (d.rows.X || d.rows.y));
    this.fitHeader();
    this.drawTabs();
    this.drawTree();
    this.drawPanel();
  };

  // The header keeps one line at any text size: it drops what it can spare, in turn
  App.prototype.fitHeader = function () {
    var hd = this.header, steps = ["short-round", "no-title", "short-slider", "no-names"];
    steps.forEach(function (c) { hd.classList.remove(c); });
    for (var k = 0; k < steps.length && hd.scrollWidth > hd.clientWidth + 1; k++) hd.classList.add(steps[k]);
    var tb = document.getElementById("toolbar");
    tb.classList.remove("tight");
    if (tb.scrollWidth > tb.clientWidth + 1) tb.classList.add("tight");
  };

  // ------------------------------------------------------------ what a node says
  // GBDT classifiers: the gain scores a squared-error tree of the residuals (its H is n,
  // h = 1 per row); w* is a Newton step whose denominator is Σp(1−p)
  function twoH(d) { return d.algorithm === "gbdt" && d.classifier; }

  App.prototype.px = function (base) { return base * this.fs; };

  // the rule on one line, or wrapped: the feature name (on as many lines as it needs) over
  // the comparison
  App.prototype.ruleLines = function (tree, i) {
    var rule = tree.rule[i], px = this.px(TITLE_PX), max = this.px(RULE_MAX);
    if (textWidth(rule, px, true) <= max || tree.thr_text[i] === null) return [rule];
    var name = this.d.features[tree.feature[i]], words = name.split(" "), lines = [], line = "";
    words.forEach(function (wd) {
      var next = line ? line + " " + wd : wd;
      if (line && textWidth(next, px, true) > max) { lines.push(line); line = wd; } else line = next;
    });
    lines.push(line);
    lines.push(tree.op + " " + tree.thr_text[i]);
    return lines;
  };

  // [{text, cls}] of node i, top to bottom; "chart" marks where the node's chart goes
  App.prototype.nodeLines = function (tree, i) {
    var d = this.d, out = [], chart = this.overview && this.chartOf(tree, i);
    if (isLeaf(tree, i)) {
      out.push({ text: "leaf " + i, cls: "l1" });
      if (chart) out.push({ chart: chart });
      out.push({ text: "n " + count(tree.n[i]), cls: "l2" });
      if (tree.newton) {  // a refreshed leaf: both numbers, the one the model uses first
        out.push({ text: "q " + T(tree.weight[i]), cls: "l2" });
        out.push({ text: "−G/(H+λ) " + T(tree.newton[i]), cls: "l2 unused" });
        out.push({ text: "η·q " + signed(tree.value[i], TREE_DIGITS), cls: "l2 adds" });
        return out;
      }
      out.push({ text: "w* " + T(tree.weight[i]), cls: "l2" });
      out.push({ text: "η·w* " + signed(tree.value[i], TREE_DIGITS), cls: "l2 adds" });
      return out;
    }
    this.ruleLines(tree, i).forEach(function (t) { out.push({ text: t, cls: "l1" }); });
    if (chart) out.push({ chart: chart });
    out.push({ text: "n " + count(tree.n[i]) + " · gain " + T(tree.gain[i]), cls: "l2" });
    if (twoH(d)) out.push({ text: "Σp(1−p) " + T(tree.H[i]), cls: "l2" });
    return out;
  };

  App.prototype.boxSize = function (lines) {
    var self = this, w = 0, hgt = 2 * PAD * this.fs;
    lines.forEach(function (ln) {
      if (ln.chart) { w = Math.max(w, self.px(ln.chart.w)); hgt += self.px(ln.chart.h + 4); return; }
      var px = self.px(ln.cls === "l1" ? TITLE_PX : TEXT_PX);
      w = Math.max(w, textWidth(ln.text, px, ln.cls === "l1"));
      hgt += px * 1.3;
    });
    return [w + 2 * PAD * this.fs + 2, hgt];
  };

  // ------------------------------------------------------------ the data in the nodes
  // For tree ti: the rows that reached each node, with their class (or target) and the
  // value of the node's split feature. Counted once per tree.
  App.prototype.nodeRows = function (ti) {
    if (this.chartCache[ti]) return this.chartCache[ti];
    var d = this.d, tree = d.trees[ti], leafOf = d.rows.leaf[ti], X = d.rows.X, y = d.rows.y;
    var n = tree.feature.length, at = [];
    for (var j = 0; j < n; j++) at.push({ vals: [], ys: [], left: [] });
    for (var r = 0; r < d.rows.n; r++) {
      for (var a = leafOf[r], from = -1; a >= 0; from = a, a = tree.parent[a]) {
        var f = tree.feature[a];
        at[a].vals.push(f >= 0 && X ? X[f][r] : null);
        at[a].ys.push(y ? y[r] : null);
        at[a].left.push(from < 0 ? null : from === tree.left[a]);  // the side the row took
      }
    }
    this.chartCache[ti] = at;
    return at;
  };

  App.prototype.yRange = function () {
    if (this.yr) return this.yr;
    var ys = Array.prototype.filter.call(this.d.rows.y || [], function (v) { return v !== null; });
    this.yr = ys.length ? [Math.min.apply(null, ys), Math.max.apply(null, ys)] : [0, 1];
    return this.yr;
  };

  // what node i's chart shows: a histogram of its split feature (a split), the class
  // shares or a histogram of y (a leaf); null when the page has no such data
  App.prototype.chartOf = function (tree, i) {
    var d = this.d;
    if (!d.rows || !this.overview) return null;
    var at = this.nodeRows(tree.index)[i];
    if (!at.vals.length) return null;
    if (isLeaf(tree, i) || !d.rows.X) {  // without feature values a split shows its classes
      if (!d.rows.y) return null;
      if (d.classifier) return { kind: "shares", w: CHART_W * (isLeaf(tree, i) ? 0.62 : 1), h: SHARE_H, ys: at.ys };
      return { kind: "yhist", w: CHART_W * 0.62, h: CHART_H * 0.8, ys: at.ys };
    }
    if (isSet(tree, i)) {
      var groups = this.catGroups(tree, i, at, CAT_ROWS);
      var rows = groups.yes.length + groups.no.length;
      // as wide as the box its rule makes (a set's rule is long), at least CAT_W
      var w = Math.max(CAT_W, Math.max.apply(null, this.ruleLines(tree, i).map(function (t) {
        return textWidth(t, TITLE_PX, true); })));
      return { kind: "cats", w: w, h: rows * CAT_ROW + CAT_GAP, groups: groups };
    }
    return { kind: "hist", w: CHART_W, h: CHART_H, vals: at.vals, ys: at.ys, thr: tree.threshold[i] };
  };

  // The categories of the rows that reached set split i, in two groups by the side their
  // rows took (yes: in the set, left; no: the others, right — missing and unseen values
  // where the library sent them), each group by rows, most first. A category is {label,
  // code, n, counts (by class), sum (of y)}. With more than `most` categories, each
  // group keeps its largest and folds the rest into one "+k more" entry.
  App.prototype.catGroups = function (tree, i, at, most) {
    var d = this.d, names = d.categories[tree.feature[i]] || [], K = d.classifier ? d.classes.length : 1;
    var by = {}, clf = d.classifier;
    at.vals.forEach(function (v, j) {
      var code = catCode(v, names);
      var key = String(code) + (at.left[j] ? "<" : ">");
      var e = by[key] || (by[key] = { label: typeof code === "number" ? names[code] : code, code: code,
        yes: !!at.left[j], n: 0, counts: new Array(K).fill(0), sum: 0 });
      e.n += 1;
      if (at.ys[j] !== null) { if (clf) e.counts[at.ys[j]] += 1; else e.sum += at.ys[j]; }
    });
    var all = Object.keys(by).map(function (k) { return by[k]; });
    var order = function (a, b) { return b.n - a.n || String(a.label).localeCompare(String(b.label)); };
    var yes = all.filter(function (e) { return e.yes; }).sort(order);
    var no = all.filter(function (e) { return !e.yes; }).sort(order);
    if (most && yes.length + no.length > most) {
      var sy = Math.min(yes.length, Math.max(2, Math.round(most * yes.length / (yes.length + no.length))));
      var sn = Math.min(no.length, most - sy);
      sy = Math.min(yes.length, most - sn);
      yes = fold(yes, sy, K); no = fold(no, sn, K);
    }
    return { yes: yes, no: no, all: all.length };
  };

  // a row's value of a categorical feature as the chart groups it: its code, "missing", or
  // "unseen" (a code that names no category)
  function catCode(v, names) {
    return v === null ? "missing" : v >= 0 && v < names.length && v === Math.floor(v) ? v : "unseen";
  }

  // the first `keep` − 1 entries, and the rest added up as "+k more" (all when they fit)
  function fold(list, keep, K) {
    if (list.length <= keep) return list;
    var kept = list.slice(0, Math.max(keep - 1, 0)), rest = list.slice(kept.length);
    var more = { label: "+" + rest.length + " more", code: null, folded: rest, n: 0, counts: new Array(K).fill(0), sum: 0 };
    rest.forEach(function (e) {
      more.n += e.n; more.sum += e.sum;
      e.counts.forEach(function (v, k) { more.counts[k] += v; });
    });
    return kept.concat([more]);
  }

  // bins of values (with their y) over [lo, hi]: counts by class, or the mean y of a bin
  function binned(vals, ys, lo, hi, bins, K, clf) {
    var width = (hi - lo) / bins, counts = [], sums = [];
    for (var b = 0; b < bins; b++) { counts.push(new Array(K).fill(0)); sums.push(0); }
    vals.forEach(function (v, j) {
      if (v === null) return;
      var b = Math.max(0, Math.min(bins - 1, Math.floor((v - lo) / width)));
      var k = clf && ys[j] !== null ? ys[j] : 0;
      counts[b][k] += 1;
      sums[b] += clf || ys[j] === null ? 0 : ys[j];
    });
    return { counts: counts, sums: sums, width: width };
  }

  function heat(t) {  // blue (low target) to red (high)
    t = Math.max(0, Math.min(1, t));
    return "rgb(" + Math.round(59 + 166 * t) + "," + Math.round(111 - 40 * t) + "," + Math.round(182 - 130 * t) + ")";
  }

  // the chart, drawn at (0, 0) with its size in the tree's units
  App.prototype.drawChart = function (c, pick) {
    var d = this.d, f = this.fs, W = c.w * f, H = c.h * f, g = s("g", { class: "chart" });
    var K = d.classifier ? d.classes.length : 1;
    if (c.kind === "shares") {
      var cnt = new Array(K).fill(0), tot = 0;
      c.ys.forEach(function (k) { if (k !== null) { cnt[k] += 1; tot += 1; } });
      var x0 = 0;
      cnt.forEach(function (v, k) {
        if (!v) return;
        var w = W * v / tot;
        g.appendChild(s("rect", { x: x0, y: 0, width: w, height: H, fill: colour(k) }, [
          s("title", { text: d.classes[k] + ": " + v + " of " + tot + " rows (" + Math.round(100 * v / tot) + "%)" })]));
        x0 += w;
      });
      g.appendChild(s("rect", { x: 0, y: 0, width: W, height: H, class: "chart-frame" }));
      return g;
    }
    if (c.kind === "cats") return this.drawCats(g, c, W, pick);
    var vals = c.kind === "hist" ? c.vals : c.ys, ys = c.ys;
    var present = vals.filter(function (v) { return v !== null; });
    if (!present.length) return g;
    var lo = Math.min.apply(null, present), hi = Math.max.apply(null, present);
    var cut = c.kind === "hist" && typeof c.thr === "number";  // no number: a set split
    if (cut) { lo = Math.min(lo, c.thr); hi = Math.max(hi, c.thr); }
    if (c.kind === "yhist") { var yr = this.yRange(); lo = yr[0]; hi = yr[1]; }
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
    var clf = d.classifier && c.kind === "hist";
    var bins = binned(vals, ys, lo, hi, HIST_BINS, clf ? K : 1, clf), mx = 1;
    bins.counts.forEach(function (cc) { mx = Math.max(mx, cc.reduce(function (a, v) { return a + v; }, 0)); });
    var X = function (v) { return W * (v - lo) / (hi - lo); }, bw = W / HIST_BINS;
    var yr2 = this.yRange();
    bins.counts.forEach(function (cc, b) {
      var base = 0;
      cc.forEach(function (v, k) {
        if (!v) return;
        var fill = clf ? colour(k) : c.kind === "yhist" || !d.rows.y ? "#8da0cb"
          : heat((bins.sums[b] / v - yr2[0]) / ((yr2[1] - yr2[0]) || 1));
        var top = H - H * (base + v) / mx;
        g.appendChild(s("rect", { x: b * bw + 0.3, y: top, width: Math.max(0.6, bw - 0.6), height: H * v / mx, fill: fill }));
        base += v;
      });
    });
    g.appendChild(s("line", { x1: 0, x2: W, y1: H, y2: H, class: "chart-axis" }));
    if (cut) g.appendChild(s("line", { x1: X(c.thr), x2: X(c.thr), y1: -2, y2: H + 2, class: "chart-thr" }));
    if (pick !== null && pick !== undefined) {
      g.appendChild(s("path", { d: "M" + X(pick) + "," + (H + 1) + " l-" + 3.5 * f + "," + 5 * f + " l" + 7 * f + ",0 z", class: "pickmark" }));
    }
    return g;
  };

  // the fill of a category's bar: stacked by class, or its rows' mean y (a regressor)
  App.prototype.catFills = function (e) {
    var d = this.d;
    if (d.classifier) return e.counts.map(function (v, k) { return [v, colour(k)]; });
    var yr = this.yRange();
    var mean = e.n ? e.sum / e.n : yr[0];
    return [[e.n, d.rows.y ? heat((mean - yr[0]) / ((yr[1] - yr[0]) || 1)) : "#8da0cb"]];
  };

  // A set split's chart in its box: one bar per category (its name on the left), stacked by
  // class, those in the set (yes, left) above a dashed line, the others (no) below; `pick`:
  // the picked row's code, its category marked
  App.prototype.drawCats = function (g, c, W, pick) {
    var self = this, f = this.fs, rh = CAT_ROW * f, px = CAT_PX * f, mx = 1, y = 0;
    var tag = textWidth("yes", px, true) + 4 * f, label = Math.min(0.42 * W, 62 * f), chars = Math.floor(label / (0.56 * px));
    var bars = W - tag - label - 10 * f;
    c.groups.yes.concat(c.groups.no).forEach(function (e) { mx = Math.max(mx, e.n); });
    [["yes", c.groups.yes], ["no", c.groups.no]].forEach(function (grp, gi) {
      if (gi === 1) {
        y += CAT_GAP * f / 2;
        g.appendChild(s("line", { x1: 0, x2: W, y1: y, y2: y, class: "chart-thr" }));
        y += CAT_GAP * f / 2;
      }
      if (grp[1].length) g.appendChild(s("text", { x: 0, y: y + rh * 0.8, "font-size": px, class: "cat-side", text: grp[0] }));
      grp[1].forEach(function (e) {
        var picked = pick !== null && pick !== undefined && (e.code === pick || (e.folded && e.folded.some(function (x) { return x.code === pick; })));
        g.appendChild(s("text", { x: tag, y: y + rh * 0.8, "font-size": px, class: "cat-name" + (picked ? " picked" : ""),
          "data-side": grp[0], "data-n": String(e.n), text: clip(String(e.label), chars) }));
        var x0 = tag + label;
        self.catFills(e).forEach(function (part) {
          if (!part[0]) return;
          var w = bars * part[0] / mx;
          g.appendChild(s("rect", { x: x0, y: y + 1 * f, width: w, height: rh - 2 * f, fill: part[1] }));
          x0 += w;
        });
        if (picked) g.appendChild(s("path", { d: "M" + (x0 + 2 * f) + "," + (y + rh / 2) + " l" + 5 * f + ",-" + 3.5 * f + " l0," + 7 * f + " z", class: "pickmark" }));
        y += rh;
      });
    });
    return g;
  };

  // ------------------------------------------------------------ the tree
  // collapsed nodes of tree ti: those at the chosen depth (first time the tree is shown)
  App.prototype.collapsedOf = function (ti) {
    if (!this.collapsed[ti]) {
      this.openedTo[ti] = this.openDepth(ti);
      this.collapsed[ti] = this.atDepth(this.d.trees[ti], this.openedTo[ti]);
    }
    return this.collapsed[ti];
  };

  App.prototype.atDepth = function (tree, depth) {
    var set = new Set();
    for (var j = 0; j < tree.feature.length; j++) {
      if (tree.depth[j] === depth && tree.feature[j] >= 0) set.add(j);
    }
    return set;
  };

  function maxDepth(tree) { return Math.max.apply(null, tree.depth); }

  App.prototype.layoutOf = function (tree, collapsed) {
    var self = this, memo = {};
    var lay = tidyLayout(tree, collapsed, function (i) {
      memo[i] = self.nodeLines(tree, i);
      return self.boxSize(memo[i]);
    }, GAP_X * this.fs, GAP_Y * this.fs);
    lay.lines = memo;
    return lay;
  };

  App.prototype.paneSize = function () {
    var r = this.treeBox.getBoundingClientRect();
    return { width: r.width, height: r.height };
  };

  // the zoom that shows every open node, and where the tree then sits
  App.prototype.fitView = function (lay, box) {
    var pad = 14, big = screenFactor();
    var sc = Math.min((box.width - 2 * pad) / lay.width, (box.height - 2 * pad) / lay.height, 1.3 * big);
    sc = Math.max(sc, 0.05);
    return { s: sc, x: (box.width - lay.width * sc) / 2 - lay.minX * sc, y: pad };
  };

  // The depth a tree opens to: the chosen one, else the deepest (up to AUTO_DEPTH) at which
  // the fitted tree's text is still READABLE_PX (× the A−/A+ factor) on screen
  App.prototype.openDepth = function (ti) {
    var tree = this.d.trees[ti], deepest = maxDepth(tree);
    if (this.depthChoice !== null) return Math.min(this.depthChoice, deepest);
    var box = this.paneSize(), want = READABLE_PX / TEXT_PX, top = Math.min(deepest, AUTO_DEPTH);
    if (!box.width) return top;
    for (var dep = top; dep > 1; dep--) {
      var saved = this.collapsed[ti];
      this.collapsed[ti] = this.atDepth(tree, dep);  // the charts ask which nodes are closed
      var lay = this.layoutOf(tree, this.collapsed[ti]);
      this.collapsed[ti] = saved;
      if (this.fitView(lay, box).s >= want) return dep;
    }
    return 1;
  };

  App.prototype.fillDepthSelect = function (tree, ti) {
    var sel = this.depthSelect, deepest = tree ? maxDepth(tree) : 0;
    while (sel.firstChild) sel.removeChild(sel.firstChild);
    for (var dep = 1; dep < deepest; dep++) sel.appendChild(h("option", { value: String(dep), text: String(dep) }));
    sel.appendChild(h("option", { value: "all", text: "all (" + deepest + ")" }));
    sel.disabled = !tree;
    if (tree) sel.value = this.openedTo[ti] >= deepest ? "all" : String(this.openedTo[ti]);
  };

  App.prototype.drawTree = function () {
    var self = this, svg = this.svg, d = this.d;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var tree = this.tree();
    this.drawLegend(tree);  // first: the pane is what the legend leaves
    var box = this.paneSize();
    svg.setAttribute("width", box.width);
    svg.setAttribute("height", box.height);
    this.start.hidden = !!tree;
    svg.style.display = tree ? "" : "none";
    if (!tree) { this.fillDepthSelect(null); this.drawStart(); return; }
    var ti = this.treeIndex(), collapsed = this.collapsedOf(ti), lay = this.layoutOf(tree, collapsed);
    this.fillDepthSelect(tree, ti);
    this.lay = lay;
    var path = [], onPath = new Set();
    if (this.row !== null) { path = pathTo(tree, d.rows.leaf[ti][this.row]); path.forEach(function (j) { onPath.add(j); }); }
    var fit = this.fitView(lay, box);
    if (this.keepScale && this.view) {  // A−/A+: the text changes size on screen, the zoom stays
      var sc = this.view.s;  // centred when the tree fits, else the root in the middle
      var x = fit.s >= sc ? (box.width - lay.width * sc) / 2 - lay.minX * sc : box.width / 2 - lay.x[0] * sc;
      this.view = { s: sc, x: x, y: fit.y };
    } else if (!this.view) {
      this.view = fit;
    }
    this.keepScale = null;
    var g = s("g", { id: "viewport", transform: this.transform() });
    this.viewport = g;
    svg.appendChild(g);
    this.drawEdges(g, tree, lay, collapsed, onPath);
    lay.ids.forEach(function (i) { g.appendChild(self.nodeBox(tree, i, lay, collapsed, onPath)); });
  };

  // the width of an edge: the share of the rows (or of the cover H) that pass along it
  App.prototype.edgeWidth = function (tree, child) {
    var n = tree.n[0] > 0 ? tree.n[child] / tree.n[0] : tree.H[0] > 0 ? tree.H[child] / tree.H[0] : 0;
    return (1.2 + 11 * Math.max(0, Math.min(1, n || 0))) * this.fs;
  };

  App.prototype.drawEdges = function (g, tree, lay, collapsed, onPath) {
    var self = this, f = this.fs;
    lay.ids.forEach(function (i) {
      if (isLeaf(tree, i) || collapsed.has(i)) return;
      [[tree.left[i], true], [tree.right[i], false]].forEach(function (c) {
        var j = c[0], x0 = lay.x[i], y0 = lay.top[i] + lay.h[i], x1 = lay.x[j], y1 = lay.top[j];
        var ym = (y0 + y1) / 2, on = onPath.has(i) && onPath.has(j);
        g.appendChild(s("path", { class: "edge" + (on ? " on-path" : ""), "data-edge": i + "-" + j,
          "stroke-width": Math.max(self.edgeWidth(tree, j), on ? 4 * f : 0),
          d: "M" + x0 + "," + y0 + " C" + x0 + "," + ym + " " + x1 + "," + ym + " " + x1 + "," + y1 }, [
          s("title", { text: (c[1] ? "yes" : "no") + ": " + count(tree.n[j]) + " rows" })]));
        var missing = tree.default_left[i] === c[1] ? ", missing" : "";
        g.appendChild(s("text", { class: "edge-label", "font-size": EDGE_PX * f,
          x: (x0 + x1) / 2 + (c[1] ? -5 : 5) * f, y: ym - 3 * f, "text-anchor": c[1] ? "end" : "start",
          text: (c[1] ? "yes" : "no") + missing }));
      });
    });
  };

  App.prototype.nodeBox = function (tree, i, lay, collapsed, onPath) {
    var self = this, leaf = isLeaf(tree, i), f = this.fs, w = lay.w[i], hgt = lay.h[i];
    var cls = "node " + (leaf ? "leaf" : "split") + (onPath.has(i) ? " on-path" : "") +
      (this.node === i ? " selected" : "");
    var g = s("g", { class: cls, "data-node": String(i), transform: "translate(" + lay.x[i] + "," + lay.top[i] + ")", tabindex: "0" });
    g.appendChild(s("rect", { x: -w / 2, y: 0, width: w, height: hgt, rx: 7 * f }));
    g.appendChild(s("title", { text: this.hoverText(tree, i) }));
    var y = PAD * f, ti = this.treeIndex();
    lay.lines[i].forEach(function (ln) {
      if (ln.chart) {
        var pick = null;
        if (self.row !== null && onPath.has(i)) {
          pick = ln.chart.kind === "cats" ? catCode(self.d.rows.X[tree.feature[i]][self.row], self.d.categories[tree.feature[i]] || [])
            : ln.chart.kind === "hist" ? self.d.rows.X[tree.feature[i]][self.row]
            : ln.chart.kind === "yhist" ? self.d.rows.y[self.row] : null;
        }
        var c = self.drawChart(ln.chart, pick);
        c.setAttribute("transform", "translate(" + (-ln.chart.w * f / 2) + "," + (y + 2 * f) + ")");
        g.appendChild(c);
        y += (ln.chart.h + 4) * f;
        return;
      }
      var px = (ln.cls === "l1" ? TITLE_PX : TEXT_PX) * f;
      g.appendChild(s("text", { class: ln.cls, "font-size": px, y: y + px * 1.02, "text-anchor": "middle", text: ln.text }));
      y += px * 1.3;
    });
    g.addEventListener("click", function (e) {
      if (self.dragged) return;
      e.stopPropagation();
      self.node = i; self.tab = "node"; self.render();
    });
    g.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { self.node = i; self.tab = "node"; self.render(); e.preventDefault(); }
    });
    if (!leaf) g.appendChild(this.expander(tree, i, hgt, collapsed, ti));
    return g;
  };

  // the classes of the rows that reached node i, as "benign 97% (320), malignant 3% (8)"
  App.prototype.sharesText = function (tree, i) {
    var d = this.d;
    if (!d.rows || !d.rows.y || !d.classifier) return "";
    var ys = this.nodeRows(tree.index)[i].ys, c = new Array(d.classes.length).fill(0);
    ys.forEach(function (k) { if (k !== null) c[k] += 1; });
    var tot = c.reduce(function (a, b) { return a + b; }, 0);
    if (!tot) return "";
    return "\nrows by class: " + c.map(function (v, k) {
      return d.classes[k] + " " + Math.round(100 * v / tot) + "% (" + v + ")";
    }).join(", ");
  };

  App.prototype.hoverText = function (tree, i) {
    var d = this.d;
    if (isLeaf(tree, i) && tree.newton) {
      return "leaf " + i + ": n = " + count(tree.n[i]) + "\nq = " + num(tree.weight[i], 6) +
        " (the refreshed quantile: the model uses it)\n−G/(H+λ) = " + num(tree.newton[i], 6) +
        " (not used)\nadds η·q = " + formatNumber(tree.learning_rate, 6) + " × " + num(tree.weight[i], 6) +
        " = " + num(tree.value[i], 6) + " to a row's margin" + this.sharesText(tree, i);
    }
    if (isLeaf(tree, i)) {
      return "leaf " + i + ": n = " + count(tree.n[i]) + "\nw* = " + num(tree.weight[i], 6) +
        " (the walkthrough's leaf_output)\nadds η·w* = " + formatNumber(tree.learning_rate, 6) + " × " +
        num(tree.weight[i], 6) + " = " + num(tree.value[i], 6) + " to a row's margin" + this.sharesText(tree, i);
    }
    return "node " + i + ": " + tree.rule[i] + "\n(" + this.exactText(tree, i) + ")" +
      "\nn = " + count(tree.n[i]) + ", gain = " + num(tree.gain[i], 6) +
      (twoH(d) ? "\nn is the gain's H; Σp(1−p) = " + num(tree.H[i], 6) + " is w*'s denominator" : "") +
      this.sharesText(tree, i);
  };

  App.prototype.expander = function (tree, i, hgt, collapsed, ti) {
    var self = this, f = this.fs, closed = collapsed.has(i);
    var t = s("g", { class: "toggle", "data-toggle": String(i), transform: "translate(0," + (hgt + 1) + ")" }, [
      s("circle", { r: 8.5 * f }),
      s("text", { y: 4.5 * f, "font-size": 14 * f, "text-anchor": "middle", text: closed ? "+" : "−" }),
      s("title", { text: closed ? "open this subtree" : "fold this subtree" })
    ]);
    if (closed) t.appendChild(s("text", { class: "hidden-count", x: 13 * f, y: 4.5 * f, "font-size": EDGE_PX * f, text: hiddenBelow(tree, i) + " more" }));
    t.addEventListener("click", function (e) {
      e.stopPropagation();
      if (self.dragged) return;
      if (collapsed.has(i)) collapsed.delete(i); else collapsed.add(i);
      self.view = null;
      self.drawTree();
    });
    return t;
  };

  function hiddenBelow(tree, i) {
    if (isLeaf(tree, i)) return 0;
    return 2 + hiddenBelow(tree, tree.left[i]) + hiddenBelow(tree, tree.right[i]);
  }

  // what the colours, widths and names on the tree mean: one line over the tree
  App.prototype.legendParts = function (tree) {
    var d = this.d, parts = [];
    if (!tree) return parts;
    if (this.overview && d.classifier && d.rows && d.rows.y) {
      parts.push({ swatches: d.classes });
      if (d.rows.X) parts.push({ text: "a split's chart: its feature over the rows reaching it, cut at the threshold (dashed)" +
        (hasSets(tree) ? "; a set split's: one bar per category, the set's (yes) above the dashed line" : "") });
    } else if (this.overview && d.rows && d.rows.y && d.rows.X) {
      parts.push({ text: "bars coloured by mean y: blue low, red high" +
        (hasSets(tree) ? "; a set split's chart: one bar per category, the set's (yes) above the dashed line" : "") });
    }
    parts.push({ text: "edges: as wide as the rows passing" });
    if (tree.newton) {
      parts.push({ text: "a leaf: q = the refreshed quantile of its rows' residuals (the model uses it), −G/(H+λ) beside it; η·q = what it adds to the margin, η = " + formatNumber(tree.learning_rate, 6) });
    } else {
      parts.push({ text: "a leaf: w* = −G/(H+λ) (leaf_output); η·w* = what it adds to the margin, η = " + formatNumber(tree.learning_rate, 6) });
    }
    if (twoH(d)) parts.push({ text: "n is the gain's H (h = 1 per row); Σp(1−p) is w*'s denominator" });
    return parts;
  };

  App.prototype.drawLegend = function (tree) {
    var L = this.legend;
    while (L.firstChild) L.removeChild(L.firstChild);
    this.legendParts(tree).forEach(function (p) {
      if (p.swatches) {
        p.swatches.forEach(function (c, k) {
          L.appendChild(h("span", { class: "swatch", style: "background:" + colour(k) }));
          L.appendChild(h("span", { class: "swatch-name", text: c }));
        });
      } else {
        L.appendChild(h("span", { class: "legend-part", text: p.text }));
      }
    });
    L.hidden = !tree;
  };

  App.prototype.transform = function () {
    var v = this.view;
    return "translate(" + v.x + "," + v.y + ") scale(" + v.s + ")";
  };

  App.prototype.zoom = function (f, cx, cy) {
    if (!this.view) return;
    var box = this.paneSize(), v = this.view;
    if (cx === undefined) { cx = box.width / 2; cy = box.height / 2; }
    var ns = Math.max(0.05, Math.min(6, v.s * f));
    v.x = cx - (cx - v.x) * ns / v.s;
    v.y = cy - (cy - v.y) * ns / v.s;
    v.s = ns;
    if (this.viewport) this.viewport.setAttribute("transform", this.transform());
  };

  App.prototype.bindPanZoom = function () {
    var self = this, start = null;
    this.svg.addEventListener("wheel", function (e) {
      if (!self.view) return;
      if (EMBEDDED && !(e.ctrlKey || e.metaKey)) return;  // let the notebook scroll
      e.preventDefault();
      var r = self.svg.getBoundingClientRect();
      self.zoom(e.deltaY < 0 ? 1.1 : 1 / 1.1, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    this.svg.addEventListener("pointerdown", function (e) {
      if (!self.view) return;
      start = { x: e.clientX, y: e.clientY, vx: self.view.x, vy: self.view.y };
      self.dragged = false;
    });
    window.addEventListener("pointermove", function (e) {
      if (!start) return;
      var dx = e.clientX - start.x, dy = e.clientY - start.y;
      if (Math.abs(dx) + Math.abs(dy) > 4) self.dragged = true;
      if (!self.dragged) return;
      self.view.x = start.vx + dx;
      self.view.y = start.vy + dy;
      self.viewport.setAttribute("transform", self.transform());
    });
    window.addEventListener("pointerup", function () {
      start = null;
      setTimeout(function () { self.dragged = false; }, 0);
    });
  };

  // Round 0 in HTML, so that its lines wrap at any width and text size
  App.prototype.drawStart = function () {
    var d = this.d, el = this.start;
    while (el.firstChild) el.removeChild(el.firstChild);
    el.appendChild(h("h2", { class: "start-title", text: "Round 0: before any tree, every row starts here" }));
    d.start.forEach(function (line, j) {  // first: the objective and its link
      el.appendChild(h("p", { class: "start-line" + (j === 0 && d.objective_text ? " objective" : ""), text: line }));
    });
    el.appendChild(h("p", { class: "start-hint",
      text: d.rounds ? "Next ▶ (or →) goes to round 1: after " + d.trees[this.cls].label + "." : "This model has no trees." }));
    this.view = null;
  };

  // ------------------------------------------------------------ saving the tree
  // The open tree as one SVG file: its boxes, charts and legend, styled inline
  App.prototype.svgText = function () {
    var lay = this.lay, f = this.fs, pad = 16, tree = this.tree();
    var legend = this.legendParts(tree).map(function (p) { return p.swatches ? "colours: " + p.swatches.join(", ") : p.text; });
    var lh = 16, top = pad + legend.length * lh + 8;
    var W = Math.ceil(lay.width + 2 * pad), H = Math.ceil(lay.height + top + pad + 12 * f);
    var out = s("svg", { xmlns: SVG, width: W, height: H, viewBox: "0 0 " + W + " " + H });
    var css = document.querySelector("style").textContent;
    out.appendChild(s("style", { text: css + "\nsvg { font-family: " + FONT + "; background: #fff; }" }));
    out.appendChild(s("rect", { x: 0, y: 0, width: W, height: H, fill: "#ffffff" }));
    var self = this;
    legend.forEach(function (t, k) {
      var tx = s("text", { x: pad, y: pad + (k + 1) * lh - 4, "font-size": 13, class: "legend-text", text: t });
      if (k === 0 && self.legendParts(tree)[0].swatches) tx.textContent = "";
      out.appendChild(tx);
    });
    var sw = this.legendParts(tree)[0];
    if (sw && sw.swatches) {
      var x = pad;
      sw.swatches.forEach(function (c, k) {
        out.appendChild(s("rect", { x: x, y: pad, width: 11, height: 11, fill: colour(k) }));
        out.appendChild(s("text", { x: x + 15, y: pad + 10, "font-size": 13, class: "legend-text", text: c }));
        x += 28 + textWidth(c, 13, false);
      });
    }
    var g = this.viewport.cloneNode(true);
    g.setAttribute("transform", "translate(" + (pad - lay.minX) + "," + top + ")");
    out.appendChild(g);
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(out);
  };

  App.prototype.fileName = function (ext) {
    return "tree-" + (this.treeIndex() + 1) + "." + ext;
  };

  function download(name, url) {
    var a = h("a", { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  App.prototype.save = function (fmt) {
    if (!this.tree()) return;
    var text = this.svgText(), name = this.fileName(fmt);
    var uri = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(text)));
    this.saved = { name: name, svg: text };
    if (fmt === "svg") { download(name, uri); return; }
    var img = new Image(), self = this;
    img.onload = function () {
      var k = 2, c = document.createElement("canvas");
      c.width = img.width * k; c.height = img.height * k;
      var ctx = c.getContext("2d");
      ctx.scale(k, k);
      ctx.drawImage(img, 0, 0);
      self.saved.png = c.toDataURL("image/png");
      download(name, self.saved.png);
    };
    img.src = uri;
  };

  // ------------------------------------------------------------ the side panel
  App.prototype.drawTabs = function () {
    var self = this, names = [["node", "Node"]];
    if (this.d.rows) names.push(["rows", "Rows"], ["epochs", "Epochs"], ["row", "Row"]);
    names.push(["about", "About"]);
    while (this.tabs.firstChild) this.tabs.removeChild(this.tabs.firstChild);
    names.forEach(function (n) {
      self.tabs.appendChild(h("button", {
        role: "tab", id: "tab-" + n[0], "aria-selected": String(self.tab === n[0]),
        class: self.tab === n[0] ? "active" : "", text: n[1],
        onclick: function () { self.tab = n[0]; self.drawTabs(); self.drawPanel(); }
      }));
    });
    this.tabs.classList.remove("tight");
    if (this.tabs.scrollWidth > this.tabs.clientWidth + 1) this.tabs.classList.add("tight");
  };

  App.prototype.drawPanel = function () {
    var p = this.panel;
    while (p.firstChild) p.removeChild(p.firstChild);
    var f = { node: this.nodePanel, rows: this.rowsPanel, epochs: this.epochsPanel,
              row: this.rowPanel, about: this.aboutPanel }[this.tab] || this.nodePanel;
    f.call(this, p);
    this.fitPanel();
  };

  // Seed 004's table wider than the panel widens it (the tree keeps MIN_TREE_PANE px),
  // until another tab is shown; a panel the reader dragged keeps its width. (Other
  // tables scroll: widening for them would shrink the tree at every click.)
  var MIN_TREE_PANE = 420;
  App.prototype.fitPanel = function () {
    if (this.dragWidth) return;
    var table = this.panel.querySelector("#epochs-table"), before = this.main.style.gridTemplateColumns;
    var aside = this.main.lastElementChild;
    this.main.style.gridTemplateColumns = "";
    var base = aside.getBoundingClientRect().width;
    var want = table ? table.getBoundingClientRect().width - table.parentNode.clientWidth : 0;
    if (want > 1 && window.innerWidth > 900) {
      var w = Math.min(base + want + 4, window.innerWidth - MIN_TREE_PANE - 8);
      if (w > base) this.main.style.gridTemplateColumns = "minmax(0, 1fr) 8px " + w + "px";
    }
    if (this.main.style.gridTemplateColumns !== before) { this.view = null; this.drawTree(); }
  };

  // the names every view gives the numbers of a node (the walkthrough's, explain's)
  App.prototype.nodeStats = function (tree, i) {
    var d = this.d, leaf = isLeaf(tree, i);
    var stats = [["n", "n", count(tree.n[i])], ["G", "G", T(tree.G[i])]];
    if (twoH(d)) {
      stats.push(["H_gain", "n (the gain's H)", count(tree.n[i])],
                 ["H", "Σp(1−p) (w*'s denominator)", T(tree.H[i])]);
    } else {
      stats.push(["H", "H", T(tree.H[i])]);
    }
    if (leaf && tree.newton) {  // a refreshed leaf: the quantile the model uses, and Newton's
      stats.push(["q", "q (the refreshed quantile: the model uses it)", T(tree.weight[i])],
                 ["w*", "w* = −G/(H+λ) (the tree was grown with it; not used)", T(tree.newton[i])],
                 ["η·q", "η·q (what the leaf adds)", T(tree.value[i])]);
    } else {
      stats.push(["w*", leaf ? "w* (leaf_output)" : "w* (were it a leaf)", T(tree.weight[i])]);
      if (leaf) stats.push(["η·w*", "η·w* (what the leaf adds)", T(tree.value[i])]);
    }
    if (!leaf) stats.push(["gain", "gain", T(tree.gain[i])], ["loss_chg", d.loss_chg_from_file ? "loss_chg (in the file)" : "loss_chg", T(tree.loss_chg[i])]);
    return stats;
  };

  App.prototype.nodePanel = function (p) {
    var tree = this.tree(), i = this.node, d = this.d;
    if (!tree) {
      p.appendChild(h("p", { class: "hint", text: "Round 0 has no tree. Press Next ▶ or → for round 1, then click a node." }));
      return;
    }
    if (i === null) {
      p.appendChild(h("p", { class: "hint", text: "Click a node of the tree to see its n, G, H, w*, gain, the formulas with its numbers" + (d.rows && d.rows.X ? " and the rows that reached it." : ".") }));
      return;
    }
    var leaf = isLeaf(tree, i);
    p.appendChild(h("h2", { id: "node-title", text: tree.label + ", " + (leaf ? "leaf " : "node ") + i }));
    if (!leaf && isSet(tree, i)) {
      this.setList(p, tree, i);
    } else if (!leaf) {
      p.appendChild(h("p", { class: "rule", title: this.exactText(tree, i),
        text: "split: " + tree.rule[i] }));
    }
    p.appendChild(h("table", { class: "stats", id: "node-stats" }, [h("tbody", {}, this.nodeStats(tree, i).map(function (r) {
      return h("tr", { "data-stat": r[0] }, [h("th", { text: r[1] }), h("td", { text: r[2] })]);
    }))]));
    this.nodeData(p, tree, i);
    if (!leaf) p.appendChild(formula("split-formula", tree.split_text[i]));
    p.appendChild(formula("leaf-formula", tree.leaf_text[i]));
    this.splitTable(p, tree, i);
  };

  App.prototype.splitTable = function (p, tree, i) {
    var d = this.d, tab = tree.splits[String(i)];
    if (tab) {
      p.appendChild(h("h3", { text: "Candidate splits: " + tab.rows.length + " best of " + tab.total + ", by gain" }));
      var head = ["feature", "threshold", "missing", "G_L", "H_L", "G_R", "H_R", "gain"];
      p.appendChild(h("div", { class: "scroll" }, [h("table", { class: "grid", id: "split-table" }, [
        h("thead", {}, [h("tr", {}, head.map(function (c) { return h("th", { text: c }); }))]),
        h("tbody", {}, tab.rows.map(function (r) {
          var cells = [r[0], r[1], r[2] ? "left" : "right"].concat(r.slice(3, 8).map(T));
          return h("tr", { class: r[8] ? "chosen" : "" }, cells.map(function (c, j) {
            return h("td", { text: j === 0 && r[8] ? "★ " + c : c });
          }));
        }))
      ])]));
    } else if (d.has_trace) {
      p.appendChild(h("p", { class: "hint", text: "Candidate splits of this node are not in the page; in Python: model.trace_.splits(" + tree.round + ", " + i + (d.K > 1 ? ", class_=" + this.cls : "") + ")" }));
    }
  };

  // tg.explain's text, one block per line: a wrapped line keeps its indent, plus a hanging one
  function formula(id, text) {
    return h("div", { class: "formula", id: id }, text.split("\n").map(function (line) {
      var indent = line.length - line.replace(/^ +/, "").length;
      return h("div", { class: "fl", style: "padding-left:" + (indent + 3) + "ch", text: line.slice(indent) });
    }));
  }

  // the rows (of those given) that reached node i of tree ti
  App.prototype.rowsAt = function (ti, i) {
    var tree = this.d.trees[ti], leafOf = this.d.rows.leaf[ti], inside = new Uint8Array(tree.feature.length);
    var stack = [i], out = [];
    while (stack.length) {
      var j = stack.pop();
      inside[j] = 1;
      if (tree.feature[j] >= 0) stack.push(tree.left[j], tree.right[j]);
    }
    for (var r = 0; r < this.d.rows.n; r++) if (inside[leafOf[r]]) out.push(r);
    return out;
  };

  // a row's value of feature fx, as the trees of `tree`'s library read it
  App.prototype.xText = function (fx, v, tree) {
    return valueText(this.d, fx, v, this.d.rows.x_float32 && (!tree || tree.float32));
  };

  // a split in full, on hover: its whole set, or its threshold as stored
  App.prototype.exactText = function (tree, i) {
    if (tree.exact[i] === null) return tree.exact_rule[i];
    return (tree.float32 ? "the float32 " : "") + tree.exact[i] + " exactly";
  };

  // The data in a node: the split feature's values over the rows that reached it, coloured
  // by class (or by target), the threshold marked and the picked row's value on it; a
  // leaf shows its rows' targets.
  App.prototype.nodeData = function (p, tree, i) {
    var d = this.d;
    if (!d.rows) return;
    var rows = this.rowsAt(this.treeIndex(), i), y = d.rows.y, leaf = isLeaf(tree, i);
    var title = (leaf ? "The rows in this leaf: their y" : "The rows that reached it: " + d.features[tree.feature[i]]) + " (" + rows.length + " rows)";
    if (!leaf && !d.rows.X) {
      p.appendChild(h("p", { class: "hint", text: "Feature values are not in the page (too many rows × features)." }));
      return;
    }
    if (leaf && !y) return;
    var vals = [], groups = [], missing = 0;
    rows.forEach(function (r) {
      var v = leaf ? y[r] : d.rows.X[tree.feature[i]][r];
      if (v === null) { missing += 1; return; }
      vals.push(v); groups.push(y ? y[r] : 0);
    });
    var wrap = h("div", { class: "nodedata", id: "node-data" }, [h("h3", { text: title })]);
    if (leaf && d.classifier) { wrap.appendChild(this.classBars(vals)); p.appendChild(wrap); return; }
    if (isSet(tree, i)) {
      var pickCode = this.row !== null && rows.indexOf(this.row) >= 0
        ? catCode(d.rows.X[tree.feature[i]][this.row], d.categories[tree.feature[i]] || []) : null;
      wrap.appendChild(this.catBars(tree, i, pickCode));
      p.appendChild(wrap);
      return;
    }
    var pick = this.row !== null && rows.indexOf(this.row) >= 0 ? (leaf ? y[this.row] : d.rows.X[tree.feature[i]][this.row]) : null;
    wrap.appendChild(this.histogram(vals, groups, leaf ? null : i, pick, leaf, tree));
    if (missing) wrap.appendChild(h("p", { class: "caption", text: missing + " rows with the value missing (they went " + (tree.default_left[i] ? "left" : "right") + ")." }));
    p.appendChild(wrap);
  };

  // A set split in full: the categories of the set (yes, left) and the others (no, right),
  // every one by name, and where missing values go
  App.prototype.setList = function (p, tree, i) {
    var d = this.d, fx = tree.feature[i], names = d.categories[fx] || [], name = d.features[fx];
    var inSet = new Set(tree.sets[String(i)]);
    var others = names.filter(function (c, k) { return !inSet.has(k); });
    p.appendChild(h("p", { class: "rule", title: tree.exact_rule[i], text: "split: " + tree.exact_rule[i] }));
    p.appendChild(h("ul", { class: "set-list", id: "set-list" }, [
      h("li", { "data-side": "yes", text: "yes (left), in the set: " + tree.sets[String(i)].map(function (c) { return names[c] === undefined ? "code " + c : names[c]; }).join(", ") +
        " (" + inSet.size + " of " + names.length + ")" }),
      h("li", { "data-side": "no", text: "no (right): " + (others.length ? others.join(", ") : "none") + " (" + others.length + ")" }),
      h("li", { "data-side": "missing", text: "missing values go " + (tree.default_left[i] ? "left (yes)" : "right (no)") })
    ]));
    p.appendChild(h("p", { class: "caption", text: "A set split asks whether " + name + " is one of the set's categories: it sorts them by their G/(H + λ) and cuts that order as it would cut a number (the formula below)." }));
  };

  // One bar per category of the rows that reached set split i, by name, stacked by class
  // (or coloured by mean y), the set's (yes) above the others; the picked row's marked
  App.prototype.catBars = function (tree, i, pickCode) {
    var self = this, d = this.d, at = this.nodeRows(tree.index)[i], groups = this.catGroups(tree, i, at, 0);
    var list = groups.yes.concat(groups.no), W = 420, rowH = 20, label = 118, gap = 12;
    var mx = Math.max.apply(null, list.map(function (e) { return e.n; }).concat([1]));
    var H = rowH * list.length + (groups.yes.length ? 18 : 0) + (groups.no.length ? 18 : 0) + 4;
    var g = s("svg", { class: "hist cats", id: "cat-bars", viewBox: "0 0 " + W + " " + H, width: "100%", role: "img" });
    var y = 0, bars = W - label - 70;
    [["yes", "yes (left): in the set", groups.yes], ["no", "no (right)", groups.no]].forEach(function (grp) {
      var side = grp[0], list = grp[2];
      if (!list.length) return;
      g.appendChild(s("text", { x: 0, y: y + 13, class: "axis side", text: grp[1] }));
      y += 18;
      list.forEach(function (e) {
        var picked = pickCode !== null && e.code === pickCode;
        var row = s("g", { "data-category": String(e.label), "data-side": side, "data-n": String(e.n), class: picked ? "picked" : "" }, [
          s("title", { text: e.label + ": " + e.n + " rows" + (d.classifier ? " (" + e.counts.map(function (v, k) { return d.classes[k] + " " + v; }).join(", ") + ")" : ", mean y " + N(e.n ? e.sum / e.n : NaN)) })]);
        row.appendChild(s("text", { x: gap, y: y + 14, class: "axis cat-label" + (picked ? " picked" : ""), text: clip(String(e.label), 16) }));
        var x0 = label;
        self.catFills(e).forEach(function (part) {
          if (!part[0]) return;
          var w = Math.max(1, bars * part[0] / mx);
          row.appendChild(s("rect", { x: x0, y: y + 3, width: w, height: rowH - 6, fill: part[1] }));
          x0 += w;
        });
        row.appendChild(s("text", { x: x0 + 6, y: y + 14, class: "axis", text: String(e.n) + (picked ? "  ◀ row " + d.rows.index[self.row] : "") }));
        g.appendChild(row);
        y += rowH;
      });
    });
    return g;
  };

  App.prototype.classBars = function (codes) {
    var d = this.d, n = d.classes.length, c = new Array(n).fill(0), W = 420, rowH = 22;
    codes.forEach(function (k) { c[k] += 1; });
    var mx = Math.max.apply(null, c.concat([1])), label = Math.min(150, 30 + 7.5 * Math.max.apply(null, d.classes.map(function (x) { return String(x).length; })));
    var g = s("svg", { class: "hist", viewBox: "0 0 " + W + " " + (rowH * n + 6), width: "100%", role: "img" });
    c.forEach(function (v, k) {
      g.appendChild(s("text", { x: 0, y: rowH * k + 16, class: "axis", text: "y = " + clip(String(d.classes[k]), 18) }));
      g.appendChild(s("rect", { x: label, y: rowH * k + 4, width: Math.max(1, (W - label - 60) * v / mx), height: rowH - 6, fill: colour(k) }));
      g.appendChild(s("text", { x: label + 6 + (W - label - 60) * v / mx, y: rowH * k + 16, class: "axis", text: String(v) }));
    });
    return g;
  };

  App.prototype.histogram = function (vals, groups, node, pick, leaf, tree) {
    var d = this.d, W = 420, H = 150, L = 34, B = 22, nb = 24;
    var threshold = node === null || typeof tree.threshold[node] !== "number" ? null : tree.threshold[node];
    var lo = Math.min.apply(null, vals.concat(threshold === null ? [] : [threshold]));
    var hi = Math.max.apply(null, vals.concat(threshold === null ? [] : [threshold]));
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
    var K = d.classifier ? d.classes.length : 1, clf = d.classifier && !leaf;
    var bins = binned(vals, groups, lo, hi, nb, d.classifier ? K : 1, d.classifier);
    var mx = 1;
    bins.counts.forEach(function (c) { mx = Math.max(mx, c.reduce(function (a, v) { return a + v; }, 0)); });
    var X = function (v) { return L + (W - L - 8) * (v - lo) / (hi - lo); };
    var Y = function (c) { return H - B - (H - B - 8) * c / mx; };
    var svg = s("svg", { class: "hist", viewBox: "0 0 " + W + " " + (H + 22), width: "100%", role: "img" });
    var yr = this.yRange();
    bins.counts.forEach(function (c, b) {
      var base = 0;
      c.forEach(function (v, k) {
        if (!v) return;
        var fill = d.classifier ? colour(k) : heat((bins.sums[b] / v - yr[0]) / ((yr[1] - yr[0]) || 1));
        if (leaf || !d.rows.y) fill = d.classifier ? fill : "#8da0cb";
        svg.appendChild(s("rect", { x: X(lo + b * bins.width) + 0.5, y: Y(base + v), width: Math.max(1, X(lo + bins.width) - X(lo) - 1), height: Y(base) - Y(base + v), fill: fill }, [
          s("title", { text: v + " rows" + (d.classifier ? " of class " + d.classes[k] : "") })]));
        base += v;
      });
    });
    svg.appendChild(s("line", { x1: L, x2: W - 8, y1: H - B, y2: H - B, class: "axisline" }));
    svg.appendChild(s("text", { x: L, y: H - 4, class: "axis", text: formatNumber(lo, 3) }));
    svg.appendChild(s("text", { x: W - 8, y: H - 4, class: "axis", "text-anchor": "end", text: formatNumber(hi, 3) }));
    svg.appendChild(s("text", { x: L - 4, y: 16, class: "axis", "text-anchor": "end", text: String(mx) }));
    if (threshold !== null) {
      svg.appendChild(s("line", { x1: X(threshold), x2: X(threshold), y1: 4, y2: H - B, class: "threshold" }));
      var right = X(threshold) > W / 2;  // the label on the side with room
      svg.appendChild(s("text", { x: X(threshold) + (right ? -5 : 5), y: 14, class: "axis thr", "text-anchor": right ? "end" : "start", text: tree.op + " " + tree.thr_text[node] + " goes left" }));
    }
    if (pick !== null && pick !== undefined) {
      svg.appendChild(s("path", { d: "M" + X(pick) + "," + (H - B + 2) + " l-7,12 l14,0 z", class: "pickmark" }));
      var left = X(pick) > W / 2;
      svg.appendChild(s("text", { x: X(pick) + (left ? -9 : 9), y: H + 18, class: "axis pickvalue", "text-anchor": left ? "end" : "start",
        text: "row " + d.rows.index[this.row] + ": " + (leaf ? N(pick) : this.xText(tree.feature[node], pick, tree)) }));
    }
    if (d.classifier && d.rows.y) {  // the legend: one colour per class
      d.classes.forEach(function (c, k) {
        svg.appendChild(s("rect", { x: W - 8 - 80 * (d.classes.length - k), y: H + 8, width: 10, height: 10, fill: colour(k) }));
        svg.appendChild(s("text", { x: W - 8 - 80 * (d.classes.length - k) + 13, y: H + 17, class: "axis", text: clip(String(c), 9) }));
      });
    }
    if (!d.classifier && !leaf && d.rows.y) {
      return h("div", {}, [svg, h("p", { class: "caption", text: "Colour: the mean y of a bar's rows, from " + formatNumber(yr[0], 3) + " (blue) to " + formatNumber(yr[1], 3) + " (red)." })]);
    }
    return svg;
  };

  function clip(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }

  App.prototype.rowIds = function () {
    var n = Math.min(this.d.rows.table_rows, this.d.rows.n), out = [];
    for (var r = 0; r < n; r++) out.push(r);
    return out;
  };

  // a header that may break after "_", "[" or "=" (ep_2_leaf_output, 1[y=setosa]), so
  // that columns stay as narrow as their numbers
  function breakable(text) {
    var el = h("span", {});
    text.split(/(?<=[_\[=])/).forEach(function (part, j) {
      if (j) el.appendChild(h("wbr", {}));
      el.appendChild(document.createTextNode(part));
    });
    return el;
  }

  App.prototype.table = function (id, head, body, rowOf) {
    var self = this;
    return h("div", { class: "scroll" }, [h("table", { class: "grid", id: id }, [
      h("thead", {}, [h("tr", {}, head.map(function (c) { return h("th", { "data-col": c }, [breakable(c)]); }))]),
      h("tbody", {}, body.map(function (cells, j) {
        var r = rowOf[j];
        return h("tr", { "data-row": String(r), class: r === self.row ? "picked" : "",
          onclick: function () { self.pick(r); } },
          cells.map(function (c, k) { return h("td", { "data-col": head[k], text: c }); }));
      }))
    ])]);
  };

  // one y per row: the label itself; the 0/1 a classifier's residual uses is its own
  // column, named for what it is (1 when y is the class, one-vs-rest)
  App.prototype.yText = function (r) {
    var d = this.d, y = d.rows.y;
    if (!y) return "";
    return d.classifier ? d.classes[y[r]] : N(y[r]);
  };
  App.prototype.posClass = function () { return this.d.K > 1 ? this.cls : 1; };
  App.prototype.indicatorName = function () { return "1[y=" + this.d.classes[this.posClass()] + "]"; };
  App.prototype.indicator = function (r) {
    var y = this.d.rows.y;
    return y ? (y[r] === this.posClass() ? 1 : 0) : null;
  };

  App.prototype.rowsPanel = function (p) {
    var self = this, d = this.d, t = this.round, k = this.cls;
    var ids = this.rowIds(), hasGH = !!d.rows.g && t > 0, clf = !!d.prob_link, ind = d.classifier && !!d.rows.y;
    var pred = !!d.pred_link;
    var head = ["row", "y"].concat(ind ? [this.indicatorName()] : [], hasGH ? ["g", "h"] : [], t > 0 ? ["leaf"] : [], ["margin"], clf ? ["prob"] : [], pred ? ["prediction"] : []);
    var body = ids.map(function (r) {
      var all = self.margins(r), ms = all ? all[t] : null;
      var cells = [d.rows.index[r], self.yText(r)];
      if (ind) cells.push(String(self.indicator(r)));
      if (hasGH) cells.push(N(d.rows.g[k][t - 1][r]), N(d.rows.h[k][t - 1][r]));
      if (t > 0) cells.push(String(d.rows.leaf[self.treeIndex()][r]));
      cells.push(ms ? N(ms[k]) : "—");  // beyond the rows whose margins the page carries
      if (clf) cells.push(ms ? N(self.probs(ms)[k]) : "—");
      if (pred) cells.push(ms ? N(self.pred(ms)[0]) : "—");
      return cells;
    });
    var after = "margin" + (clf ? " and prob are" : pred ? " and prediction (" + this.predName() + ") are" : " is");
    var what = t === 0 ? "Round 0: every row at the base score." :
      "Round " + t + ": after " + this.tree().label + "." + (hasGH ? " g and h are what it was grown from (at round " + (t - 1) + "'s margin);" : "") +
      " leaf is where each row lands in it; " + after + " after it (as in the Row tab).";
    p.appendChild(h("p", { class: "caption", text: what + (ind ? " " + this.indicatorName() + " is 1 when y is class " + d.classes[this.posClass()] + " (one-vs-rest), the y of g = p − y." : "") }));
    if (!hasGH && t > 0) p.appendChild(h("p", { class: "hint", text: d.has_trace ? "g and h are shown for the training rows." : "No g and h: this model has no training trace." }));
    p.appendChild(this.table("rows-table", head, body, ids));
  };

  // Seed 004's table at round t: its columns (as trace_.epochs names them) and, per row,
  // the cells
  App.prototype.epochColumns = function () {
    var self = this, d = this.d, t = this.round, k = this.cls;
    var clf = !!d.prob_link, ind = d.classifier && !!d.rows.y;
    var cols = [["y", function (r) { return self.yText(r); }]];
    if (ind) cols.push([this.indicatorName(), function (r) { return String(self.indicator(r)); }]);
    var a = "ep_" + (t === 0 ? 0 : t - 1) + "_";
    // a margin of round u, its probability: "—" beyond the rows whose margins the page has
    var pre = function (r, u) { var all = self.margins(r); return all ? N(all[u][k]) : "—"; };
    var prob = function (r, u) { var all = self.margins(r); return all ? N(self.probs(all[u])[k]) : "—"; };
    var u0 = t === 0 ? 0 : t - 1;
    cols.push([a + "pre", function (r) { return pre(r, u0); }]);
    if (clf) cols.push([a + "prob", function (r) { return prob(r, u0); }]);
    if (t === 0) return cols;
    var b = "ep_" + t + "_", tree = this.tree(), ti = this.treeIndex();
    cols.push([b + "residual", function (r) {
      var all = self.margins(r);
      if (!d.rows.y || !all) return d.rows.y ? "—" : "";
      var yv = d.classifier ? self.indicator(r) : d.rows.y[r];  // as trace_.epochs()
      return N(yv - self.predicted(all[u0])[k]);
    }]);
    cols.push([b + "leaf_index", function (r) { return String(d.rows.leaf[ti][r]); }]);
    cols.push([b + "leaf_output", function (r) { return T(tree.weight[d.rows.leaf[ti][r]]); }]);
    cols.push([b + "pre", function (r) { return pre(r, t); }]);
    if (clf) cols.push([b + "prob", function (r) { return prob(r, t); }]);
    return cols;
  };

  App.prototype.epochsPanel = function (p) {
    var self = this, d = this.d, t = this.round, ids = this.rowIds(), clf = !!d.prob_link;
    var cols = this.epochColumns();
    var what = t === 0 ? "Seed 004's table at epoch 0: the starting log(odds)" + (clf ? " and probability." : ".")
      : "Seed 004's table, epoch " + t + " (" + this.tree().label + "): residual = " + (d.classifier ? this.indicatorName() : "y") + " − " + (clf ? "prob" : d.pred_link ? this.predName("pre") : "pre") +
        " of epoch " + (t - 1) + "; leaf_output is w* (before the learning rate η); pre = previous pre + η·leaf_output.";
    p.appendChild(h("p", { class: "caption", text: what }));
    if (ids.length <= TRANSPOSE_ROWS) {  // one column per row of data: every column fits
      var head = ["row"].concat(ids.map(function (r) { return d.rows.index[r]; }));
      var tbl = h("table", { class: "grid transposed", id: "epochs-table" }, [
        h("thead", {}, [h("tr", {}, head.map(function (c, j) {
          var r = ids[j - 1];
          return h("th", j ? { "data-row": String(r), class: r === self.row ? "picked" : "", onclick: function () { self.pick(r); } } : {}, [document.createTextNode(c)]);
        }))]),
        h("tbody", {}, cols.map(function (c) {
          return h("tr", { "data-col": c[0] }, [h("th", {}, [breakable(c[0])])].concat(ids.map(function (r) {
            return h("td", { "data-row": String(r), class: r === self.row ? "picked" : "", text: c[1](r) });
          })));
        }))
      ]);
      p.appendChild(h("div", { class: "scroll" }, [tbl]));
      return;
    }
    var body = ids.map(function (r) { return [d.rows.index[r]].concat(cols.map(function (c) { return c[1](r); })); });
    var tbl = this.table("epochs-table", ["row"].concat(cols.map(function (c) { return c[0]; })), body, ids);
    tbl.firstChild.classList.add("compact");
    p.appendChild(tbl);
  };

  App.prototype.rowPanel = function (p) {
    var self = this, d = this.d, r = this.row;
    if (r === null) {
      p.appendChild(h("p", { class: "hint", text: "Pick a row: click it in the Rows table, or type its number above. Its path is then marked in every tree." }));
      return;
    }
    var yline = d.rows.y ? ":  y = " + this.yText(r) + (d.classifier ? "  (" + this.indicatorName() + " = " + this.indicator(r) + ")" : "") : "";
    p.appendChild(h("h2", { id: "row-title", text: "Row " + d.rows.index[r] + yline }));
    var tree = this.tree(), k = this.cls;
    if (tree) {
      var ti = this.treeIndex(), path = pathTo(tree, d.rows.leaf[ti][r]), steps = [];
      for (var j = 0; j + 1 < path.length; j++) {
        var a = path[j], yes = path[j + 1] === tree.left[a], fx = tree.feature[a];
        var v = d.rows.X ? d.rows.X[fx][r] : undefined;
        var shown = v === undefined ? "" : " (" + d.features[fx] + " = " + this.xText(fx, v, tree) + ")";
        steps.push(h("li", { title: this.exactText(tree, a), text: tree.rule[a] + "?  " + (yes ? "yes" : "no") + shown }));
      }
      var lf = path[path.length - 1];
      var leafText = tree.newton
        ? "leaf " + lf + ": q = " + T(tree.weight[lf]) + " (the refreshed quantile; −G/(H+λ) = " + T(tree.newton[lf]) + ", not used); it adds η·q = "
        : "leaf " + lf + ": w* = " + T(tree.weight[lf]) + " (leaf_output); it adds η·w* = ";
      steps.push(h("li", { id: "row-leaf", text: leafText +
        formatNumber(tree.learning_rate, 6) + " × " + T(tree.weight[lf]) + " = " + T(tree.value[lf]) }));
      p.appendChild(h("h3", { text: "Its path in " + tree.label }));
      p.appendChild(h("ol", { class: "path", id: "row-path", "data-path": path.join(",") }, steps));
    }
    var all = this.margins(r);
    if (!all) {
      p.appendChild(h("p", { class: "hint", text: "The page has the running margins of the first " + d.rows.margin_rows + " rows only; in Python: model.model_.margins_after(X, t)." }));
      return;
    }
    var hasProb = !!d.prob_link, hasPred = !!d.pred_link, W = this.weightName();
    var head = ["round", W, "adds η·" + W, "margin"].concat(hasProb ? ["prob"] : [], hasPred ? ["prediction"] : []);
    var body = all.map(function (ms, t) {
      var i = (t - 1) * d.K + k, tr = d.trees[i], lf = t ? d.rows.leaf[i][r] : null;
      var cells = [String(t), t ? T(tr.weight[lf]) : "", t ? T(tr.value[lf]) : "start", N(ms[k])];
      if (hasProb) cells.push(N(self.probs(ms)[k]));
      if (hasPred) cells.push(N(self.pred(ms)[0]));
      return cells;
    });
    var also = hasProb ? " and probability" : hasPred ? " and prediction (" + this.predName() + ")" : "";
    p.appendChild(h("h3", { text: "Running margin" + also + (d.K > 1 ? " of class " + d.classes[k] : "") + ": round t is after tree t" }));
    var tbl = h("table", { class: "grid", id: "row-margins" }, [
      h("thead", {}, [h("tr", {}, head.map(function (c) { return h("th", { text: c }); }))]),
      h("tbody", {}, body.map(function (cells, t) {
        return h("tr", { class: t === self.round ? "current" : "", "data-round": String(t) }, cells.map(function (c) { return h("td", { text: c }); }));
      }))
    ]);
    p.appendChild(h("div", { class: "scroll" }, [tbl]));
  };

  App.prototype.aboutPanel = function (p) {
    var d = this.d;
    p.appendChild(h("h2", { text: "About this page" }));
    p.appendChild(h("p", { text: d.title }));
    p.appendChild(h("p", { text: d.algorithm + " · " + d.objective + " · " + d.rounds + " rounds" + (d.K > 1 ? " × " + d.K + " classes" : "") }));
    if (d.objective_text) p.appendChild(h("p", { id: "objective", class: "objective", text: "Objective: " + d.objective_text }));
    p.appendChild(h("table", { class: "stats params", id: "params" }, [h("tbody", {}, Object.keys(d.params).map(function (k) {
      return h("tr", {}, [h("th", { text: k }), h("td", { text: d.params[k] })]);
    }))]));
    (d.assumed || []).forEach(function (n) { p.appendChild(h("p", { class: "note assumed-note", text: "Assumed on import: " + n })); });
    (d.notes.concat(d.limits)).forEach(function (n) { p.appendChild(h("p", { class: "note", text: n })); });
    p.appendChild(h("p", { class: "hint", text: "Round t shows the model after tree t (round 0: the base score). Keys: ← → step through the rounds. Drag to pan, " + (EMBEDDED ? "Ctrl + wheel" : "wheel") + " to zoom, Fit shows the whole open tree; Depth opens the tree to a level, + / − on a node folds its subtree; Data puts a chart of its rows in every node; A− / A+ size every text; ⋯ saves the tree as SVG or PNG. Drag the bar left of this panel to widen it. Made by teachgbt; works offline." }));
  };

  // ------------------------------------------------------------ start
  function start() {
    var el = document.getElementById("tg-data");
    var root = h("div", { id: "app" });
    document.body.appendChild(root);
    decode(el).then(function (data) {
      var app = new App(data);
      window.teachgbtExplorer.app = app;
      app.mount(root);
      document.body.setAttribute("data-ready", "1");
      window.teachgbtExplorer.firstPaint = performance.now();
    }).catch(function (err) {
      root.appendChild(h("p", { class: "error", text: "The explorer could not start: " + err.message }));
      throw err;
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
