"""The files a walkthrough writes when asked: its tables, its text, its pages, its pictures.

They go through one ``FolderWriter``: a file of the user's already in the folder is never
overwritten (unless ``force``), links there are never followed, and every name is checked
before the first file is written, so a refusal leaves the folder as it was.
"""

from __future__ import annotations

from pathlib import Path

from ...utils import FolderWriter
from .text import readable_csv_frame

__all__ = ["save", "outputs"]

# resolution of the PNG plots (the tree diagrams choose their own)
PLOT_DPI = 120


def outputs(w, pictures=True, precision=6):
    """``[(file name, write(fileobj), binary)]``: everything ``save`` writes, in order."""
    out = []
    for name, df in w.tables().items():
        table = readable_csv_frame(df, precision)
        out.append((f"{name}.csv", lambda f, df=table: df.to_csv(f, index=True), False))
    text = w.text() + "\n"
    out.append(("walkthrough.txt", lambda f: f.write(text), False))
    if pictures:
        out.extend(_pages(w))
        out.extend(_pictures(w))
    return out


def save(w, out_dir, pictures=True, precision=6, force=False):
    """Write every table of ``w`` as ``<name>.csv`` (numbers to ``precision`` significant
    digits) and its text as ``walkthrough.txt`` into ``out_dir`` (created if needed); with
    ``pictures``, the diagrams and plots too, and two pages to open in a browser:
    ``walkthrough.html`` (the rich view) and ``explorer.html``. Files of the user's already
    there are kept (an error says which) unless ``force``. Returns the paths written."""
    writer = FolderWriter(out_dir, force=force)
    files = outputs(w, pictures, precision)
    writer.check([name for name, _, _ in files])
    return [Path(writer.write(name, write, binary)) for name, write, binary in files]


def _pages(w):
    """The rich walkthrough page and the explorer, each one self-contained .html file."""
    from ...show.explorer import explore
    from .html import walkthrough_page

    return [
        ("walkthrough.html", lambda f: f.write(walkthrough_page(w)), False),
        ("explorer.html", lambda f: f.write(explore(w).html()), False),
    ]


def _pictures(w):
    """Each round's tree (``tree_<k>.svg``, ``.png``), the model (``model.png``) and the
    probabilities and residuals per epoch, drawn when written."""
    from ...show import draw, plot

    def rendered(make, fmt):
        return lambda f: f.write(make().render(fmt))

    out = []
    for e in w.rounds:
        for ext in ("svg", "png"):
            diagram = lambda e=e: e.tree.draw(proba=w.classifier)  # noqa: E731
            out.append((f"tree_{e.t}.{ext}", rendered(diagram, ext), True))
    model = lambda: draw.draw_model(w.model, rounds=[e.t for e in w.rounds])  # noqa: E731
    out.append(("model.png", rendered(model, "png"), True))
    shows = [("residuals", plot.residuals)]
    if w.classifier:
        shows.insert(0, ("probabilities", plot.probabilities))
    for name, show in shows:
        out.append((f"{name}.png", lambda f, show=show: _plot_png(f, show, w.model), True))
    return out


def _plot_png(f, show, model):
    import matplotlib.pyplot as plt

    ax = show(model)
    try:
        ax.figure.savefig(f, format="png", dpi=PLOT_DPI, bbox_inches="tight")
    finally:
        plt.close(ax.figure)
