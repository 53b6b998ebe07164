"""Diagrams that show themselves in Jupyter and save to files, with or without Graphviz.

With the Graphviz ``dot`` binary on PATH a diagram is laid out by Graphviz
from its DOT text; without it the matplotlib renderer draws the same labels,
so a learner on a fresh machine never meets ``ExecutableNotFound``.

For slides, ``save`` and ``render`` take ``dpi=`` (a PNG's resolution: 300 makes it
three times the default's width), ``transparent=True`` (no background) and
``theme="dark"`` (light text and edges on a dark background).
"""

from __future__ import annotations

import base64
import io
import numbers
import os
import shutil

from .dot import Look
from .theme import THEMES

__all__ = ["Diagram", "graphviz_available", "SAVE_FORMATS", "DEFAULT_DPI", "MAX_DPI"]

SAVE_FORMATS = (".dot", ".pdf", ".png", ".svg")
_ENGINES = ("auto", "graphviz", "matplotlib")
DEFAULT_DPI = 96  # Graphviz's own; matplotlib is told the same, so both draw alike
MAX_DPI = 1200  # a depth-6 tree at 1200 dpi is already a 300-megapixel picture


def _look(dpi, transparent, theme):
    if dpi is not None and (
        not isinstance(dpi, numbers.Real) or isinstance(dpi, bool) or not 10 <= dpi <= MAX_DPI
    ):
        raise ValueError(f"dpi must be a number from 10 to {MAX_DPI}; got {dpi!r}")
    if theme not in THEMES:
        raise ValueError(f"theme={theme!r}; use one of {sorted(THEMES)}")
    return Look(theme, bool(transparent), None if dpi is None else float(dpi))


def graphviz_available():
    """True when the Graphviz ``dot`` program can be found on PATH."""
    return shutil.which("dot") is not None


class Diagram:
    """A drawn tree (or model): ``.save(path)``, ``.svg()``, ``.source`` (the DOT text).

    ``engine``: ``"auto"`` (Graphviz when its binary is installed, else
    matplotlib), ``"graphviz"`` or ``"matplotlib"``. ``make_source(look)``: the DOT text
    in a ``Look`` (theme, background, dpi); ``make_scene()``: the matplotlib scene.
    """

    def __init__(self, make_source, make_scene, engine="auto", title="diagram"):
        if engine not in _ENGINES:
            raise ValueError(f"engine={engine!r}; use one of {_ENGINES}")
        self._make_source = make_source
        self.source = make_source(Look())
        self._make_scene = make_scene  # the matplotlib scene, built only when needed
        self.engine = engine
        self._title = title

    @property
    def backend(self):
        """Which renderer draws pictures right now: ``"graphviz"`` or ``"matplotlib"``."""
        if self.engine == "auto":
            return "graphviz" if graphviz_available() else "matplotlib"
        return self.engine

    def _graphviz(self, fmt, look):
        import graphviz

        # dpi scales a PNG; an SVG or PDF is drawn at its size in points whatever it says
        if fmt != "png":
            look = Look(look.theme, look.transparent)
        source = self.source if look.plain else self._make_source(look)
        try:
            return graphviz.Source(source).pipe(format=fmt)
        except graphviz.ExecutableNotFound:
            if self.engine == "graphviz":
                raise RuntimeError(
                    "engine='graphviz' needs the Graphviz program `dot` on PATH (Debian/Ubuntu: "
                    "apt-get install graphviz; conda: conda install graphviz). Use "
                    "engine='auto' or 'matplotlib' to draw without it."
                ) from None
            return None

    def _matplotlib(self, fmt, look):
        from .mpl import draw_scene, new_figure

        scene = self._make_scene()
        fig, ax = new_figure(scene)
        draw_scene(scene, ax, look.theme)
        background = THEMES[look.theme]["background"]
        fig.set_facecolor("none" if look.transparent else background)
        buf = io.BytesIO()
        meta = {"Title": self._title} if fmt in ("svg", "pdf") else None
        fig.savefig(
            buf,
            format=fmt,
            dpi=look.dpi or DEFAULT_DPI,
            metadata=meta,
            facecolor=fig.get_facecolor(),
            transparent=look.transparent,
        )
        return buf.getvalue()

    def render(self, fmt, dpi=None, transparent=False, theme="light"):
        """The picture as bytes in ``fmt`` (``svg``, ``png`` or ``pdf``). ``dpi``: a PNG's
        resolution (default 96); ``transparent``: no background; ``theme``: "light" or
        "dark" (light text, boxes and edges for a dark slide)."""
        if fmt not in ("svg", "png", "pdf"):
            raise ValueError(f"format {fmt!r}; use 'svg', 'png' or 'pdf'")
        look = _look(dpi, transparent, theme)
        if self.backend == "graphviz":
            out = self._graphviz(fmt, look)
            if out is not None:
                return out
        return self._matplotlib(fmt, look)

    def dot(self, dpi=None, transparent=False, theme="light"):
        """The DOT text, with the theme's colours, background and dpi (as ``render``)."""
        return self._make_source(_look(dpi, transparent, theme))

    def svg(self):
        return self.render("svg").decode("utf-8")

    def save(self, path, dpi=None, transparent=False, theme="light"):
        """Write the diagram to ``path``; its extension picks the format (.svg .png .pdf .dot).
        ``dpi``, ``transparent`` and ``theme`` as in ``render`` (a .dot file carries the
        theme's colours and background, and the dpi)."""
        ext = os.path.splitext(os.fspath(path))[1].lower()
        if ext not in SAVE_FORMATS:
            raise ValueError(
                f"cannot save a diagram as {ext or 'a file without extension'!r} "
                f"({os.fspath(path)!r}); use one of {', '.join(SAVE_FORMATS)}"
            )
        _look(dpi, transparent, theme)  # checked before anything is written
        if ext == ".dot":
            data = self.dot(dpi, transparent, theme).encode("utf-8")
        else:
            data = self.render(ext[1:], dpi, transparent, theme)
        from ...utils import write_atomic

        return write_atomic(path, lambda f: f.write(data), binary=True)

    def data_uri(self, fmt="svg"):
        """The picture as a ``data:`` URI, for an ``<img src=...>`` that survives where
        inline ``<svg>`` is stripped (an untrusted notebook's sanitized HTML)."""
        mime = {"svg": "image/svg+xml", "png": "image/png"}.get(fmt)
        if mime is None:
            raise ValueError(f"format {fmt!r}; use 'svg' or 'png'")
        return f"data:{mime};base64,{base64.b64encode(self.render(fmt)).decode('ascii')}"

    def _repr_mimebundle_(self, include=None, exclude=None):
        # PNG beside SVG: a notebook opened untrusted (as a student receives it) does not
        # show SVG, which it counts unsafe, and falls back to the PNG
        bundle = {"text/plain": repr(self)}
        for mime, fmt in (("image/svg+xml", "svg"), ("image/png", "png")):
            if (include is None or mime in include) and not (exclude and mime in exclude):
                data = self.render(fmt)  # PNG as base64 text, as notebooks store it
                bundle[mime] = data.decode() if fmt == "svg" else base64.b64encode(data).decode()
        return bundle

    def __repr__(self):
        return f"<teachgbt diagram of {self._title}; .save('tree.svg'), .source for DOT>"
