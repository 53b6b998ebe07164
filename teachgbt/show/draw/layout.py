"""Where each node of a tree goes: a compact tidy layout measured in points.

Subtrees are placed side by side as close as their widest node at every
depth allows (the Reingold–Tilford idea), a parent sits centred above its two
children, and the rows are as tall as their tallest label. Every renderer
that places nodes itself (matplotlib) uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = ["TreeLayout", "layout_tree", "text_size"]

LINE_SPACING = 1.25


_MEASURE_DPI = 100.0


@lru_cache(maxsize=1)
def _renderer():
    from matplotlib.backends.backend_agg import RendererAgg

    return RendererAgg(10, 10, _MEASURE_DPI)


@lru_cache(maxsize=4096)
def _line_width(s, size, bold):
    # measured as Agg draws at 100 dpi (hinting makes text a little wider than its outline)
    from matplotlib.font_manager import FontProperties

    prop = FontProperties(size=size, weight="bold" if bold else "normal")
    w, _, _ = _renderer().get_text_width_height_descent(s, prop, ismath=False)
    return float(w) * 72.0 / _MEASURE_DPI * 1.02


def text_size(lines, size, bold_first=False):
    """(width, height) in points of lines of text at font ``size``."""
    widths = [_line_width(s, size, bold_first and k == 0) for k, s in enumerate(lines)]
    return max(widths, default=0.0), len(lines) * size * LINE_SPACING


@dataclass
class TreeLayout:
    x: np.ndarray  # node centres, points, leftmost box edge at 0
    y: np.ndarray  # node centres, points, top row's top edge at 0, growing downwards
    w: np.ndarray  # box sizes
    h: np.ndarray
    width: float
    height: float


def layout_tree(tree, box_w, box_h, hgap, vgap):
    """Centres of every node given box sizes; boxes never overlap."""
    n = tree.n_nodes
    depth = tree.depth.astype(int)
    rel = np.zeros(n)  # x relative to the parent

    def merge(i, cl, cr):
        # contour: depth -> (leftmost, rightmost) box edge of the subtree, relative to node i
        L, R = int(tree.left[i]), int(tree.right[i])
        s = max(cl[d][1] - cr[d][0] + hgap for d in cl.keys() & cr.keys())
        rel[L], rel[R] = -s / 2, s / 2
        contour = {d: (lo - s / 2, hi - s / 2) for d, (lo, hi) in cl.items()}
        for d, (lo, hi) in cr.items():
            lo, hi = lo + s / 2, hi + s / 2
            if d in contour:
                lo, hi = min(lo, contour[d][0]), max(hi, contour[d][1])
            contour[d] = (lo, hi)
        return contour

    # children before parents, without recursion: a tree of any depth lays out
    contours, stack = {}, [(0, False)]
    while stack:
        i, children_done = stack.pop()
        half = box_w[i] / 2
        if tree.feature[i] < 0:
            contours[i] = {depth[i]: (-half, half)}
        elif not children_done:
            stack.extend([(i, True), (int(tree.right[i]), False), (int(tree.left[i]), False)])
        else:
            cl, cr = contours.pop(int(tree.left[i])), contours.pop(int(tree.right[i]))
            contours[i] = merge(i, cl, cr)
            contours[i][depth[i]] = (-half, half)
    contour = contours[0]
    x = np.zeros(n)
    order = np.argsort(depth, kind="stable")  # parents before children
    for i in order:
        if tree.parent[i] >= 0:
            x[i] = x[tree.parent[i]] + rel[i]
    left = min(lo for lo, _ in contour.values())
    right = max(hi for _, hi in contour.values())
    x -= left

    n_rows = int(depth.max()) + 1
    row_h = np.zeros(n_rows)
    np.maximum.at(row_h, depth, box_h)
    top = np.concatenate([[0.0], np.cumsum(row_h + vgap)[:-1]])
    y = top[depth] + row_h[depth] / 2
    return TreeLayout(
        x,
        y,
        np.asarray(box_w, float),
        np.asarray(box_h, float),
        right - left,
        float(top[-1] + row_h[-1]),
    )
