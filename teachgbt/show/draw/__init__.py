"""Tree diagrams: DOT text, Graphviz or matplotlib pictures, text trees, model views.

Every backend takes its node labels from one builder (``labels.node_label``),
so a number reads the same in a notebook, an image file and a terminal.

Label options, shared by every function here:

``fields``
    which statistics a node shows, from ``n``, ``G``, ``H`` (or ``cover``),
    ``gain``, ``loss_chg``, ``weight`` (w*), ``value`` (η·w*), ``proba``.
``precision``
    decimals of the statistics (thresholds are always printed exactly).
``node_ids``
    print node ids, the ``leaf`` numbers of ``trace_.instances(t)``.
``proba``
    the legend says that a classifier's leaf values are log-odds steps (σ of one step
    is nobody's probability: a row's is σ of its whole margin); the model-level
    functions set it for a margin of log-odds (binary:logistic, binary:logitraw) and
    leave other links to the round-0 box, which names the objective's.
``missing``
    edges say where missing values go.
``legend``
    a few lines saying what the symbols mean.
"""

from __future__ import annotations

import numpy as np

from ...utils import check_is_fitted
from . import dot as _dot
from . import mpl as _mpl
from .labels import (
    DEFAULT_FIELDS,
    FIELDS,
    LabelOptions,
    edge_label,
    format_number,
    format_threshold,
    legend_lines,
    node_label,
    tree_title,
)
from .layout import text_size
from .render import DEFAULT_DPI, MAX_DPI, SAVE_FORMATS, Diagram, graphviz_available
from .text import tree_to_text

__all__ = [
    "DEFAULT_DPI",
    "MAX_DPI",
    "FIELDS",
    "DEFAULT_FIELDS",
    "SAVE_FORMATS",
    "Diagram",
    "LabelOptions",
    "draw",
    "draw_model",
    "edge_label",
    "format_number",
    "format_threshold",
    "graphviz_available",
    "instance_path",
    "legend_lines",
    "node_label",
    "plot_model",
    "plot_tree",
    "text",
    "to_dot",
]


def instance_path(tree, x):
    """Node ids one instance passes through, root first.

    ``x``: a 1-D array, a pandas Series or one-row DataFrame (matched to the
    tree's feature names), or a dict of feature name → value.
    """
    from ...utils import check_instance

    v = check_instance(x, tree.feature_names, tree.n_features, "the highlighted instance")
    return tree.path(v)


def _opts(kw):
    return LabelOptions.make(**kw)


def to_dot(tree, highlight=None, **label_options):
    """DOT text of ``tree``; ``highlight``: an instance whose path is drawn in red."""
    opts = _opts(label_options)
    path = None if highlight is None else instance_path(tree, highlight)
    return _dot.tree_to_dot(tree, opts, path)


def text(tree, highlight=None, **label_options):
    """The tree as text for a terminal, the same labels as the diagrams."""
    opts = _opts(label_options)
    path = None if highlight is None else instance_path(tree, highlight)
    return tree_to_text(tree, opts, path)


def draw(tree, highlight=None, engine="auto", **label_options):
    """A ``Diagram`` of ``tree``: shows itself in Jupyter, ``.save("tree.png")``.

    Uses Graphviz when its ``dot`` binary is installed, else matplotlib
    (``engine=`` forces one). For slides: ``.save("tree.png", dpi=300, transparent=True,
    theme="dark")``.
    """
    opts = _opts(label_options)
    path = None if highlight is None else instance_path(tree, highlight)
    return Diagram(
        lambda look: _dot.tree_to_dot(tree, opts, path, look),
        lambda: _titled_scene(tree, opts, path),
        engine,
        f"a tree of {tree.n_leaves} leaves",
    )


def _titled_scene(tree, opts, path):
    """The tree's scene, under its title when it has one (a tree of a K-class model)."""
    scene = _mpl.tree_scene(tree, opts, path)
    title = tree_title(tree)
    if not title:
        return scene
    size = _mpl.FONT_SIZE
    out = _mpl.Scene(font_size=size)
    out.items.append(_mpl.Text(0.0, size, title, size * 1.15, weight="bold"))
    out.width = text_size([title], size * 1.15)[0]
    out.add(scene, 0.0, 2.0 * size)
    return out


def plot_tree(tree, ax=None, highlight=None, **label_options):
    """Draw ``tree`` with matplotlib (no Graphviz needed); returns the Axes.

    With ``ax=None`` a new figure is sized so the text keeps its natural
    size; on a given Axes the fonts shrink until the tree fits.
    """
    opts = _opts(label_options)
    path = None if highlight is None else instance_path(tree, highlight)
    scene = _titled_scene(tree, opts, path)
    if ax is None:
        _, ax = _mpl.new_figure(scene, pyplot=True)
    return _mpl.draw_scene(scene, ax)


# ------------------------------------------------------------ model views
def _check_model(model):
    check_is_fitted(model)


def _rounds(model, rounds):
    """The rounds asked for, checked: 1-based; by default the first rounds of at most three
    trees in all (one round of K ≥ 3 classes)."""
    n = model.model_.n_rounds
    if rounds is None:
        rounds = list(range(1, min(n, max(1, 3 // model.model_.n_outputs)) + 1))
    elif isinstance(rounds, (int, np.integer)):
        rounds = [int(rounds)]
    rounds = [int(t) for t in rounds]
    bad = [t for t in rounds if not 1 <= t <= n]
    if bad:
        per = f" of {model.model_.n_outputs} trees" if model.model_.n_outputs > 1 else ""
        raise ValueError(f"rounds must be from 1 to {n} (the model has {n} rounds{per}); got {bad}")
    return rounds


def _title(model, i, tree):
    """Tree number i's title in a model view: its round, and with K >= 3 classes its class."""
    eta = f"η = {format_number(tree.learning_rate, 6)}"
    if tree.class_ is None:
        return f"round {tree.round}: tree {i} ({eta})"
    label = model.classes_[tree.class_]
    return f"tree {i}: round {tree.round}, class {label} (classes_[{tree.class_}]; {eta})"


_LOG_ODDS = ("logit", "logitraw")


def _model_parts(model, rounds, class_, highlight, label_options):
    """The options, the tree numbers of ``rounds`` (every class's trees of each round, or
    ``class_``'s), their trees, highlighted paths and titles (keyed by tree number)."""
    _check_model(model)
    kw = dict(label_options)
    # the log-odds note fits one margin of log-odds (σ of it the probability), not one of K
    # softmax margins, half the log-odds, a forest's class fractions or a hinge score: the
    # round-0 box names those links
    kw.setdefault("proba", model.loss_.has_probability and model.loss_.link in _LOG_ODDS)
    opts = _opts(kw)
    fitted = model.model_
    classes = range(fitted.n_outputs) if class_ is None else [fitted.check_class(class_)]
    numbers = [
        fitted.tree_number(t, k if fitted.n_outputs > 1 else None)
        for t in _rounds(model, rounds)
        for k in classes
    ]
    trees = [fitted.tree(*fitted.round_and_class(i)) for i in numbers]
    paths = {}
    if highlight is not None:
        paths = {i: instance_path(t, highlight) for i, t in zip(numbers, trees)}
    titles = {i: _title(model, i, t) for i, t in zip(numbers, trees)}
    return opts, numbers, trees, paths, titles


def _model_scene(model, opts, numbers, trees, paths, titles):
    size = _mpl.FONT_SIZE
    scene = _mpl.Scene(font_size=size)
    r0 = _dot.round0_text(model, opts.precision).split("\n")
    w, h = _mpl.box_size(r0, size)
    scene.items.append(_mpl.Box(w / 2, h / 2, w, h, r0, fill="round0"))
    scene.width, scene.height = w, h
    no_legend = LabelOptions(
        opts.fields, opts.precision, opts.node_ids, opts.proba, opts.missing, legend=False
    )
    for i, tree in zip(numbers, trees):
        y = scene.height + 2.0 * size
        scene.items.append(_mpl.Text(0.0, y, titles[i], size * 1.15, weight="bold"))
        sub = _mpl.tree_scene(tree, no_legend, paths.get(i), size)
        scene.add(sub, 0.0, y + 1.5 * size)
    if opts.legend and trees:
        small = size * 0.85
        y = scene.height + 1.5 * size
        for line in legend_lines(trees[0], opts):
            scene.items.append(_mpl.Text(0.0, y, line, small, color="muted"))
            scene.width = max(scene.width, text_size([line], small)[0])
            y += small * 1.25
        scene.height = y
    return scene


def draw_model(model, rounds=None, highlight=None, engine="auto", *, class_=None, **label_options):
    """One diagram of a fitted model: round 0 (base_score and its margin), then the trees of
    ``rounds`` (1-based round numbers; with K ≥ 3 classes each round's K trees, or only
    class ``class_``'s; default the first rounds of at most three trees in all)."""
    parts = _model_parts(model, rounds, class_, highlight, label_options)
    opts, numbers, trees, paths, titles = parts
    r0 = _dot.round0_text(model, opts.precision)
    shown = sorted({tree.round for tree in trees})
    return Diagram(
        lambda look: _dot.model_to_dot(trees, numbers, r0, opts, paths, titles, look),
        lambda: _model_scene(model, *parts),
        engine,
        f"rounds {shown} of a model",
    )


def plot_model(model, rounds=None, ax=None, highlight=None, *, class_=None, **label_options):
    """``draw_model`` as a matplotlib drawing on ``ax``; returns the Axes."""
    parts = _model_parts(model, rounds, class_, highlight, label_options)
    scene = _model_scene(model, *parts)
    if ax is None:
        _, ax = _mpl.new_figure(scene, pyplot=True)
    return _mpl.draw_scene(scene, ax)
