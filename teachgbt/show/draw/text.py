"""A text tree for terminals, with the same labels as the diagrams."""

from __future__ import annotations

from .labels import (
    edge_label,
    legend_lines,
    node_label,
    tree_title,
)

__all__ = ["tree_to_text"]


def tree_to_text(tree, opts, path=None):
    """The tree as indented text; ``path``: nodes of one instance, marked with ``▶``.

    Each node prints its title then its statistics on the same line::

        #0  age < 16.5  |  n = 6, G = -0.5, H = 1.5  |  gain = 0.7, loss_chg = 1.4
        ├── yes, missing: leaf 1, n = 3  |  G = ...
        └── no: ...
    """
    on_path = set(path or ())
    out = [tree_title(tree)] if tree_title(tree) else []

    def line(i, prefix, branch):
        lab = node_label(tree, i, opts)
        mark = "▶ " if i in on_path else ""
        body = "  |  ".join([lab.title, *lab.lines])
        out.append(f"{prefix}{branch}{mark}{body}")

    # a stack of what is left to print, not recursion: a tree of any depth prints
    todo = [("walk", 0, ""), ("line", 0, "", "")]
    while todo:
        step = todo.pop()
        if step[0] == "line":
            line(*step[1:])
            continue
        _, i, prefix = step
        if tree.feature[i] < 0:
            continue
        for k, c in reversed(list(enumerate((int(tree.left[i]), int(tree.right[i]))))):
            last = k == 1
            branch = ("└── " if last else "├── ") + edge_label(tree, i, c, opts) + ": "
            todo.append(("walk", c, prefix + ("    " if last else "│   ")))
            todo.append(("line", c, prefix, branch))
    if opts.legend:
        legend = legend_lines(tree, opts)
        if legend:
            out.append("")
            out.extend(legend)
    return "\n".join(out)
