"""DOT text for a tree or for a model's rounds (Graphviz's input language)."""

from __future__ import annotations

import numpy as np

from .labels import (
    edge_label,
    format_number,
    legend_lines,
    node_label,
    start_lines,
    tree_title,
)

__all__ = ["tree_to_dot", "model_to_dot", "quote", "LEAF_POSITIVE", "LEAF_NEGATIVE", "HIGHLIGHT"]

# colour-blind safe pair (blue / orange) for leaves that raise / lower the margin
LEAF_POSITIVE = "#dbe9f6"
LEAF_NEGATIVE = "#fde3cc"
HIGHLIGHT = "#c0392b"
FONT = "Helvetica"


def quote(s):
    """A DOT double-quoted string (newlines become centred line breaks)."""
    s = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"'


def _leaf_fill(value):
    return LEAF_POSITIVE if value >= 0 else LEAF_NEGATIVE


def _tree_body(tree, opts, prefix="", path=None):
    """Node and edge statements of one tree; ids are ``prefix + node``."""
    on_path = set(path or ())
    lines = []
    for i in range(tree.n_nodes):
        lab = node_label(tree, i, opts)
        attrs = [f"label={quote(lab.text())}"]
        if lab.hover:  # a long set, shortened on the box: whole on hover (SVG)
            attrs.append(f"tooltip={quote(lab.hover)}")
        if lab.is_leaf:
            attrs.append(f'fillcolor="{_leaf_fill(tree.value[i])}"')
        if i in on_path:
            attrs.append(f'color="{HIGHLIGHT}", penwidth=2.5')
        lines.append(f"{prefix}{i} [{', '.join(attrs)}] ;")
    for i in range(tree.n_nodes):
        if tree.feature[i] < 0:
            continue
        for child in (int(tree.left[i]), int(tree.right[i])):
            attrs = [f"label={quote(edge_label(tree, i, child, opts))}"]
            if i in on_path and child in on_path:
                attrs.append(f'color="{HIGHLIGHT}", fontcolor="{HIGHLIGHT}", penwidth=2.5')
            lines.append(f"{prefix}{i} -> {prefix}{child} [{', '.join(attrs)}] ;")
    return lines


def _header(name):
    return [
        f"digraph {name} {{",
        f'graph [ordering="out", fontname="{FONT}", labelloc="b", labeljust="l"] ;',
        f'node [shape=box, style="rounded,filled", fillcolor="white", fontname="{FONT}"] ;',
        f'edge [fontname="{FONT}"] ;',
    ]


def tree_to_dot(tree, opts, path=None):
    """DOT text of one tree; ``path``: node ids to highlight (one instance's path)."""
    lines = _header("Tree")
    title = tree_title(tree)
    if title:
        lines.append(f'title [shape=plaintext, style="", label={quote(title)}] ;')
        lines.append("title -> 0 [style=invis] ;")
    lines.extend(_tree_body(tree, opts, "", path))
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


def model_to_dot(trees, rounds, round0_text, opts, paths=None, titles=None):
    """DOT text of a model: a round-0 box, then each chosen round's tree in its own cluster."""
    paths = paths or {}
    lines = _header("Model")
    lines.append(f'round0 [label={quote(round0_text)}, fillcolor="#eeeeee"] ;')
    for k, tree in zip(rounds, trees):
        lines.append(f"subgraph cluster_{k} {{")
        title = titles[k] if titles else f"round {k}"
        lines.append(f'label={quote(title)} ; labelloc="t" ; style="rounded" ; color="#999999" ;')
        lines.extend(_tree_body(tree, opts, f"t{k}_", paths.get(k)))
        lines.append("}")
    # invisible edges from the deepest node above stack the rounds top to bottom
    prev = "round0"
    for k, tree in zip(rounds, trees):
        lines.append(f"{prev} -> t{k}_0 [style=invis] ;")
        prev = f"t{k}_{int(tree.depth.argmax())}"
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
