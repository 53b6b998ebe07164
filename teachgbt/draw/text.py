"""A text tree for terminals, with the same labels as the diagrams."""

from __future__ import annotations

from .labels import edge_label, legend_lines, node_label, tree_title

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

    def walk(i, prefix):
        if tree.feature[i] < 0:
            return
        kids = (int(tree.left[i]), int(tree.right[i]))
        for k, c in enumerate(kids):
            last = k == 1
            branch = ("└── " if last else "├── ") + edge_label(tree, i, c, opts) + ": "
            line(c, prefix, branch)
            walk(c, prefix + ("    " if last else "│   "))

    line(0, "", "")
    walk(0, "")
    if opts.legend:
        legend = legend_lines(tree, opts)
        if legend:
            out.append("")
            out.extend(legend)
    return "\n".join(out)
