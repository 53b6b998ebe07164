"""Ways of showing a model: diagrams, plots, the explorer page, styled tables.

    draw/       one label builder behind Graphviz, matplotlib and text trees
    plot/       loss curves, split scans, step functions, probabilities, importance, votes
    explorer/   the classroom explorer: one self-contained HTML page
    display.py  styled tables for Jupyter (the chosen split marked)

Everything here reads a fitted model (``model.model_``, its trace) and the one formatter
(``teachgbt.core.format``); nothing here trains.
"""

from . import display, draw, plot
from .explorer import Explorer, explore

__all__ = ["display", "draw", "plot", "explore", "Explorer"]
