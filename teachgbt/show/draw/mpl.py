"""The matplotlib renderer: the same labels as the DOT export, no Graphviz needed.

A tree becomes a *scene*: boxes, edges and texts placed in points (y grows
downwards), their colours named by role ("leaf_pos", "edge", "muted", ...) and looked up
in a theme only when drawn. ``draw_scene`` puts a scene on any Axes, scaling fonts so that it
fits; with no Axes given the figure is made as large as the tree needs, so
text is drawn at its natural size and stays readable for deep trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .labels import edge_label, legend_lines, node_label
from .layout import LINE_SPACING, layout_tree, text_size
from .theme import theme_of

__all__ = ["Scene", "tree_scene", "draw_scene", "new_figure", "scene_figsize"]

FONT_SIZE = 9.0
EDGE_FONT_SIZE = 8.0
PAD = 5.0  # points between a box's text and its border
MARGIN = 10.0
MAX_FIGURE_INCHES = 300.0  # Agg cannot draw much more than this at 100 dpi
# deeper trees take minutes to lay out and draw and come out unreadable; DOT and text don't
MAX_PICTURE_DEPTH = 64


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float
    lines: list
    fill: str = "box"
    color: str = "line"
    lw: float = 1.0


@dataclass
class Edge:
    x0: float
    y0: float
    x1: float
    y1: float
    label: str = ""
    color: str = "edge"
    lw: float = 1.0


@dataclass
class Text:
    x: float
    y: float
    s: str
    size: float = FONT_SIZE
    ha: str = "left"
    weight: str = "normal"
    color: str = "text"


@dataclass
class Scene:
    items: list = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    font_size: float = FONT_SIZE

    def add(self, other, dx, dy):
        """Place ``other`` with its top-left corner at (dx, dy)."""
        for it in other.items:
            if isinstance(it, Edge):
                self.items.append(
                    Edge(it.x0 + dx, it.y0 + dy, it.x1 + dx, it.y1 + dy, it.label, it.color, it.lw)
                )
            elif isinstance(it, Box):
                self.items.append(
                    Box(it.x + dx, it.y + dy, it.w, it.h, it.lines, it.fill, it.color, it.lw)
                )
            else:
                self.items.append(
                    Text(it.x + dx, it.y + dy, it.s, it.size, it.ha, it.weight, it.color)
                )
        self.width = max(self.width, dx + other.width)
        self.height = max(self.height, dy + other.height)


def box_size(lines, size):
    w, h = text_size(lines, size, bold_first=True)
    return w + 2 * PAD, h + 2 * PAD


def tree_scene(tree, opts, path=None, size=FONT_SIZE, legend=None):
    """The scene of one tree; ``path`` highlights one instance's nodes."""
    if tree.max_depth > MAX_PICTURE_DEPTH:
        raise ValueError(
            f"this tree is {tree.max_depth} levels deep; pictures are drawn for trees up to "
            f"{MAX_PICTURE_DEPTH} levels. Save it as .dot, or print it as text (str(tree), "
            "teachgbt explain)"
        )
    on_path = set(path or ())
    labels = [node_label(tree, i, opts) for i in range(tree.n_nodes)]
    sizes = np.array([box_size(lab.text_lines, size) for lab in labels])
    edge_size = size * EDGE_FONT_SIZE / FONT_SIZE
    lay = layout_tree(tree, sizes[:, 0], sizes[:, 1], hgap=1.6 * size, vgap=4.5 * edge_size)
    sc = Scene(font_size=size)
    for i in range(tree.n_nodes):
        if tree.feature[i] < 0:
            continue
        for c in (int(tree.left[i]), int(tree.right[i])):
            hot = i in on_path and c in on_path
            sc.items.append(
                Edge(
                    lay.x[i],
                    lay.y[i] + lay.h[i] / 2,
                    lay.x[c],
                    lay.y[c] - lay.h[c] / 2,
                    edge_label(tree, i, c, opts),
                    "highlight" if hot else "edge",
                    2.5 if hot else 1.0,
                )
            )
    for i, lab in enumerate(labels):
        fill = "box"
        if lab.is_leaf:
            fill = "leaf_pos" if tree.value[i] >= 0 else "leaf_neg"
        hot = i in on_path
        sc.items.append(
            Box(
                lay.x[i],
                lay.y[i],
                lay.w[i],
                lay.h[i],
                lab.text_lines,
                fill,
                "highlight" if hot else "line",
                2.5 if hot else 1.0,
            )
        )
    sc.width, sc.height = lay.width, lay.height
    legend = legend_lines(tree, opts) if legend is None and opts.legend else (legend or [])
    if legend:
        small = size * 0.85
        y = sc.height + 1.5 * size
        for line in legend:
            sc.items.append(Text(0.0, y, line, small, color="muted"))
            sc.width = max(sc.width, text_size([line], small)[0])
            y += small * LINE_SPACING
        sc.height = y
    return sc


def scene_figsize(scene):
    """Inches that show a scene at its natural font size (capped for huge trees)."""
    w = (scene.width + 2 * MARGIN) / 72.0
    h = (scene.height + 2 * MARGIN) / 72.0
    shrink = min(1.0, MAX_FIGURE_INCHES / max(w, h))
    return max(w * shrink, 2.0), max(h * shrink, 1.0)


def new_figure(scene, pyplot=False):
    """A figure just large enough for ``scene``: pyplot's (shown in notebooks) or a bare one."""
    size = scene_figsize(scene)
    if pyplot:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=size)
    else:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=size)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    fig.subplots_adjust(0, 0, 1, 1)
    return fig, ax


def draw_scene(scene, ax, theme="light"):
    """Draw ``scene`` on ``ax``, fonts scaled so the whole scene fits, in the colours of
    ``theme``; returns ``ax``."""
    from matplotlib.patches import FancyBboxPatch

    c = theme_of(theme)

    fig = ax.figure
    pos = ax.get_position()
    fw, fh = fig.get_size_inches()
    ax_w, ax_h = pos.width * fw * 72.0, pos.height * fh * 72.0
    W, H = scene.width + 2 * MARGIN, scene.height + 2 * MARGIN
    scale = min(ax_w / W, ax_h / H)
    ax.set_xlim(-MARGIN, scene.width + MARGIN)
    ax.set_ylim(scene.height + MARGIN, -MARGIN)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_axis_off()
    fs = scene.font_size
    line_h = fs * LINE_SPACING
    for it in scene.items:
        if isinstance(it, Edge):
            ax.plot(
                [it.x0, it.x1],
                [it.y0, it.y1],
                color=c[it.color],
                lw=it.lw * min(scale, 1.5),
                solid_capstyle="round",
                zorder=1,
            )
            if it.label:
                ax.text(
                    (it.x0 + it.x1) / 2,
                    (it.y0 + it.y1) / 2,
                    it.label,
                    fontsize=EDGE_FONT_SIZE / FONT_SIZE * fs * scale,
                    ha="center",
                    va="center",
                    color=c["edge_text"] if it.color == "edge" else c[it.color],
                    zorder=3,
                    # a patch of the background behind the label: it reads over the edge
                    bbox=dict(boxstyle="round,pad=0.15", fc=c["background"], ec="none"),
                    parse_math=False,  # feature names and numbers as written, never mathtext
                )
    for it in scene.items:
        if isinstance(it, Box):
            ax.add_patch(
                FancyBboxPatch(
                    (it.x - it.w / 2, it.y - it.h / 2),
                    it.w,
                    it.h,
                    boxstyle=f"round,pad=0,rounding_size={PAD}",
                    fc=c[it.fill],
                    ec=c[it.color],
                    lw=it.lw * min(scale, 1.5),
                    zorder=2,
                )
            )
            top = it.y - it.h / 2 + PAD
            for k, s in enumerate(it.lines):
                ax.text(
                    it.x,
                    top + (k + 0.5) * line_h,
                    s,
                    fontsize=fs * scale,
                    ha="center",
                    va="center",
                    weight="bold" if k == 0 else "normal",
                    color=c["text"],
                    zorder=4,
                    parse_math=False,
                )
        elif isinstance(it, Text):
            ax.text(
                it.x,
                it.y,
                it.s,
                fontsize=it.size * scale,
                ha=it.ha,
                va="center",
                weight=it.weight,
                color=c[it.color],
                zorder=4,
                parse_math=False,
            )
    return ax
