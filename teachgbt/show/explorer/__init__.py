"""The classroom explorer: step through the rounds, click the trees, follow a row.

    >>> ex = tg.explore(model)            # or tg.explore(model, X, y), tg.explore(walkthrough)
    >>> ex                                # shows itself inline in Jupyter
    >>> ex.save("explorer.html")          # one self-contained page: no network, no server

The page opens at round 0 (the base score); round t shows the model after tree t, on
every tab. The tree is drawn top-down, fitted to its pane; deep trees open to the depth
that stays readable (a depth control and +/− on the nodes open more). In the overview
each split carries a small chart of its feature over the rows that reached it, split at
the threshold and coloured by class (or target), each leaf its class shares (or its
targets), and edges are as wide as the rows passing. Per round: the table of rows (y, g
and h the tree was grown from, leaf, margin and probability after it) and seed 004's
epoch table; a click on a node gives its n, G, H, w*, gain and loss_chg with the
formulas filled in (the text of ``tg.explain``), the distribution of its split feature
and its candidate splits; a picked row has its path marked in every tree and its
running margin and probability. A− / A+ size every text for a projector; "Save" writes
the tree as SVG or PNG. ``data.py`` gathers the numbers, ``page.py`` wraps them with
``explorer.js`` and ``explorer.css`` into one file.
"""

from __future__ import annotations

from ...utils import write_atomic
from . import data, page

__all__ = ["explore", "Explorer"]


class Explorer:
    """An explorer page: inline in Jupyter, ``.save(path)`` as one HTML file."""

    def __init__(self, payload, height=None):
        self.data = payload  # the JSON-ready dict the page is made from
        self.height = None if height is None else int(height)

    def html(self):
        """The whole page as a string."""
        return page.render(self.data)

    def save(self, path):
        """Write the page to ``path`` (one self-contained .html file); returns the path."""
        text = self.html()
        return write_atomic(path, lambda f: f.write(text))

    def _repr_html_(self):
        return page.iframe(self.html(), self.height)

    def __repr__(self):
        d = self.data
        rows = d["rows"]
        what = f", {rows['n']} rows" if rows else ""
        return (
            f"<teachgbt Explorer: {d['title']}: {len(d['trees'])} trees{what}; "
            "shows itself in Jupyter, .save('explorer.html') writes one page>"
        )


def explore(obj, X=None, y=None, *, title=None, class_names=None, table_rows=500,
            max_split_tables=400, split_rows=20, height=None):  # fmt: skip
    """An interactive page for a fitted model or a walkthrough.

    ``obj``: a fitted ``BoostingClassifier`` / ``BoostingRegressor`` (trained here, or made
    from trees — then no g/h tables), a ``tg.walkthrough`` result, or a model trained on a
    Dask cluster (``teachgbt.dask``: explored as its local twin ``to_local()``, with the
    rows given or, when they are few, its training rows gathered from the workers).
    ``X``, ``y``: rows to follow through the trees (default: the training rows of a model
    with a trace).
    ``class_names``: a classifier's class names, in the order of ``classes_`` (default: the
    labels themselves, so string labels such as "benign" need none).
    ``table_rows``: rows listed in the tables (every row can still be picked by number);
    ``max_split_tables`` and ``split_rows``: how many candidate-split tables are included
    (trees of at most 31 nodes only) and how many candidates each keeps, best gain first.
    ``height``: of the inline view in Jupyter, in pixels (default: the browser window's).
    """
    payload = data.build(
        obj,
        X,
        y,
        title=title,
        class_names=class_names,
        table_rows=table_rows,
        max_split_tables=max_split_tables,
        split_rows=split_rows,
    )
    return Explorer(payload, height)
