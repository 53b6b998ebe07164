"""The walkthrough as one self-contained HTML block for Jupyter, in seed 004's order.

Styled tables, the steps (A) to (D) of every epoch as sections, each round's tree
inline as SVG. Nothing is loaded from elsewhere: the style sits in the block and
the trees are drawn here, so the page reads the same offline and in a saved
notebook. The plain text (``str(w)``) stays folded away at the end.
"""

from __future__ import annotations

import html
import re

from ...core.format import format_threshold
from ...show import draw
from .text import (
    fmt,
    growth_text,
    start_text,
    walkthrough_text,
)

__all__ = ["walkthrough_html", "walkthrough_page", "STYLE"]

# scoped to .tg-walk so that a notebook's other output keeps its own look
STYLE = """
.tg-walk { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px;
  line-height: 1.45; color: #1f2328; max-width: 1100px; overflow-wrap: anywhere; }
.tg-walk h2 { font-size: 1.35em; margin: 0.2em 0 0.1em; }
.tg-walk h3 { font-size: 1.15em; margin: 1.2em 0 0.3em; padding: 0.25em 0.5em;
  background: #eef3fb; border-left: 4px solid #3b6fb6; }
.tg-walk h4 { font-size: 1em; margin: 0.9em 0 0.2em; color: #3b6fb6; }
.tg-walk p { margin: 0.25em 0; }
.tg-walk .tg-settings { color: #57606a; }
.tg-walk .tg-formula { font-family: ui-monospace, Menlo, Consolas, monospace; background: #f6f8fa;
  padding: 0.15em 0.4em; border-radius: 3px; }
.tg-walk table.tg-table { border-collapse: collapse; margin: 0.3em 0 0.6em; font-size: 13px; }
.tg-walk table.tg-table th, .tg-walk table.tg-table td { padding: 0.2em 0.45em;
  border-bottom: 1px solid #d8dee4; text-align: right; white-space: nowrap; }
.tg-walk table.tg-table thead th { white-space: normal; vertical-align: bottom;
  overflow-wrap: normal; }
.tg-walk table.tg-table thead th { background: #f6f8fa; border-bottom: 2px solid #afb8c1; }
.tg-walk table.tg-table tbody tr:nth-child(even) { background: #fafbfc; }
.tg-walk table.tg-table tbody th { color: #57606a; font-weight: normal; }
.tg-walk table.tg-new td:last-child, .tg-walk table.tg-new thead th:last-child {
  background: #fff4d6; font-weight: 600; }
.tg-walk table.tg-leaves thead th:last-child { text-align: left; }
.tg-walk table.tg-leaves td:last-child { text-align: left; font-family: ui-monospace, Menlo,
  Consolas, monospace; font-size: 12px; white-space: normal; min-width: 16em; }
.tg-walk .tg-tree img { max-width: 100%; height: auto; }
.tg-walk ul.tg-legend { margin: 0.2em 0 0.6em; padding-left: 1.2em; color: #57606a;
  font-size: 13px; }
.tg-walk .tg-note { color: #57606a; font-size: 0.92em; }
.tg-walk details pre { font-size: 12px; background: #f6f8fa; padding: 0.6em; overflow-x: auto; }
"""


def _table(df, cls=""):
    """``df`` as a styled table: numbers through the one formatter, rules as the diagrams."""
    formatters = {c: format_threshold for c in df.columns if c == "threshold"}
    out = df.to_html(
        classes=f"tg-table {cls}".strip(),
        border=0,
        float_format=fmt,
        formatters=formatters or None,
        na_rep="",
        max_rows=60,
    )
    out = out.replace(' style="text-align: right;"', "")
    # a long column name (ep_2_leaf_output) may break after "_": the table fits the page
    return re.sub(r"(<th[^>]*>)([^<]*)(</th>)", _breakable, out)


def _breakable(m):
    return m.group(1) + m.group(2).replace("_", "_<wbr>") + m.group(3)


def _p(text, cls=""):
    attr = f' class="{cls}"' if cls else ""
    return f"<p{attr}>{html.escape(text)}</p>"


def _formula(text):
    return f'<p><span class="tg-formula">{html.escape(text)}</span></p>'


def _svg(tree, proba):
    """Tree ``tree`` as an ``<img>`` of its SVG, or a note when it cannot be drawn, and its
    legend as text under it. An image rather than inline ``<svg>``: a notebook opened
    untrusted strips inline SVG from HTML and shows its text as junk, but keeps images.
    The legend is the page's own text (at least 12 px), not part of the picture, which the
    page may shrink to its width."""
    try:
        uri = tree.draw(proba=proba, legend=False).data_uri("svg")
    except Exception as err:  # a picture must never stop the tables from showing
        return _p(f"(the tree could not be drawn here: {err})", "tg-note")
    alt = html.escape(f"tree {tree.round if getattr(tree, 'round', None) else ''}".strip())
    legend = draw.legend_lines(tree, draw.LabelOptions.make(proba=proba))
    items = "".join(f"<li>{html.escape(line)}</li>" for line in legend)
    return f'<div class="tg-tree"><img src="{uri}" alt="{alt}"></div>' + (
        f'<ul class="tg-legend">{items}</ul>' if items else ""
    )


def walkthrough_html(w):
    """A ``Walkthrough`` as HTML: the tables, the steps (A)–(D), the trees inline."""
    kind = "classifier" if w.classifier else "regressor"
    params = w.model.params_
    parts = [
        f"<style>{STYLE}</style>",
        '<div class="tg-walk">',
        f"<h2>GBDT {kind}, step by step (seed 004)</h2>",
        _p(
            f"{len(w.data)} instances, target {w.target!r}, {len(w.rounds)} trees, "
            f"learning rate η = {fmt(params.learning_rate)} (seed 004 calls it ν), "
            f"{growth_text(params)}"
            + (f", λ = {fmt(params.reg_lambda)}" if params.reg_lambda else ""),
            "tg-settings",
        ),
        '<section class="tg-data"><h3>The data</h3>',
        _table(w.data),
    ]
    for col, new in w.encoded.items():
        parts.append(
            _p(
                f"{col!r} is text; trees split numbers, so it is one-hot encoded as "
                f"{', '.join(new)}.",
                "tg-note",
            )
        )
    parts.append("</section>")
    parts += _start_html(w)
    for e in w.rounds:
        parts += _epoch_html(w, e)
    parts += [
        '<section class="tg-result"><h3>Result: every epoch side by side (seed 004\'s table)</h3>',
        _table(w.epochs),
        _p(
            "leaf_index is the node id in teachgbt's tree (numbered level by level); "
            "scikit-learn numbers nodes depth first, so its ids differ while the leaves, "
            "and their outputs, are the same.",
            "tg-note",
        ),
    ]
    parts += [_p(note, "tg-note") for note in w.notes]
    parts.append("</section>")
    if w.comparison is not None:
        c = w.comparison
        parts += [
            '<section class="tg-compare"><h3>Side by side: GBDT and XGBoost-style boosting</h3>',
            _table(c.rounds.drop(columns=["h_min", "h_max"]).set_index("round")),
            "<details><summary>the comparison in words</summary>",
            f"<pre>{html.escape(c.text())}</pre></details></section>",
        ]
    parts += [
        "<details><summary>the whole walkthrough as plain text</summary>",
        f"<pre>{html.escape(walkthrough_text(w))}</pre></details>",
        "</div>",
    ]
    return "\n".join(parts)


def walkthrough_page(w):
    """The walkthrough as one HTML page to open in a browser (``save`` writes it as
    ``walkthrough.html``): the same block as in Jupyter, nothing loaded from elsewhere."""
    title = html.escape(f"Walkthrough: GBDT of {w.target}, {len(w.rounds)} epochs")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<title>{title}</title>\n</head>\n<body style="margin:16px 24px">\n'
        f"{walkthrough_html(w)}\n</body>\n</html>\n"
    )


def _start_html(w):
    """Step 1: F0 and why, the same sentences as the text."""
    lines = start_text(w)
    out = [f'<section class="tg-start"><h3>{html.escape(lines[0])}</h3>']
    for line in lines[1:]:
        line = " ".join(line.split())  # the text's wrapping and indent do not apply here
        out.append(_formula(line) if line.startswith(("F0 =", "p0 =")) else _p(line))
    out += [_table(w.start.set_index("quantity")), "</section>"]
    return out


def _epoch_html(w, e):
    """One epoch: (A) residuals, (B) the tree, (C) leaf outputs, (D) the update."""
    t, clf = e.t, w.classifier
    prev = f"F{t - 1}"
    lam = w.model.params_.reg_lambda
    nu = fmt(w.model.params_.learning_rate)
    out = [f'<section class="tg-epoch" id="tg-epoch-{t}"><h3>Epoch {t}</h3>']
    if clf:
        out += [
            "<h4>(A) Residuals: observed − predicted probability</h4>",
            _formula(f"residual = y − sigmoid({prev}(x))"),
            _p(
                "The residual is minus the derivative of the cross entropy with respect to "
                "the log(odds): dL/dF = p − y."
            ),
        ]
        cols = [w.target, f"ep_{t - 1}_prob", f"ep_{t}_residual"]
    else:
        out += [
            "<h4>(A) Residuals: observed − predicted</h4>",
            _formula(f"residual = y − {prev}(x)"),
            _p("The residual is minus the derivative of the squared error ½(y − F)² in F."),
        ]
        cols = [w.target, f"ep_{t - 1}_pre", f"ep_{t}_residual"]
    out.append(_table(e.residuals[cols], "tg-new"))
    out += [
        f"<h4>(B) A regression tree f{t}(x) fitted to ep_{t}_residual</h4>",
        _p(
            "Squared error of the residuals decides the splits; the legend under the tree "
            "says what each number in it is."
        ),
        _svg(e.tree, clf),
    ]
    if clf:
        den = "Σ p(1 − p)" + (" + λ" if lam else "")
        out += [
            "<h4>(C) Each leaf's output</h4>",
            _formula(f"leaf output = Σ residual / ({den}),  p = sigmoid({prev})"),
            _p(
                "One Newton step on the cross entropy in the leaf: minus the sum of first "
                "derivatives over the sum of second derivatives, d²L/dF² = p(1 − p)."
            ),
        ]
    else:
        den = "(n + λ)" if lam else "n"
        out += [
            "<h4>(C) Each leaf's output: the mean residual</h4>",
            _formula(f"leaf output = Σ residual / {den}"),
        ]
    leaves = e.leaves.drop(columns=["formula"]).assign(formula=e.leaves["formula"])
    out.append(_table(leaves.set_index("leaf"), "tg-leaves"))
    update = f"F{t}(x) = {prev}(x) + η · f{t}(x),  η = {nu}"
    if clf:
        update += f";  p = sigmoid(F{t})"
    out += [
        "<h4>(D) Update the model</h4>",
        _formula(update),
        _table(e.update, "tg-new"),
    ]
    r0, label = e.update.iloc[0], e.update.index[0]
    example = (
        f"e.g. row {label}: {fmt(r0[f'ep_{t - 1}_pre'])} + {nu} × "
        f"{fmt(r0[f'ep_{t}_leaf_output'])} = {fmt(r0[f'ep_{t}_pre'])}"
    )
    if clf:
        example += f", p = sigmoid({fmt(r0[f'ep_{t}_pre'])}) = {fmt(r0[f'ep_{t}_prob'])}"
    out += [_p(example, "tg-note"), "</section>"]
    return out
