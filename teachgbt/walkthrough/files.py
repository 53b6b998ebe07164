"""The files a walkthrough writes when asked: its tables, its text, its pages, its pictures."""

from __future__ import annotations

from pathlib import Path

from .._files import write_atomic
from .text import readable_csv_frame

__all__ = ["save"]

# resolution of the PNG plots (the tree diagrams choose their own)
PLOT_DPI = 120


def save(w, out_dir, pictures=True, precision=6):
    """Write every table of ``w`` as ``<name>.csv`` (numbers to ``precision`` significant
    digits) and its text as ``walkthrough.txt`` into ``out_dir`` (created if needed); with
    ``pictures``, the diagrams and plots too, and two pages to open in a browser:
    ``walkthrough.html`` (the rich view) and ``explorer.html``. Returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, df in w.tables().items():
        path = out / f"{name}.csv"
        table = readable_csv_frame(df, precision)
        write_atomic(path, lambda f, df=table: df.to_csv(f, index=True))
        paths.append(path)
    path = out / "walkthrough.txt"
    text = w.text() + "\n"
    write_atomic(path, lambda f: f.write(text))
    paths.append(path)
    if pictures:
        paths.extend(_save_pages(w, out))
        paths.extend(_save_pictures(w, out))
    return paths


def _save_pages(w, out):
    from ..explore import explore
    from .html import walkthrough_page

    page = walkthrough_page(w)
    path = out / "walkthrough.html"
    write_atomic(path, lambda f: f.write(page))
    return [path, Path(explore(w).save(out / "explorer.html"))]


def _save_pictures(w, out):
    """Each round's tree (``tree_<k>.svg``, ``.png``), the model (``model.png``) and the
    probabilities and residuals per epoch."""
    import matplotlib.pyplot as plt

    from .. import draw, plot

    paths = []
    for e in w.rounds:
        diagram = e.tree.draw(proba=w.classifier)
        for ext in ("svg", "png"):
            path = out / f"tree_{e.k}.{ext}"
            diagram.save(path)
            paths.append(path)
    path = out / "model.png"
    draw.draw_model(w.model, rounds=[e.k for e in w.rounds]).save(path)
    paths.append(path)
    shows = [("residuals", plot.residuals)]
    if w.classifier:
        shows.insert(0, ("probabilities", plot.probabilities))
    for name, show in shows:
        ax = show(w.model)
        path = out / f"{name}.png"
        write_atomic(
            path,
            lambda f, fig=ax.figure: fig.savefig(
                f, format="png", dpi=PLOT_DPI, bbox_inches="tight"
            ),
            binary=True,
        )
        plt.close(ax.figure)
        paths.append(path)
    return paths
