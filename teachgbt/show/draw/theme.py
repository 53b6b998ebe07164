"""The colours of a diagram, for a light page or a dark slide.

Every backend names a colour by its role (a leaf that raises the margin, an edge, the
legend's text) and asks the theme for it, so that a dark diagram is the same drawing
with other colours, never a filter over a light one: edges, edge labels and the legend
keep their contrast on both.
"""

from __future__ import annotations

__all__ = ["THEMES", "theme_of"]

# colour-blind safe pair (blue / orange) for leaves that raise / lower the margin
THEMES = {
    "light": {
        "background": "white",
        "box": "white",
        "leaf_pos": "#dbe9f6",
        "leaf_neg": "#fde3cc",
        "round0": "#eeeeee",
        "text": "black",
        "line": "#333333",
        "edge": "#555555",
        "edge_text": "#333333",
        "muted": "#444444",
        "highlight": "#c0392b",
        "cluster": "#999999",
    },
    "dark": {
        "background": "#161b22",
        "box": "#222a35",
        "leaf_pos": "#1d3a5f",
        "leaf_neg": "#5b3413",
        "round0": "#2d333b",
        "text": "#eef2f6",
        "line": "#c9d1d9",
        "edge": "#b6c0cc",
        "edge_text": "#dfe5ec",
        "muted": "#d0d7de",
        "highlight": "#ff7b5c",
        "cluster": "#8b949e",
    },
}


def theme_of(name):
    """The colours of theme ``name`` ("light" or "dark")."""
    try:
        return THEMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"theme={name!r}; use one of {sorted(THEMES)}") from None
