"""DOT text for a tree or for a model's rounds (Graphviz's input language)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .labels import (
    edge_label,
    format_number,
    legend_lines,
    node_label,
    start_lines,
    tree_title,
)
from .theme import theme_of

__all__ = ["tree_to_dot", "model_to_dot", "quote", "Look"]

FONT = "Helvetica"


@dataclass(frozen=True)
class Look:
    """How a picture is drawn: its colours (``theme``), a see-through background, and the
    resolution of a PNG (``dpi``; None is Graphviz's own 96)."""

    theme: str = "light"
    transparent: bool = False
    dpi: float | None = None

    @property
    def colours(self):
        return theme_of(self.theme)

    @property
    def plain(self):
        return self == Look()


def quote(s):
    """A DOT double-quoted string (newlines become centred line breaks)."""
    s = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"'


def _tree_body(tree, opts, prefix="", path=None, look=Look()):
    """Node and edge statements of one tree; ids are ``prefix + node``."""
    on_path = set(path or ())
    c = look.colours
    lines = []
    for i in range(tree.n_nodes):
        lab = node_label(tree, i, opts)
        attrs = [f"label={quote(lab.text())}"]
        if lab.hover:  # a long set, shortened on the box: whole on hover (SVG)
            attrs.append(f"tooltip={quote(lab.hover)}")
        if lab.is_leaf:
            attrs.append(f'fillcolor="{c["leaf_pos"] if tree.value[i] >= 0 else c["leaf_neg"]}"')
        if i in on_path:
            attrs.append(f'color="{c["highlight"]}", penwidth=2.5')
        lines.append(f"{prefix}{i} [{', '.join(attrs)}] ;")
    for i in range(tree.n_nodes):
        if tree.feature[i] < 0:
            continue
        for child in (int(tree.left[i]), int(tree.right[i])):
            attrs = [f"label={quote(edge_label(tree, i, child, opts))}"]
            if i in on_path and child in on_path:
                hot = c["highlight"]
                attrs.append(f'color="{hot}", fontcolor="{hot}", penwidth=2.5')
            lines.append(f"{prefix}{i} -> {prefix}{child} [{', '.join(attrs)}] ;")
    return lines


def _header(name, look=Look()):
    if look.plain:  # Graphviz's defaults: black on white, as before any option
        return [
            f"digraph {name} {{",
            f'graph [ordering="out", fontname="{FONT}", labelloc="b", labeljust="l"] ;',
            f'node [shape=box, style="rounded,filled", fillcolor="white", fontname="{FONT}"] ;',
            f'edge [fontname="{FONT}"] ;',
        ]
    c = look.colours
    bg = "transparent" if look.transparent else c["background"]
    dpi = f", dpi={float(look.dpi):g}" if look.dpi else ""
    return [
        f"digraph {name} {{",
        f'graph [ordering="out", fontname="{FONT}", labelloc="b", labeljust="l", '
        f'bgcolor="{bg}", fontcolor="{c["muted"]}"{dpi}] ;',
        f'node [shape=box, style="rounded,filled", fillcolor="{c["box"]}", fontname="{FONT}", '
        f'color="{c["line"]}", fontcolor="{c["text"]}"] ;',
        f'edge [fontname="{FONT}", color="{c["edge"]}", fontcolor="{c["edge_text"]}"] ;',
    ]


def tree_to_dot(tree, opts, path=None, look=Look()):
    """DOT text of one tree; ``path``: node ids to highlight (one instance's path)."""
    lines = _header("Tree", look)
    title = tree_title(tree)
    if title:
        lines.append(f'title [shape=plaintext, style="", label={quote(title)}] ;')
        lines.append("title -> 0 [style=invis] ;")
    lines.extend(_tree_body(tree, opts, "", path, look))
    legend = legend_lines(tree, opts) if opts.legend else []
    if legend:
        lines.append(f"label={_left_lines(legend)} ;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _left_lines(lines):
    """A DOT label of left-aligned lines (each ends with Graphviz's ``\\l``)."""
    # a first empty line keeps the text off the bottom row of boxes
    body = "\\l" + "".join(quote(line)[1:-1] + "\\l" for line in lines)
    return f'"{body}"'


def model_to_dot(trees, numbers, round0_text, opts, paths=None, titles=None, look=Look()):
    """DOT text of a model: a round-0 box, then each chosen tree in its own cluster;
    ``numbers``: the trees' numbers (1-based, counting every tree), which key ``paths``
    and ``titles``."""
    paths = paths or {}
    c = look.colours
    lines = _header("Model", look)
    lines.append(f'round0 [label={quote(round0_text)}, fillcolor="{c["round0"]}"] ;')
    for i, tree in zip(numbers, trees):
        lines.append(f"subgraph cluster_{i} {{")
        title = titles[i] if titles else f"tree {i}"
        text = "" if look.plain else f' fontcolor="{c["text"]}" ;'
        frame = f'style="rounded" ; color="{c["cluster"]}" ;{text}'
        lines.append(f'label={quote(title)} ; labelloc="t" ; {frame}')
        lines.extend(_tree_body(tree, opts, f"t{i}_", paths.get(i), look))
        lines.append("}")
    # invisible edges from the deepest node above stack the trees top to bottom
    prev = "round0"
    for i, tree in zip(numbers, trees):
        lines.append(f"{prev} -> t{i}_0 [style=invis] ;")
        prev = f"t{i}_{int(tree.depth.argmax())}"
    legend = legend_lines(trees[0], opts) if (opts.legend and trees) else []
    if legend:
        lines.append(f"label={_left_lines(legend)} ;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def round0_text(model, precision=3):
    """Round 0 of a model: base_score and the margin every instance starts from."""
    p = precision
    if np.ndim(model.base_margin_):  # K >= 3 classes: base_score holds the K start margins
        margins = ", ".join(
            f"{c}: {format_number(float(m), p)}" for c, m in zip(model.classes_, model.base_margin_)
        )
        return (
            "round 0 (before any tree)\nbase_score = the margins of the classes\n"
            f"(centred log class priors)\n{margins}"
        )
    lines = start_lines(model.loss_, float(model.base_score_), float(model.base_margin_), p)
    return "\n".join(["round 0 (before any tree)", *lines])
