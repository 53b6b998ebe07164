/* teachgbt explorer: step through the rounds of a boosted model, click its trees.
 *
 * Plain JavaScript, no library, no network. The data (#tg-data) comes from
 * teachgbt/explore/data.py; every number with a formula behind it is computed there.
 * Here we only add leaf values up (the running margin, in the trainer's precision),
 * apply the link (sigmoid or softmax) and draw.
 *
 * window.teachgbtExplorer exposes the pure helpers (formatNumber, layout, pathTo,
 * runningMargins) so that the tests can check them against Python.
 */
(function () {
  "use strict";

  // ------------------------------------------------------------ pure helpers
  // teachgbt._format.format_number: at most p decimals, trailing zeros dropped, never -0;
  // exact ties round half to even, as Python's f"{x:.{p}f}" does
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

  function sigmoid(m) { return 1 / (1 + Math.exp(-m)); }

  function softmax(ms) {
    var mx = Math.max.apply(null, ms), e = ms.map(function (m) { return Math.exp(m - mx); });
    var s = e.reduce(function (a, b) { return a + b; }, 0);
    return e.map(function (v) { return v / s; });
  }

  // Node ids from the root to `node`, root first.
  // A row's value of feature fx as the rules read it: missing, the category a code names
  // (a set split tests codes: categories[c] is code c's name), or the number.
  function valueText(d, fx, v) {
    if (v === null) return "missing";
    var names = d.categories && d.categories[fx];
    if (!names) return formatNumber(v, 6);
    if (v === Math.floor(v) && v >= 0 && v < names.length) return names[v];
    return v === -1 ? "unseen" : "unseen (" + formatNumber(v, 6) + ")";  // -1: a name never seen
  }

  function pathTo(tree, node) {
    var out = [node];
    while (tree.parent[out[0]] >= 0) out.unshift(tree.parent[out[0]]);
    return out;
  }

  // Positions of the visible nodes: leaves (and collapsed nodes) side by side in order,
  // a parent above the middle of its children. Returns {pos: {id: [x, y]}, width, height}.
  function layout(tree, collapsed, dx, dy) {
    var pos = {}, slot = 0, maxDepth = 0;
    function visit(i, depth) {
      maxDepth = Math.max(maxDepth, depth);
      if (tree.feature[i] < 0 || collapsed.has(i)) {
        pos[i] = [slot * dx, depth * dy];
        slot += 1;
        return pos[i][0];
      }
      var a = visit(tree.left[i], depth + 1), b = visit(tree.right[i], depth + 1);
      pos[i] = [(a + b) / 2, depth * dy];
      return pos[i][0];
    }
    visit(0, 0);
    return { pos: pos, width: Math.max(slot - 1, 0) * dx, height: maxDepth * dy };
  }

  function hiddenBelow(tree, i) {
    if (tree.feature[i] < 0) return 0;
    return 2 + hiddenBelow(tree, tree.left[i]) + hiddenBelow(tree, tree.right[i]);
  }

  // Margins of row r before each round: out[t][k] for t = 0..T (t = T: after the last
  // tree), added up as the trainer did (float32 for XGBoost-style models).
  function runningMargins(data, r) {
    var K = data.K, T = data.rounds, f = data.float32 ? Math.fround : function (v) { return v; };
    var m = data.base_margin.map(f), out = [m.slice()];
    for (var t = 1; t <= T; t++) {
      for (var k = 0; k < K; k++) {
        var i = (t - 1) * K + k, tree = data.trees[i];
        m[k] = f(m[k] + f(tree.value[data.rows.leaf[i][r]]));
      }
      out.push(m.slice());
    }
    return out;
  }

  function probs(data, ms) {
    if (!data.classifier) return null;
    if (data.K > 1) return softmax(ms);
    return [sigmoid(ms[0])];
  }

  var helpers = {
    formatNumber: formatNumber, layout: layout, pathTo: pathTo, valueText: valueText,
    runningMargins: runningMargins, sigmoid: sigmoid, softmax: softmax
  };
  window.teachgbtExplorer = helpers;

  // ------------------------------------------------------------ loading
  // leaf ids come as base64 of little-endian uint8/16/32: unpack them into typed arrays
  function unpack(data) {
    if (!data.rows) return data;
    data.rows.leaf = data.rows.leaf.map(function (p) {
      var bin = atob(p.b64), bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      if (p.bytes === 1) return bytes;
      var view = new DataView(bytes.buffer), n = bytes.length / p.bytes;
      var out = p.bytes === 2 ? new Uint16Array(n) : new Uint32Array(n);
      for (var j = 0; j < n; j++) out[j] = p.bytes === 2 ? view.getUint16(2 * j, true) : view.getUint32(4 * j, true);
      return out;
    });
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
    var bin = atob(raw.gzip), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
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

  var PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"];
  // embedded in a notebook's frame: the wheel scrolls the notebook, Ctrl+wheel zooms
  var EMBEDDED = (function () { try { return window.self !== window.top; } catch (e) { return true; } })();

  // as the style sheet's --screen: larger screens (a projector's 1920 × 1080) start larger
  function screenFactor() { return window.innerWidth >= 2400 ? 1.45 : window.innerWidth >= 1600 ? 1.2 : 1; }

  function App(data) {
    this.d = data;
    this.round = 0;       // round t shows the model after tree t; round 0 is the base score
    this.cls = 0;
    this.node = null;
    this.row = null;
    this.tab = "node";
    this.collapsed = {};  // tree index -> Set of collapsed node ids
    this.view = null;     // {s, x, y}: zoom and pan of the tree
    this.orient = "down"; // "down": root on top; "right": root on the left (wide trees)
    this.orientChosen = false;
    this.marginCache = {};
    this.fs = 1;          // the font-size control's factor (× the screen's default)
  }

  App.prototype.treeIndex = function () { return (this.round - 1) * this.d.K + this.cls; };
  App.prototype.tree = function () { return this.round > 0 ? this.d.trees[this.treeIndex()] : null; };

  App.prototype.margins = function (r) {
    if (!(r in this.marginCache)) this.marginCache[r] = runningMargins(this.d, r);
    return this.marginCache[r];
  };

  App.prototype.collapsedOf = function (i) {
    if (!this.collapsed[i]) {  // deep trees open to depth 3
      var tree = this.d.trees[i], set = new Set();
      for (var j = 0; j < tree.feature.length; j++) {
        if (tree.depth[j] === 3 && tree.feature[j] >= 0) set.add(j);
      }
      this.collapsed[i] = set;
    }
    return this.collapsed[i];
  };

  App.prototype.setFont = function (f) {
    this.fs = Math.max(0.7, Math.min(2.2, f));
    document.documentElement.style.setProperty("--fs", String(this.fs));
    this.view = null;
    this.render();
  };

  App.prototype.mount = function (root) {
    var self = this, d = this.d;
    this.slider = h("input", {
      type: "range", min: "0", max: String(d.rounds), value: String(this.round),
      id: "round-slider", "aria-label": "round",
      oninput: function () { self.go(parseInt(self.slider.value, 10)); }
    });
    this.label = h("span", { id: "round-label", "aria-live": "polite" });
    var controls = [
      h("button", { id: "prev", title: "previous round (←)", text: "◀ Prev", onclick: function () { self.go(self.round - 1); } }),
      this.slider,
      h("button", { id: "next", title: "next round (→)", text: "Next ▶", onclick: function () { self.go(self.round + 1); } }),
      this.label
    ];
    if (d.K > 1) {
      this.classSelect = h("select", { id: "class-select", "aria-label": "class",
        onchange: function () { self.cls = parseInt(self.classSelect.value, 10); self.node = null; self.view = null; self.render(); } },
        d.classes.map(function (c, k) { return h("option", { value: String(k), text: "class " + k + (String(c) === String(k) ? "" : ": " + c) }); }));
      controls.push(h("label", { class: "ctl" }, [document.createTextNode("Class "), this.classSelect]));
    }
    if (d.rows) {
      this.rowInput = h("input", { id: "row-input", type: "number", min: "0", max: String(d.rows.n - 1),
        placeholder: "row #", "aria-label": "pick a row",
        onchange: function () {
          var v = self.rowInput.value === "" ? null : parseInt(self.rowInput.value, 10);
          self.pick(v !== null && v >= 0 && v < d.rows.n ? v : null);
        } });
      controls.push(h("label", { class: "ctl" }, [document.createTextNode("Row "), this.rowInput]));
      controls.push(h("button", { id: "clear-row", text: "×", title: "forget the picked row",
        onclick: function () { self.pick(null); } }));
    }
    var header = h("header", {}, [h("h1", { text: d.title, title: d.title }), h("div", { class: "controls" }, controls)]);
    this.svg = s("svg", { id: "tree-svg", role: "img" });
    this.treeBox = h("div", { id: "tree-box" }, [this.svg]);
    this.zoomBar = h("div", { class: "zoombar" }, [
      h("button", { title: "zoom in", text: "+", onclick: function () { self.zoom(1.25); } }),
      h("button", { title: "zoom out", text: "−", onclick: function () { self.zoom(0.8); } }),
      h("button", { title: "fit the tree", text: "Fit", onclick: function () { self.view = null; self.drawTree(); } }),
      h("button", { id: "font-down", title: "smaller text", text: "A−", onclick: function () { self.setFont(self.fs / 1.15); } }),
      h("button", { id: "font-up", title: "larger text (for a projector)", text: "A+", onclick: function () { self.setFont(self.fs * 1.15); } }),
      h("button", { title: "open every node", text: "Open all", onclick: function () { self.collapsed[self.treeIndex()] = new Set(); self.view = null; self.drawTree(); } })
    ]);
    this.orientButton = h("button", { id: "orient", title: "top-down or left-to-right", onclick: function () {
      self.orient = self.orient === "down" ? "right" : "down"; self.orientChosen = true; self.view = null; self.drawTree(); } });
    this.zoomBar.appendChild(this.orientButton);
    if (EMBEDDED) this.zoomBar.appendChild(h("span", { class: "zoomhint", text: "Ctrl + wheel zooms" }));
    this.tabs = h("nav", { class: "tabs", role: "tablist" });
    this.panel = h("div", { id: "panel" });
    var side = h("aside", {}, [this.tabs, this.panel]);
    this.splitter = h("div", { id: "splitter", title: "drag to widen the panel", role: "separator" });
    this.main = h("main", {}, [h("section", { id: "tree-area" }, [this.treeBox, this.zoomBar]), this.splitter, side]);
    root.appendChild(header);
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
    });
    window.addEventListener("resize", function () { self.view = null; self.drawTree(); });
    this.render();
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
      self.main.style.gridTemplateColumns = "minmax(0, 1fr) 8px " + w + "px";
    });
    this.splitter.addEventListener("pointerup", function () { drag = null; self.view = null; self.drawTree(); });
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
    this.view = null;
    if (this.rowInput) this.rowInput.value = r === null ? "" : String(r);
    if (r !== null) {
      this.tab = "row";
      // open the collapsed nodes on its path in every tree
      for (var i = 0; i < this.d.trees.length; i++) {
        if (!this.collapsed[i]) continue;
        var p = pathTo(this.d.trees[i], this.d.rows.leaf[i][r]);
        for (var j = 0; j < p.length; j++) this.collapsed[i].delete(p[j]);
      }
    }
    this.render();
  };

  App.prototype.render = function () {
    var d = this.d;
    this.slider.value = String(this.round);
    this.label.textContent = this.round === 0 ? "Round 0 of " + d.rounds + ": the base score"
      : "Round " + this.round + " of " + d.rounds + ": after " + this.tree().label;
    document.getElementById("prev").disabled = this.round === 0;
    document.getElementById("next").disabled = this.round === d.rounds;
    this.drawTree();
    this.drawTabs();
    this.drawPanel();
  };

  // ------------------------------------------------------------ the tree
  // GBDT classifiers' boxes carry a third line: the two H's (the gain's and w*'s)
  function twoH(d) { return d.algorithm === "gbdt" && d.classifier; }

  App.prototype.boxText = function (tree, i) {
    var leaf = tree.feature[i] < 0, lines;
    if (leaf) {
      lines = ["leaf " + i + ":  " + (tree.value[i] >= 0 ? "+" : "") + num(tree.value[i], 3),
               "n " + count(tree.n[i]) + "  ·  w* " + num(tree.weight[i], 3)];
    } else {
      lines = [tree.rule[i], "n " + count(tree.n[i]) + "  ·  gain " + num(tree.gain[i], 3)];
    }
    if (twoH(this.d)) lines.push("H of gain " + count(tree.n[i]) + "  ·  of w* " + num(tree.H[i], 3));
    return lines;
  };

  // the width of a text in the tree's SVG, as drawn (so that a box fits its rule)
  App.prototype.textWidth = function (text, cls) {
    if (!this.ruler) {
      this.ruler = s("text", { class: "ruler", x: -9999, y: -9999 });
    }
    this.ruler.setAttribute("class", cls);
    this.ruler.textContent = text;
    if (this.ruler.parentNode !== this.svg) this.svg.appendChild(this.ruler);
    var w = this.ruler.getComputedTextLength ? this.ruler.getComputedTextLength() : 0;
    return w || text.length * 9.5;
  };

  App.prototype.drawTree = function () {
    var self = this, svg = this.svg, d = this.d;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var box = this.treeBox.getBoundingClientRect();
    svg.setAttribute("width", box.width);
    svg.setAttribute("height", box.height);
    var tree = this.tree();
    this.orientButton.textContent = this.orient === "down" ? "Lay out ⇨" : "Lay out ⇩";
    if (!tree) { this.drawStart(box); return; }
    var ti = this.treeIndex(), collapsed = this.collapsedOf(ti);
    // every box as wide as the widest text of the tree: a rule is never cut
    var nw = 176, lines = twoH(d) ? 3 : 2, nh = 24 + 22 * lines;
    for (var j = 0; j < tree.feature.length; j++) {
      var tx = this.boxText(tree, j);
      nw = Math.max(nw, this.textWidth(tx[0], "l1") + 28, this.textWidth(tx[1], "l2") + 24);
      if (tx[2]) nw = Math.max(nw, this.textWidth(tx[2], "l2") + 24);
    }
    this.nw = nw; this.nh = nh;
    var spacing = { down: [nw + 20, nh + 54], right: [nh + 18, nw + 50] };
    if (!this.view && !this.orientChosen) {  // top-down when it fits at a readable size
      var wide = layout(tree, collapsed, spacing.down[0], spacing.down[1]).width + nw;
      this.orient = wide * 0.85 <= box.width ? "down" : "right";
    }
    var sp = spacing[this.orient];
    var lay = layout(tree, collapsed, sp[0], sp[1]);
    if (this.orient === "right") {  // the tree's levels run left to right
      Object.keys(lay.pos).forEach(function (j) { var q = lay.pos[j]; lay.pos[j] = [q[1], q[0]]; });
      lay = { pos: lay.pos, width: lay.height, height: lay.width };
    }
    var down = this.orient === "down";
    var onPath = new Set(), path = [];
    if (this.row !== null) { path = pathTo(tree, d.rows.leaf[ti][this.row]); path.forEach(function (j) { onPath.add(j); }); }
    if (!this.view) this.view = this.fit(lay, box, path);
    this.orientButton.textContent = down ? "Lay out ⇨" : "Lay out ⇩";
    var g = s("g", { id: "viewport", transform: this.transform() });
    this.viewport = g;
    svg.appendChild(g);
    var ids = Object.keys(lay.pos).map(Number);
    ids.forEach(function (i) {  // edges first, under the boxes
      if (tree.feature[i] < 0 || collapsed.has(i)) return;
      [[tree.left[i], true], [tree.right[i], false]].forEach(function (c) {
        var a = lay.pos[i], b = lay.pos[c[0]];
        var on = onPath.has(i) && onPath.has(c[0]);
        var p, lx, ly, anchor;
        if (down) {
          var y0 = a[1] + nh / 2, y1 = b[1] - nh / 2, ym = (y0 + y1) / 2;
          p = "M" + a[0] + "," + y0 + " C" + a[0] + "," + ym + " " + b[0] + "," + ym + " " + b[0] + "," + y1;
          lx = (a[0] + b[0]) / 2 + (c[1] ? -6 : 6); ly = ym - 4; anchor = c[1] ? "end" : "start";
        } else {
          var x0 = a[0] + nw / 2, x1 = b[0] - nw / 2, xm = (x0 + x1) / 2;
          p = "M" + x0 + "," + a[1] + " C" + xm + "," + a[1] + " " + xm + "," + b[1] + " " + x1 + "," + b[1];
          lx = x1 - 4; ly = b[1] - nh / 2 - 3; anchor = "end";
        }
        g.appendChild(s("path", { class: "edge" + (on ? " on-path" : ""), d: p }));
        var missing = tree.default_left[i] === c[1] ? ", missing" : "";
        g.appendChild(s("text", {
          class: "edge-label", x: lx, y: ly, "text-anchor": anchor, text: (c[1] ? "yes" : "no") + missing
        }));
      });
    });
    ids.forEach(function (i) { g.appendChild(self.nodeBox(tree, i, lay.pos[i], collapsed, onPath)); });
  };

  App.prototype.nodeBox = function (tree, i, p, collapsed, onPath) {
    var self = this, leaf = tree.feature[i] < 0, nw = this.nw, nh = this.nh;
    var cls = "node " + (leaf ? "leaf" : "split") + (onPath.has(i) ? " on-path" : "") +
      (this.node === i ? " selected" : "");
    var g = s("g", { class: cls, "data-node": String(i), transform: "translate(" + p[0] + "," + p[1] + ")", tabindex: "0" });
    g.appendChild(s("rect", { x: -nw / 2, y: -nh / 2, width: nw, height: nh, rx: 8 }));
    var lines = this.boxText(tree, i);
    var hover = "node " + i + ": " + (leaf ? lines[0] : tree.exact_rule[i] + " (exactly)") + "\n" + lines.slice(1).join("\n");
    g.appendChild(s("title", { text: hover }));
    lines.forEach(function (line, k) {
      g.appendChild(s("text", { class: k === 0 ? "l1" : "l2", y: -nh / 2 + 24 + 22 * k - (k === 0 ? 2 : 0), "text-anchor": "middle", text: line }));
    });
    g.addEventListener("click", function (e) {
      if (self.dragged) return;
      e.stopPropagation();
      self.node = i; self.tab = "node"; self.render();
    });
    g.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { self.node = i; self.tab = "node"; self.render(); e.preventDefault(); }
    });
    if (!leaf) {
      var closed = collapsed.has(i);
      var at = this.orient === "down" ? "translate(0," + (nh / 2 + 2) + ")" : "translate(" + (nw / 2 + 2) + ",0)";
      var toggle = s("g", { class: "toggle", "data-toggle": String(i), transform: at }, [
        s("circle", { r: 10 }),
        s("text", { y: 5, "text-anchor": "middle", text: closed ? "+" : "−" }),
        s("title", { text: closed ? "open this subtree" : "fold this subtree" })
      ]);
      if (closed) toggle.appendChild(s("text", { class: "hidden-count", x: 16, y: 5, text: hiddenBelow(tree, i) + (this.orient === "down" ? " nodes" : "") }));
      toggle.addEventListener("click", function (e) {
        e.stopPropagation();
        if (self.dragged) return;
        if (collapsed.has(i)) collapsed.delete(i); else collapsed.add(i);
        self.drawTree();
      });
      g.appendChild(toggle);
    }
    return g;
  };

  // tg.explain's text, one block per line: a wrapped line keeps its indent, plus a hanging one
  function formula(id, text) {
    return h("div", { class: "formula", id: id }, text.split("\n").map(function (line) {
      var indent = line.length - line.replace(/^ +/, "").length;
      return h("div", { class: "fl", style: "padding-left:" + (indent + 3) + "ch", text: line.slice(indent) });
    }));
  }

  // zoom and pan so the tree fills the area; too big to read whole, it is shown from the
  // root, or from a picked row's leaf, at a readable size (pan for the rest)
  App.prototype.fit = function (lay, box, focus) {
    var nw = this.nw, nh = this.nh, pad = 40;
    var w = lay.width + nw + 2 * pad + (this.orient === "right" ? 40 : 0), hgt = lay.height + nh + 2 * pad + 24;
    var big = this.fs * screenFactor();
    var sc = Math.max(Math.min(1.6 * big, box.width / w, box.height / hgt), 0.75 * big);
    var at = focus && focus.length ? lay.pos[focus[focus.length - 1]] : lay.pos[0];
    var x, y;
    if (this.orient === "right") {
      x = pad + (nw / 2) * sc;
      if (lay.width * sc + nw * sc + 2 * pad > box.width) x = Math.min(x, box.width - pad - (at[0] + nw / 2) * sc);
      y = box.height / 2 - (lay.height / 2) * sc;
      if ((lay.height + nh) * sc + 2 * pad > box.height) y = box.height / 2 - at[1] * sc;
      return { s: sc, x: x, y: y };
    }
    x = box.width / 2 - (lay.width / 2) * sc;
    if ((lay.width + nw) * sc > box.width) x = box.width / 2 - at[0] * sc;
    y = pad + (nh / 2) * sc;
    if ((lay.height + nh) * sc + 2 * pad > box.height) y = Math.min(y, box.height - pad - (at[1] + nh / 2) * sc);
    return { s: sc, x: x, y: y };
  };

  App.prototype.transform = function () {
    var v = this.view;
    return "translate(" + v.x + "," + v.y + ") scale(" + v.s + ")";
  };

  App.prototype.zoom = function (f, cx, cy) {
    if (!this.view) return;
    var box = this.treeBox.getBoundingClientRect(), v = this.view;
    if (cx === undefined) { cx = box.width / 2; cy = box.height / 2; }
    var ns = Math.max(0.2, Math.min(4, v.s * f));
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

  App.prototype.drawStart = function (box) {
    var d = this.d, g = s("g", { transform: "translate(32,48) scale(" + this.fs * screenFactor() + ")", class: "start" });
    g.appendChild(s("text", { class: "start-title", text: "Round 0: before any tree, every row starts here" }));
    d.start.forEach(function (line, j) {
      g.appendChild(s("text", { class: "start-line", y: 44 + j * 30, text: line }));
    });
    g.appendChild(s("text", { class: "start-hint", y: 60 + d.start.length * 30,
      text: d.rounds ? "Next ▶ (or →) goes to round 1: after " + d.trees[this.cls].label + "." : "This model has no trees." }));
    this.svg.appendChild(g);
    this.view = null;
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
  };

  App.prototype.drawPanel = function () {
    var p = this.panel;
    while (p.firstChild) p.removeChild(p.firstChild);
    var f = { node: this.nodePanel, rows: this.rowsPanel, epochs: this.epochsPanel,
              row: this.rowPanel, about: this.aboutPanel }[this.tab] || this.nodePanel;
    f.call(this, p);
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
    var leaf = tree.feature[i] < 0, N = function (v) { return num(v, 4); };
    p.appendChild(h("h2", { id: "node-title", text: tree.label + ", " + (leaf ? "leaf " : "node ") + i }));
    if (!leaf) {
      var exact = tree.exact_rule[i] !== tree.rule[i] ? "   (exactly " + tree.exact_rule[i] + ")" : "";
      p.appendChild(h("p", { class: "rule", title: tree.exact_rule[i], text: "split: " + tree.rule[i] + exact }));
    }
    var stats = [["n", "n", count(tree.n[i])], ["G", "G", N(tree.G[i])]];
    if (twoH(d)) {  // the gain scores a squared-error tree (h = 1 per row); w* is a Newton step
      stats.push(["H_gain", "H in the gain (= n: h = 1 per row)", count(tree.n[i])],
                 ["H", "Σp(1−p): w*'s denominator", N(tree.H[i])]);
    } else {
      stats.push(["H", "H", N(tree.H[i])]);
    }
    stats.push(["w*", "w*", N(tree.weight[i])], ["η·w*", "η·w*", N(tree.value[i])]);
    if (!leaf) stats.push(["gain", "gain", N(tree.gain[i])], ["loss_chg", d.loss_chg_from_file ? "loss_chg (in the file)" : "loss_chg", N(tree.loss_chg[i])]);
    p.appendChild(h("table", { class: "stats", id: "node-stats" }, [h("tbody", {}, stats.map(function (r) {
      return h("tr", { "data-stat": r[0] }, [h("th", { text: r[1] }), h("td", { text: r[2] })]);
    }))]));
    this.nodeData(p, tree, i);
    if (!leaf) p.appendChild(formula("split-formula", tree.split_text[i]));
    p.appendChild(formula("leaf-formula", tree.leaf_text[i]));
    var tab = tree.splits[String(i)];
    if (tab) {
      p.appendChild(h("h3", { text: "Candidate splits: " + tab.rows.length + " best of " + tab.total + ", by gain" }));
      var head = ["feature", "threshold", "missing", "G_L", "H_L", "G_R", "H_R", "gain"];
      p.appendChild(h("div", { class: "scroll" }, [h("table", { class: "grid", id: "split-table" }, [
        h("thead", {}, [h("tr", {}, head.map(function (c) { return h("th", { text: c }); }))]),
        h("tbody", {}, tab.rows.map(function (r) {
          var cells = [r[0], r[1], r[2] ? "left" : "right"].concat(r.slice(3, 8).map(N));
          return h("tr", { class: r[8] ? "chosen" : "" }, cells.map(function (c, j) {
            return h("td", { text: j === 0 && r[8] ? "★ " + c : c });
          }));
        }))
      ])]));
    } else if (d.has_trace) {
      p.appendChild(h("p", { class: "hint", text: "Candidate splits of this node are not in the page; in Python: model.trace_.splits(" + tree.round + ", " + i + (d.K > 1 ? ", class_=" + this.cls : "") + ")" }));
    }
  };

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

  // The data in a node: the split feature's values over the rows that reached it, coloured
  // by class (or by target), the threshold marked and the picked row's value on it; a
  // leaf shows its rows' targets.
  App.prototype.nodeData = function (p, tree, i) {
    var d = this.d;
    if (!d.rows) return;
    var rows = this.rowsAt(this.treeIndex(), i), y = d.rows.y, leaf = tree.feature[i] < 0;
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
    var pick = this.row !== null && rows.indexOf(this.row) >= 0 ? (leaf ? y[this.row] : d.rows.X[tree.feature[i]][this.row]) : null;
    wrap.appendChild(this.histogram(vals, groups, leaf ? null : tree.threshold[i], pick, leaf, tree));
    if (missing) wrap.appendChild(h("p", { class: "caption", text: missing + " rows with the value missing (they went " + (tree.default_left[i] ? "left" : "right") + ")." }));
    p.appendChild(wrap);
  };

  App.prototype.classBars = function (codes) {
    var d = this.d, n = d.classes.length, c = new Array(n).fill(0), W = 420, rowH = 22;
    codes.forEach(function (k) { c[k] += 1; });
    var mx = Math.max.apply(null, c.concat([1]));
    var g = s("svg", { class: "hist", viewBox: "0 0 " + W + " " + (rowH * n + 6), width: "100%", role: "img" });
    c.forEach(function (v, k) {
      g.appendChild(s("text", { x: 0, y: rowH * k + 16, class: "axis", text: "y = " + d.classes[k] }));
      g.appendChild(s("rect", { x: 110, y: rowH * k + 4, width: Math.max(1, (W - 170) * v / mx), height: rowH - 6, fill: PALETTE[k % PALETTE.length] }));
      g.appendChild(s("text", { x: 116 + (W - 170) * v / mx, y: rowH * k + 16, class: "axis", text: String(v) }));
    });
    return g;
  };

  App.prototype.histogram = function (vals, groups, threshold, pick, leaf, tree) {
    var d = this.d, W = 420, H = 150, L = 34, B = 22, bins = 24;
    var lo = Math.min.apply(null, vals.concat(threshold === null ? [] : [threshold]));
    var hi = Math.max.apply(null, vals.concat(threshold === null ? [] : [threshold]));
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
    var width = (hi - lo) / bins, K = d.classifier ? d.classes.length : 1;
    var counts = [], sums = [];
    for (var b = 0; b < bins; b++) { counts.push(new Array(K).fill(0)); sums.push(0); }
    vals.forEach(function (v, j) {
      var b = Math.min(bins - 1, Math.floor((v - lo) / width));
      counts[b][d.classifier ? groups[j] : 0] += 1;
      sums[b] += d.classifier ? 0 : groups[j];
    });
    var mx = 1;
    counts.forEach(function (c) { mx = Math.max(mx, c.reduce(function (a, v) { return a + v; }, 0)); });
    var X = function (v) { return L + (W - L - 8) * (v - lo) / (hi - lo); };
    var Y = function (c) { return H - B - (H - B - 8) * c / mx; };
    var svg = s("svg", { class: "hist", viewBox: "0 0 " + W + " " + (H + 22), width: "100%", role: "img" });
    var ys = d.rows.y && !d.classifier ? Array.prototype.slice.call(d.rows.y).filter(function (v) { return v !== null; }) : [];
    var ylo = ys.length ? Math.min.apply(null, ys) : 0, yhi = ys.length ? Math.max.apply(null, ys) : 1;
    counts.forEach(function (c, b) {
      var base = 0;
      c.forEach(function (v, k) {
        if (!v) return;
        var fill = d.classifier ? PALETTE[k % PALETTE.length] : heat((sums[b] / v - ylo) / ((yhi - ylo) || 1));
        if (leaf || !d.rows.y) fill = d.classifier ? fill : "#8da0cb";
        svg.appendChild(s("rect", { x: X(lo + b * width) + 0.5, y: Y(base + v), width: Math.max(1, X(lo + width) - X(lo) - 1), height: Y(base) - Y(base + v), fill: fill }, [
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
      svg.appendChild(s("text", { x: X(threshold) + (right ? -5 : 5), y: 14, class: "axis thr", "text-anchor": right ? "end" : "start", text: (tree.op || "<") + " " + formatNumber(threshold, 4) + " goes left" }));
    }
    if (pick !== null && pick !== undefined) {
      svg.appendChild(s("path", { d: "M" + X(pick) + "," + (H - B + 2) + " l-7,12 l14,0 z", class: "pickmark" }));
      var left = X(pick) > W / 2;
      svg.appendChild(s("text", { x: X(pick) + (left ? -9 : 9), y: H + 18, class: "axis pickvalue", "text-anchor": left ? "end" : "start", text: "row " + d.rows.index[this.row] + ": " + formatNumber(pick, 4) }));
    }
    if (d.classifier && d.rows.y) {  // the legend: one colour per class
      d.classes.forEach(function (c, k) {
        svg.appendChild(s("rect", { x: W - 8 - 70 * (d.classes.length - k), y: H + 8, width: 10, height: 10, fill: PALETTE[k % PALETTE.length] }));
        svg.appendChild(s("text", { x: W - 8 - 70 * (d.classes.length - k) + 13, y: H + 17, class: "axis", text: clip(String(c), 8) }));
      });
    }
    if (!d.classifier && !leaf && d.rows.y) {
      return h("div", {}, [svg, h("p", { class: "caption", text: "Colour: the mean y of a bar's rows, from " + formatNumber(ylo, 3) + " (blue) to " + formatNumber(yhi, 3) + " (red)." })]);
    }
    return svg;
  };

  function clip(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }

  function heat(t) {  // blue (low target) to red (high)
    t = Math.max(0, Math.min(1, t));
    return "rgb(" + Math.round(59 + 166 * t) + "," + Math.round(111 - 40 * t) + "," + Math.round(182 - 130 * t) + ")";
  }

  App.prototype.rowIds = function () {
    var n = Math.min(this.d.rows.table_rows, this.d.rows.n), out = [];
    for (var r = 0; r < n; r++) out.push(r);
    return out;
  };

  App.prototype.table = function (id, head, body, rowOf) {
    var self = this;
    return h("div", { class: "scroll" }, [h("table", { class: "grid", id: id }, [
      h("thead", {}, [h("tr", {}, head.map(function (c) { return h("th", { text: c }); }))]),
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
    return d.classifier ? d.classes[y[r]] : formatNumber(y[r], 4);
  };
  App.prototype.posClass = function () { return this.d.K > 1 ? this.cls : 1; };
  App.prototype.indicatorName = function () { return "1[y=" + this.d.classes[this.posClass()] + "]"; };
  App.prototype.indicator = function (r) {
    var y = this.d.rows.y;
    return y ? (y[r] === this.posClass() ? 1 : 0) : null;
  };

  App.prototype.rowsPanel = function (p) {
    var self = this, d = this.d, t = this.round, k = this.cls, N = function (v) { return num(v, 4); };
    var ids = this.rowIds(), hasGH = !!d.rows.g && t > 0, clf = d.classifier, ind = clf && !!d.rows.y;
    var head = ["row", "y"].concat(ind ? [this.indicatorName()] : [], hasGH ? ["g", "h"] : [], t > 0 ? ["leaf"] : [], ["margin"], clf ? ["prob"] : []);
    var body = ids.map(function (r) {
      var ms = self.margins(r)[t], pr = probs(d, ms);
      var cells = [d.rows.index[r], self.yText(r)];
      if (ind) cells.push(String(self.indicator(r)));
      if (hasGH) cells.push(N(d.rows.g[k][t - 1][r]), N(d.rows.h[k][t - 1][r]));
      if (t > 0) cells.push(String(d.rows.leaf[self.treeIndex()][r]));
      cells.push(N(ms[k]));
      if (clf) cells.push(N(pr[k]));
      return cells;
    });
    var what = t === 0 ? "Round 0: every row at the base score." :
      "Round " + t + ": after " + this.tree().label + "." + (hasGH ? " g and h are what it was grown from (at round " + (t - 1) + "'s margin);" : "") +
      " leaf is where each row lands in it; margin" + (clf ? " and prob are" : " is") + " after it (as in the Row tab).";
    p.appendChild(h("p", { class: "caption", text: what + (ind ? " " + this.indicatorName() + " is 1 when y is class " + d.classes[this.posClass()] + " (one-vs-rest), the y of g = p − y." : "") }));
    if (!hasGH && t > 0) p.appendChild(h("p", { class: "hint", text: d.has_trace ? "g and h are shown for the training rows." : "No g and h: this model has no training trace." }));
    p.appendChild(this.table("rows-table", head, body, ids));
  };

  App.prototype.epochsPanel = function (p) {
    var self = this, d = this.d, t = this.round, k = this.cls, N = function (v) { return num(v, 4); };
    var ids = this.rowIds(), clf = d.classifier, ind = clf && !!d.rows.y, yh = ["row", "y"].concat(ind ? [this.indicatorName()] : []);
    var yCells = function (r) { return [d.rows.index[r], self.yText(r)].concat(ind ? [String(self.indicator(r))] : []); };
    if (t === 0) {
      var head0 = yh.concat(["ep_0_pre"], clf ? ["ep_0_prob"] : []);
      p.appendChild(h("p", { class: "caption", text: "Seed 004's table at epoch 0: the starting log(odds)" + (clf ? " and probability." : ".") }));
      p.appendChild(this.table("epochs-table", head0, ids.map(function (r) {
        var ms = self.margins(r)[0], pr = probs(d, ms);
        return yCells(r).concat([N(ms[k])], clf ? [N(pr[k])] : []);
      }), ids));
      return;
    }
    var a = "ep_" + (t - 1) + "_", b = "ep_" + t + "_";
    var head = yh.concat([a + "pre"], clf ? [a + "prob"] : [], [b + "residual", b + "leaf_index", b + "leaf_output", b + "pre"], clf ? [b + "prob"] : []);
    var tree = this.tree(), ti = this.treeIndex();
    var body = ids.map(function (r) {
      var all = self.margins(r), m0 = all[t - 1], m1 = all[t], p0 = probs(d, m0), p1 = probs(d, m1);
      var yv = d.rows.y ? (clf ? self.indicator(r) : d.rows.y[r]) : null;
      var before = clf ? p0[k] : m0[k], leaf = d.rows.leaf[ti][r];
      var cells = yCells(r).concat([N(m0[k])]);
      if (clf) cells.push(N(p0[k]));
      cells.push(yv === null ? "" : N(yv - before), String(leaf), N(tree.weight[leaf]), N(m1[k]));
      if (clf) cells.push(N(p1[k]));
      return cells;
    });
    p.appendChild(h("p", { class: "caption", text: "Seed 004's table, epoch " + t + " (" + tree.label + "): residual = " + (clf ? this.indicatorName() + " − prob" : "y − pre") + " of epoch " + (t - 1) + "; leaf_output is w* (before the learning rate η); pre = previous pre + η·leaf_output." }));
    p.appendChild(this.table("epochs-table", head, body, ids));
  };

  App.prototype.rowPanel = function (p) {
    var self = this, d = this.d, r = this.row, N = function (v) { return num(v, 4); };
    if (r === null) {
      p.appendChild(h("p", { class: "hint", text: "Pick a row: click it in the Rows table, or type its number above. Its path is then marked in every tree." }));
      return;
    }
    var yline = d.rows.y ? ":  y = " + this.yText(r) + (d.classifier ? "  (" + this.indicatorName() + " = " + this.indicator(r) + ")" : "") : "";
    p.appendChild(h("h2", { id: "row-title", text: "Row " + d.rows.index[r] + yline }));
    var tree = this.tree();
    if (tree) {
      var ti = this.treeIndex(), path = pathTo(tree, d.rows.leaf[ti][r]);
      var steps = [];
      for (var j = 0; j + 1 < path.length; j++) {
        var a = path[j], yes = path[j + 1] === tree.left[a], fx = tree.feature[a];
        var v = d.rows.X ? d.rows.X[fx][r] : undefined;
        var shown = v === undefined ? "" : " (" + d.features[fx] + " = " + valueText(d, fx, v) + ")";
        steps.push(h("li", { title: tree.exact_rule[a], text: tree.rule[a] + "?  " + (yes ? "yes" : "no") + shown }));
      }
      var lf = path[path.length - 1];
      steps.push(h("li", { text: "leaf " + lf + ": adds η·w* = " + N(tree.value[lf]) }));
      p.appendChild(h("h3", { text: "Its path in " + tree.label }));
      p.appendChild(h("ol", { class: "path", id: "row-path", "data-path": path.join(",") }, steps));
    }
    var all = this.margins(r), k = this.cls;
    var head = ["round", "adds", "margin"].concat(d.classifier ? ["prob"] : []);
    var body = all.map(function (ms, t) {
      var add = t === 0 ? "start" : N(d.trees[(t - 1) * d.K + k].value[d.rows.leaf[(t - 1) * d.K + k][r]]);
      var cells = [String(t), add, N(ms[k])];
      if (d.classifier) cells.push(N(probs(d, ms)[k]));
      return cells;
    });
    p.appendChild(h("h3", { text: "Running margin" + (d.classifier ? " and probability" : "") + (d.K > 1 ? " of class " + d.classes[k] : "") + ": round t is after tree t" }));
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
    p.appendChild(h("p", { text: d.algorithm + " · " + d.objective + " · " + d.rounds + " rounds" + (d.K > 1 ? " × " + d.K + " classes" : "") }));
    p.appendChild(h("table", { class: "stats params", id: "params" }, [h("tbody", {}, Object.keys(d.params).map(function (k) {
      return h("tr", {}, [h("th", { text: k }), h("td", { text: d.params[k] })]);
    }))]));
    (d.assumed || []).forEach(function (n) { p.appendChild(h("p", { class: "note assumed-note", text: "Assumed on import: " + n })); });
    (d.notes.concat(d.limits)).forEach(function (n) { p.appendChild(h("p", { class: "note", text: n })); });
    p.appendChild(h("p", { class: "hint", text: "Round t shows the model after tree t (round 0: the base score). Keys: ← → step through the rounds. Drag to pan, " + (EMBEDDED ? "Ctrl + wheel" : "wheel") + " to zoom, + / − folds a subtree, A− / A+ sizes the text; drag the bar left of this panel to widen it. Made by teachgbt; works offline." }));
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
