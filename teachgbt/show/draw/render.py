"""Diagrams that show themselves in Jupyter and save to files, with or without Graphviz.

With the Graphviz ``dot`` binary on PATH a diagram is laid out by Graphviz
from its DOT text; without it the matplotlib renderer draws the same labels,
so a learner on a fresh machine never meets ``ExecutableNotFound``.
"""

from __future__ import annotations

import base64
import io
import os
import shutil

__all__ = ["Diagram", "graphviz_available", "SAVE_FORMATS"]

SAVE_FORMATS = (".dot", ".pdf", ".png", ".svg")
_ENGINES = ("auto", "graphviz", "matplotlib")


def graphviz_available():
    """True when the Graphviz ``dot`` program can be found on PATH."""
    return shutil.which("dot") is not None


class Diagram:
    """A drawn tree (or model): ``.save(path)``, ``.svg()``, ``.source`` (the DOT text).

    ``engine``: ``"auto"`` (Graphviz when its binary is installed, else
    matplotlib), ``"graphviz"`` or ``"matplotlib"``.
    """

    def __init__(self, source, make_scene, engine="auto", title="diagram"):
        if engine not in _ENGINES:
            raise ValueError(f"engine={engine!r}; use one of {_ENGINES}")
        self.source = source
        self._make_scene = make_scene  # the matplotlib scene, built only when needed
        self.engine = engine
        self._title = title

    @property
    def backend(self):
        """Which renderer draws pictures right now: ``"graphviz"`` or ``"matplotlib"``."""
        if self.engine == "auto":
            return "graphviz" if graphviz_available() else "matplotlib"
        return self.engine

    def _graphviz(self, fmt):
        import graphviz

        try:
            return graphviz.Source(self.source).pipe(format=fmt)
        except graphviz.ExecutableNotFound:
            if self.engine == "graphviz":
                raise RuntimeError(
                    "engine='graphviz' needs the Graphviz program `dot` on PATH (Debian/Ubuntu: "
                    "apt-get install graphviz; conda: conda install graphviz). Use "
                    "engine='auto' or 'matplotlib' to draw without it."
                ) from None
            return None

    def _matplotlib(self, fmt):
        from .mpl import draw_scene, new_figure

        scene = self._make_scene()
        fig, ax = new_figure(scene)
        draw_scene(scene, ax)
        buf = io.BytesIO()
        meta = {"Title": self._title} if fmt in ("svg", "pdf") else None
        fig.savefig(buf, format=fmt, dpi=100, metadata=meta)
        return buf.getvalue()

    def render(self, fmt):
        """The picture as bytes in ``fmt`` (``svg``, ``png`` or ``pdf``)."""
        if fmt not in ("svg", "png", "pdf"):
            raise ValueError(f"format {fmt!r}; use 'svg', 'png' or 'pdf'")
        if self.backend == "graphviz":
            out = self._graphviz(fmt)
            if out is not None:
                return out
        return self._matplotlib(fmt)

    def svg(self):
        return self.render("svg").decode("utf-8")

    def save(self, path):
        """Write the diagram to ``path``; its extension picks the format (.svg .png .pdf .dot)."""
        ext = os.path.splitext(os.fspath(path))[1].lower()
        if ext not in SAVE_FORMATS:
            raise ValueError(
                f"cannot save a diagram as {ext or 'a file without extension'!r} "
                f"({os.fspath(path)!r}); use one of {', '.join(SAVE_FORMATS)}"
            )
        data = self.source.encode("utf-8") if ext == ".dot" else self.render(ext[1:])
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
