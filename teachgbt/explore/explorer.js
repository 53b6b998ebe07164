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
    formatNumber: formatNumber, layout: layout, pathTo: pathTo,
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
  function App(data) {
    this.d = data;
    this.round = data.rounds > 0 ? 1 : 0;
    this.cls = 0;
    this.node = null;
    this.row = null;
    this.tab = "node";
    this.page = 0;
    this.collapsed = {};  // tree index -> Set of collapsed node ids
    this.view = null;     // {s, x, y}: zoom and pan of the tree
    this.orient = "down"; // "down": root on top; "right": root on the left (wide trees)
    this.orientChosen = false;
    this.marginCache = {};
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
        d.classes.map(function (c, k) { return h("option", { value: String(k), text: "class " + c }); }));
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
    var header = h("header", {}, [h("h1", { text: d.title }), h("div", { class: "controls" }, controls)]);
    this.svg = s("svg", { id: "tree-svg", role: "img" });
    this.treeBox = h("div", { id: "tree-box" }, [this.svg]);
    this.zoomBar = h("div", { class: "zoombar" }, [
      h("button", { title: "zoom in", text: "+", onclick: function () { self.zoom(1.25); } }),
      h("button", { title: "zoom out", text: "−", onclick: function () { self.zoom(0.8); } }),
      h("button", { title: "fit the tree", text: "Fit", onclick: function () { self.view = null; self.drawTree(); } }),
      h("button", { title: "open every node", text: "Open all", onclick: function () { self.collapsed[self.treeIndex()] = new Set(); self.view = null; self.drawTree(); } })
    ]);
    this.orientButton = h("button", { id: "orient", title: "top-down or left-to-right", onclick: function () {
      self.orient = self.orient === "down" ? "right" : "down"; self.orientChosen = true; self.view = null; self.drawTree(); } });
    this.zoomBar.appendChild(this.orientButton);
    this.tabs = h("nav", { class: "tabs", role: "tablist" });
    this.panel = h("div", { id: "panel" });
    var side = h("aside", {}, [this.tabs, this.panel]);
    var main = h("main", {}, [h("section", { id: "tree-area" }, [this.treeBox, this.zoomBar]), side]);
    root.appendChild(header);
    root.appendChild(main);
    this.bindPanZoom();
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" && e.target.type !== "range" || tag === "SELECT") return;
      if (e.key === "ArrowLeft") { self.go(self.round - 1); e.preventDefault(); }
      if (e.key === "ArrowRight") { self.go(self.round + 1); e.preventDefault(); }
    });
    window.addEventListener("resize", function () { self.view = null; self.drawTree(); });
    this.render();
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
    var text = this.round === 0 ? "Round 0 of " + d.rounds + ": the base score"
      : "Round " + this.round + " of " + d.rounds + ": tree " + this.round +
        (d.K > 1 ? " of class " + d.classes[this.cls] : "");
    this.label.textContent = text;
    document.getElementById("prev").disabled = this.round === 0;
    document.getElementById("next").disabled = this.round === d.rounds;
    this.drawTree();
    this.drawTabs();
    this.drawPanel();
  };

  // ------------------------------------------------------------ the tree
  var NODE_W = 176, NODE_H = 58;
  // spacing: across (between neighbours) and down (between levels), per orientation
  var SPACING = { down: [NODE_W + 20, 112], right: [NODE_H + 18, NODE_W + 74] };

  App.prototype.drawTree = function () {
    var self = this, svg = this.svg, d = this.d;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var box = this.treeBox.getBoundingClientRect();
    svg.setAttribute("width", box.width);
    svg.setAttribute("height", box.height);
    var tree = this.tree();
    if (!tree) { this.drawStart(box); return; }
    var ti = this.treeIndex(), collapsed = this.collapsedOf(ti);
    if (!this.view && !this.orientChosen) {  // top-down when it fits at a readable size
      var wide = layout(tree, collapsed, SPACING.down[0], SPACING.down[1]).width + NODE_W;
      this.orient = wide * 0.85 <= box.width ? "down" : "right";
    }
    var sp = SPACING[this.orient];
    var lay = layout(tree, collapsed, sp[0], sp[1]);
    if (this.orient === "right") {  // the tree's levels run left to right
      Object.keys(lay.pos).forEach(function (j) { var q = lay.pos[j]; lay.pos[j] = [q[1], q[0]]; });
      lay = { pos: lay.pos, width: lay.height, height: lay.width };
    }
    var down = this.orient === "down";
    var onPath = new Set();
    if (this.row !== null) pathTo(tree, d.rows.leaf[ti][this.row]).forEach(function (j) { onPath.add(j); });
    if (!this.view) this.view = this.fit(lay, box, Array.from(onPath));
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
        var path, lx, ly, anchor;
        if (down) {
          var y0 = a[1] + NODE_H / 2, y1 = b[1] - NODE_H / 2, ym = (y0 + y1) / 2;
          path = "M" + a[0] + "," + y0 + " C" + a[0] + "," + ym + " " + b[0] + "," + ym + " " + b[0] + "," + y1;
          lx = (a[0] + b[0]) / 2 + (c[1] ? -6 : 6); ly = ym - 4; anchor = c[1] ? "end" : "start";
        } else {
          var x0 = a[0] + NODE_W / 2, x1 = b[0] - NODE_W / 2, xm = (x0 + x1) / 2;
          path = "M" + x0 + "," + a[1] + " C" + xm + "," + a[1] + " " + xm + "," + b[1] + " " + x1 + "," + b[1];
          lx = x1 - 4; ly = b[1] - NODE_H / 2 - 3; anchor = "end";
        }
        g.appendChild(s("path", { class: "edge" + (on ? " on-path" : ""), d: path }));
        var missing = tree.default_left[i] === c[1] ? ", missing" : "";
        g.appendChild(s("text", {
          class: "edge-label", x: lx, y: ly, "text-anchor": anchor, text: (c[1] ? "yes" : "no") + missing
        }));
      });
    });
    ids.forEach(function (i) { g.appendChild(self.nodeBox(tree, i, lay.pos[i], collapsed, onPath)); });
  };

  App.prototype.nodeBox = function (tree, i, p, collapsed, onPath) {
    var self = this, leaf = tree.feature[i] < 0;
    var cls = "node " + (leaf ? "leaf" : "split") + (onPath.has(i) ? " on-path" : "") +
      (this.node === i ? " selected" : "");
    var g = s("g", { class: cls, "data-node": String(i), transform: "translate(" + p[0] + "," + p[1] + ")", tabindex: "0" });
    g.appendChild(s("rect", { x: -NODE_W / 2, y: -NODE_H / 2, width: NODE_W, height: NODE_H, rx: 8 }));
    var line1, line2;
    if (leaf) {
      line1 = "leaf " + i + ":  " + (tree.value[i] >= 0 ? "+" : "") + formatNumber(tree.value[i], 3);
      line2 = "n " + tree.n[i] + "  ·  w* " + formatNumber(tree.weight[i], 3);
    } else {
      line1 = tree.short_rule[i];
      line2 = "n " + tree.n[i] + "  ·  gain " + formatNumber(tree.gain[i], 3);
    }
    var t1 = s("text", { class: "l1" + (line1.length > 16 ? " long" : ""), y: -5, "text-anchor": "middle", text: clip(line1, 25) });
    var t2 = s("text", { class: "l2", y: 17, "text-anchor": "middle", text: clip(line2, 24) });
    g.appendChild(s("title", { text: "node " + i + ": " + (leaf ? line1 : tree.rule[i]) + "\n" + line2 }));
    g.appendChild(t1);
    g.appendChild(t2);
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
      var at = this.orient === "down" ? "translate(0," + (NODE_H / 2 + 2) + ")" : "translate(" + (NODE_W / 2 + 2) + ",0)";
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

  function clip(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }

  App.prototype.fit = function (lay, box, focus) {
    var pad = 40, w = lay.width + NODE_W + 2 * pad + (this.orient === "right" ? 40 : 0), hgt = lay.height + NODE_H + 2 * pad + 24;
    var sc = Math.min(1.3, box.width / w, box.height / hgt);
    sc = Math.max(sc, 0.7);  // never smaller than readable on a projector: pan instead
    var root = lay.pos[0];
    if (this.orient === "right") {
      var y = box.height / 2 - (lay.height / 2) * sc;
      if ((lay.height + NODE_H) * sc + 2 * pad > box.height) {  // too tall: centre the root,
        var ys = focus && focus.length ? focus.map(function (j) { return lay.pos[j][1]; }) : [root[1]];
        var mid = ys.reduce(function (a, b) { return a + b; }, 0) / ys.length;  // or the row's path
        y = box.height / 2 - mid * sc;
      }
      return { s: sc, x: pad + (NODE_W / 2) * sc, y: y };
    }
    var x = box.width / 2 - (lay.width / 2) * sc;
    if (lay.width * sc + NODE_W * sc > box.width) x = box.width / 2 - root[0] * sc;  // centre the root
    return { s: sc, x: x, y: pad + (NODE_H / 2) * sc };
  };

  App.prototype.transform = function () {
    var v = this.view;
    return "translate(" + v.x + "," + v.y + ") scale(" + v.s + ")";
  };

  App.prototype.zoom = function (f, cx, cy) {
    if (!this.view) return;
    var box = this.treeBox.getBoundingClientRect(), v = this.view;
    if (cx === undefined) { cx = box.width / 2; cy = box.height / 2; }
    var ns = Math.max(0.2, Math.min(3, v.s * f));
    v.x = cx - (cx - v.x) * ns / v.s;
    v.y = cy - (cy - v.y) * ns / v.s;
    v.s = ns;
    if (this.viewport) this.viewport.setAttribute("transform", this.transform());
  };

  App.prototype.bindPanZoom = function () {
    var self = this, start = null;
    this.svg.addEventListener("wheel", function (e) {
      if (!self.view) return;
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
    var d = this.d, g = s("g", { transform: "translate(32,48)", class: "start" });
    g.appendChild(s("text", { class: "start-title", text: "Round 0: before any tree, every row starts here" }));
    d.start.forEach(function (line, j) {
      g.appendChild(s("text", { class: "start-line", y: 44 + j * 30, text: line }));
    });
    g.appendChild(s("text", { class: "start-hint", y: 60 + d.start.length * 30,
      text: d.rounds ? "Next ▶ (or →) adds tree 1." : "This model has no trees." }));
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
      p.appendChild(h("p", { class: "hint", text: "Round 0 has no tree. Press Next ▶ or → to add tree 1, then click a node." }));
      return;
    }
    if (i === null) {
      p.appendChild(h("p", { class: "hint", text: "Click a node of the tree to see its n, G, H, w*, gain and the formulas with its numbers." }));
      return;
    }
    var leaf = tree.feature[i] < 0, N = function (v) { return formatNumber(v, 4); };
    p.appendChild(h("h2", { id: "node-title", text: "Tree " + this.round + (d.K > 1 ? " (class " + d.classes[this.cls] + ")" : "") + ", " + (leaf ? "leaf " : "node ") + i }));
    if (!leaf) p.appendChild(h("p", { class: "rule", text: "split: " + tree.rule[i] }));
    var stats = [["n", String(tree.n[i])], ["G", N(tree.G[i])], ["H", N(tree.H[i])], ["w*", N(tree.weight[i])], ["η·w*", N(tree.value[i])]];
    if (!leaf) stats.push(["gain", N(tree.gain[i])], ["loss_chg", N(tree.loss_chg[i])]);
    p.appendChild(h("table", { class: "stats", id: "node-stats" }, [h("tbody", {}, stats.map(function (r) {
      return h("tr", { "data-stat": r[0] }, [h("th", { text: r[0] }), h("td", { text: r[1] })]);
    }))]));
    if (!leaf) p.appendChild(formula("split-formula", tree.split_text[i]));
    p.appendChild(formula("leaf-formula", tree.leaf_text[i]));
    var tab = tree.splits[String(i)];
    if (tab) {
      p.appendChild(h("h3", { text: "Candidate splits: " + tab.rows.length + " best of " + tab.total + ", by gain" }));
      var head = ["feature", "threshold", "missing", "G_L", "H_L", "G_R", "H_R", "gain"];
      p.appendChild(h("table", { class: "grid", id: "split-table" }, [
        h("thead", {}, [h("tr", {}, head.map(function (c) { return h("th", { text: c }); }))]),
        h("tbody", {}, tab.rows.map(function (r) {
          var cells = [r[0], r[1], r[2] ? "left" : "right"].concat(r.slice(3, 8).map(N));
          return h("tr", { class: r[8] ? "chosen" : "" }, cells.map(function (c, j) {
            return h("td", { text: j === 0 && r[8] ? "★ " + c : c });
          }));
        }))
      ]));
    } else if (d.has_trace) {
      p.appendChild(h("p", { class: "hint", text: "Candidate splits of this node are not in the page; in Python: model.trace_.splits(" + this.round + ", " + i + (d.K > 1 ? ", class_=" + this.cls : "") + ")" }));
    }
  };

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

  App.prototype.yText = function (r) {
    var d = this.d, y = d.rows.y;
    if (!y) return "";
    if (!d.classifier) return formatNumber(y[r], 4);
    return d.K > 1 ? (y[r] === this.cls ? "1" : "0") : String(y[r]);
  };

  App.prototype.rowsPanel = function (p) {
    var self = this, d = this.d, t = this.round, k = this.cls, N = function (v) { return formatNumber(v, 4); };
    var ids = this.rowIds(), hasGH = !!d.rows.g && t > 0;
    var head = ["row", "y", "margin", d.classifier ? "prob" : null, hasGH ? "g" : null, hasGH ? "h" : null, t > 0 ? "leaf" : null].filter(Boolean);
    var body = ids.map(function (r) {
      var ms = self.margins(r)[Math.max(t - 1, 0)], pr = probs(d, ms);
      var cells = [d.rows.index[r], self.yText(r), N(ms[k])];
      if (d.classifier) cells.push(N(pr[k]));
      if (hasGH) cells.push(N(d.rows.g[k][t - 1][r]), N(d.rows.h[k][t - 1][r]));
      if (t > 0) cells.push(String(d.rows.leaf[self.treeIndex()][r]));
      return cells;
    });
    var what = t === 0 ? "Round 0: every row at the base score." :
      "Round " + t + ": margin and probability before tree " + t + (hasGH ? ", the g and h it is grown from" : "") + ", and the leaf each row reaches.";
    p.appendChild(h("p", { class: "caption", text: what + (d.classifier && d.K === 1 ? " y = 1 is class " + d.classes[1] + "." : "") }));
    if (!hasGH && t > 0) p.appendChild(h("p", { class: "hint", text: d.has_trace ? "g and h are shown for the training rows." : "No g and h: this model has no training trace." }));
    p.appendChild(this.table("rows-table", head, body, ids));
  };

  App.prototype.epochsPanel = function (p) {
    var self = this, d = this.d, t = this.round, k = this.cls, N = function (v) { return formatNumber(v, 4); };
    var ids = this.rowIds(), clf = d.classifier;
    if (t === 0) {
      var head0 = ["row", "y", "ep_0_pre"].concat(clf ? ["ep_0_prob"] : []);
      p.appendChild(h("p", { class: "caption", text: "Seed 004's table at epoch 0: the starting log(odds)" + (clf ? " and probability." : ".") }));
      p.appendChild(this.table("epochs-table", head0, ids.map(function (r) {
        var ms = self.margins(r)[0], pr = probs(d, ms);
        return [d.rows.index[r], self.yText(r), N(ms[k])].concat(clf ? [N(pr[k])] : []);
      }), ids));
      return;
    }
    var a = "ep_" + (t - 1) + "_", b = "ep_" + t + "_";
    var head = ["row", "y", a + "pre"].concat(clf ? [a + "prob"] : [], [b + "residual", b + "leaf_index", b + "leaf_output", b + "pre"], clf ? [b + "prob"] : []);
    var tree = this.tree(), ti = this.treeIndex();
    var body = ids.map(function (r) {
      var all = self.margins(r), m0 = all[t - 1], m1 = all[t], p0 = probs(d, m0), p1 = probs(d, m1);
      var yv = d.rows.y ? (clf ? (d.K > 1 ? (d.rows.y[r] === k ? 1 : 0) : d.rows.y[r]) : d.rows.y[r]) : null;
      var before = clf ? p0[k] : m0[k], leaf = d.rows.leaf[ti][r];
      var cells = [d.rows.index[r], self.yText(r), N(m0[k])];
      if (clf) cells.push(N(p0[k]));
      cells.push(yv === null ? "" : N(yv - before), String(leaf), N(tree.weight[leaf]), N(m1[k]));
      if (clf) cells.push(N(p1[k]));
      return cells;
    });
    p.appendChild(h("p", { class: "caption", text: "Seed 004's table, epoch " + t + ": residual = y − " + (clf ? "prob" : "pre") + " of epoch " + (t - 1) + "; leaf_output is w* (before the learning rate); pre = previous pre + η·leaf_output." }));
    p.appendChild(this.table("epochs-table", head, body, ids));
  };

  App.prototype.rowPanel = function (p) {
    var self = this, d = this.d, r = this.row, N = function (v) { return formatNumber(v, 4); };
    if (r === null) {
      p.appendChild(h("p", { class: "hint", text: "Pick a row: click it in the Rows table, or type its number above. Its path is then marked in every tree." }));
      return;
    }
    p.appendChild(h("h2", { id: "row-title", text: "Row " + d.rows.index[r] + (d.rows.y ? ":  y = " + (d.classifier ? d.classes[d.rows.y[r]] : N(d.rows.y[r])) : "") }));
    var tree = this.tree();
    if (tree) {
      var ti = this.treeIndex(), path = pathTo(tree, d.rows.leaf[ti][r]);
      var steps = [];
      for (var j = 0; j + 1 < path.length; j++) {
        var a = path[j], yes = path[j + 1] === tree.left[a], fx = tree.feature[a];
        var v = d.rows.X ? d.rows.X[fx][r] : undefined;
        var shown = v === undefined ? "" : " (" + d.features[fx] + " = " + (v === null ? "missing" : formatNumber(v, 6)) + ")";
        steps.push(h("li", { text: tree.rule[a] + "?  " + (yes ? "yes" : "no") + shown }));
      }
      var lf = path[path.length - 1];
      steps.push(h("li", { text: "leaf " + lf + ": adds η·w* = " + N(tree.value[lf]) }));
      p.appendChild(h("h3", { text: "Its path in tree " + this.round }));
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
    p.appendChild(h("h3", { text: "Running margin" + (d.classifier ? " and probability" : "") + (d.K > 1 ? " of class " + d.classes[k] : "") }));
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
    var params = Object.keys(d.params).map(function (k) { return k + " = " + d.params[k]; }).join(",  ");
    p.appendChild(h("p", { class: "params", text: params }));
    (d.notes.concat(d.limits)).forEach(function (n) { p.appendChild(h("p", { class: "note", text: n })); });
    p.appendChild(h("p", { class: "hint", text: "Keys: ← → step through the rounds. Drag to pan, wheel to zoom, + / − folds a subtree. Made by teachgbt; works offline." }));
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
