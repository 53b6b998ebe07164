"""Trace tables that read well in Jupyter and in a terminal.

    tg.display.splits(model, 1, 0)     # the 20 best candidate splits; the chosen one highlighted
    tg.display.splits(model, 1, 0, top=None)   # every candidate
    tg.display.style(model.trace_.nodes(1))

In Jupyter the chosen split (``chosen``) is highlighted and leaves
(``is_leaf``) are shaded, through pandas' Styler when jinja2 is installed
(plain HTML with a marker column otherwise); in a terminal the chosen row is
marked with ``◀``. The DataFrame itself is ``.frame``, untouched.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from ..core.format import format_threshold

__all__ = ["Table", "style", "splits", "nodes", "instances", "epochs"]

_CHOSEN = "background-color: #fff2a8; font-weight: bold"
_LEAF = "background-color: #eef4fb"


def _has_jinja2():
    try:
        import jinja2  # noqa: F401
    except ImportError:
        return False
    return True


class Table:
    """A trace table with its display rules; ``.frame`` is the DataFrame."""

    def __init__(self, frame, precision=4, note=None):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"style() takes a DataFrame; got {type(frame).__name__}")
        self.frame = frame
        self.precision = int(precision)
        self.note = note  # a line under the table: what it leaves out, how to see it all

    def _marks(self):
        df = self.frame
        if "chosen" in df.columns:
            return np.where(df["chosen"].to_numpy(dtype=bool), "◀ chosen", "")
        return None

    def _rounded(self):
        df = self.frame.copy()
        floats = [c for c in df.select_dtypes("float").columns if c != "threshold"]
        df[floats] = df[floats].round(self.precision)
        if "threshold" in df.columns:  # exactly the rule the tree applies, never rounded
            df["threshold"] = [_threshold(t) for t in df["threshold"]]
        return df

    def __repr__(self):
        df = self._rounded()
        marks = self._marks()
        if marks is not None:
            df[""] = marks
        with pd.option_context("display.max_columns", None, "display.width", 200):
            text = df.to_string()
        return text if self.note is None else f"{text}\n{self.note}"

    def styler(self):
        """A pandas Styler with the highlights (needs jinja2)."""
        df = self.frame

        def rows(row):
            if "chosen" in df.columns and bool(row["chosen"]):
                return [_CHOSEN] * len(row)
            if "is_leaf" in df.columns and bool(row["is_leaf"]):
                return [_LEAF] * len(row)
            return [""] * len(row)

        # names and labels come from the user's data: escaped, so that no table runs a script
        st = df.style.apply(rows, axis=1).format(precision=self.precision, escape="html")
        st = st.format_index(escape="html", axis=0).format_index(escape="html", axis=1)
        if "threshold" in df.columns:
            st = st.format(_threshold, subset=["threshold"], escape="html")
        return st

    def _repr_html_(self):
        if _has_jinja2():
            out = self.styler().to_html()
        else:
            df = self._rounded()
            marks = self._marks()
            if marks is not None:
                df[""] = marks
            out = df.to_html()
        if self.note is not None:
            out += f'<p style="color:#57606a;margin:4px 0">{html.escape(self.note)}</p>'
        return out


def _threshold(t):
    return "" if pd.isna(t) else format_threshold(t)


def style(frame, precision=4):
    """Wrap any trace table for display (highlights ``chosen`` rows and leaves)."""
    return Table(frame, precision)


#: candidate splits a table shows unless asked for more
TOP_SPLITS = 20


def splits(model, t, node, precision=4, top=TOP_SPLITS):
    """``model.trace_.splits(t, node)``, best gain first, the chosen split highlighted:
    the ``top`` best (and the chosen one, wherever it ranks); ``top=None`` shows every
    candidate. ``.frame`` is the table shown."""
    table = model.trace_.splits(t, node)
    if top is None or len(table) <= int(top):
        return Table(table, precision)
    best = table.sort_values("gain", ascending=False, kind="stable")
    shown = best.head(int(top))
    chosen = best[best["chosen"]]
    if len(chosen) and chosen.index[0] not in shown.index:
        shown = pd.concat([shown, chosen.head(1)])
    note = (
        f"The {int(top)} best of {len(table)} candidate splits, by gain"
        + (" (and the chosen one)" if len(shown) > int(top) else "")
        + f"; every one: tg.display.splits(model, {t}, {node}, top=None)"
    )
    return Table(shown, precision, note)


def nodes(model, t, precision=4):
    """``model.trace_.nodes(t)``, leaves shaded."""
    return Table(model.trace_.nodes(t), precision)


def instances(model, t, precision=4):
    """``model.trace_.instances(t)``."""
    return Table(model.trace_.instances(t), precision)


def epochs(model, precision=4):
    """``model.trace_.epochs()`` (seed 004's table)."""
    return Table(model.trace_.epochs(), precision)
