"""The explorer as one self-contained HTML page: its CSS, JavaScript and data inline.

The page draws its trees as SVG with plain JavaScript (``explorer.js``, no library, no
build step) and asks the network for nothing, so the file works from a USB stick. A
large payload is sent gzip-compressed (base64) and unpacked by the browser's own
``DecompressionStream``; a small one is plain JSON.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from importlib import resources

__all__ = ["render", "iframe", "COMPRESS_ABOVE", "LARGE_INLINE", "BLOCKED"]

COMPRESS_ABOVE = 1_000_000  # bytes of JSON above which the data is sent gzip-compressed
# gzip's level: 9 takes seconds on a large page's packed numbers for a few percent less
COMPRESS_LEVEL = 6

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<noscript>This page needs JavaScript to show the trees.</noscript>
<script id="tg-data" type="application/json">{payload}</script>
<script>
{js}
</script>
</body>
</html>
"""


def _asset(name):
    return resources.files("teachgbt.show.explorer").joinpath(name).read_text(encoding="utf-8")


def _payload(data):
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if len(text.encode("utf-8")) > COMPRESS_ABOVE:
        packed = gzip.compress(text.encode("utf-8"), compresslevel=COMPRESS_LEVEL, mtime=0)
        text = json.dumps({"gzip": base64.b64encode(packed).decode("ascii")})
    # nothing inside the <script> element may close it or open a comment
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render(data):
    """The page for ``data`` (``explore.data.build``), as one HTML string."""
    return _TEMPLATE.format(
        title=html.escape(data.get("title", "teachgbt explorer")),
        css=_asset("explorer.css"),
        js=_asset("explorer.js"),
        payload=_payload(data),
    )


#: an inline view above this many bytes says so: a notebook stores it each time it is shown
LARGE_INLINE = 1_000_000

BLOCKED = (
    "This interactive explorer needs a trusted notebook (a notebook you received opens "
    "untrusted, and Jupyter then hides its scripts). To trust it: in JupyterLab open the "
    "command palette (Ctrl+Shift+C) and run \u201cTrust Notebook\u201d (classic Notebook: "
    "File \u25b8 Trust Notebook; or `jupyter trust NOTEBOOK.ipynb` in a terminal), then run "
    "this cell again. Or write it as a page and open that in a browser: add "
    '.save("explorer.html") to the tg.explore(...) call of this cell and run it.'
)


def iframe(page, height=None):
    """The page inside an ``<iframe srcdoc>``: how Jupyter shows it, with no server.

    The frame lies over a line saying why it may be missing: a notebook opened untrusted
    (as a student receives one) strips the frame, and then the line shows instead of a
    blank. ``height``: pixels, or None for the browser window's height (at most 1000 px).
    """
    size = f"{int(height)}px" if height else "min(88vh, 1000px)"
    note = ""
    if len(page.encode("utf-8")) > LARGE_INLINE:
        mb = len(page.encode("utf-8")) / 1e6
        note = (
            '<div style="font:13px system-ui,sans-serif;color:#57606a;margin:0 0 4px">'
            f"This explorer is {mb:.1f} MB and the notebook stores it each time it is shown; "
            'explorer.save("explorer.html") writes it once, as a page to open instead.</div>'
        )
    # the line and the frame share one grid cell, the frame on top: stripped of its frame,
    # the output is the line's height, not a blank the frame's size
    return (
        f'{note}<div style="display:grid">'
        '<div style="grid-area:1/1;align-self:start;padding:12px;font:14px system-ui,sans-serif;'
        'color:#9a3412;background:#fff7ed;border:1px solid #fdba74;border-radius:4px">'
        f"{html.escape(BLOCKED)}</div>"
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        f'style="grid-area:1/1;z-index:1;width:100%;height:{size};min-height:420px;'
        'border:1px solid #ccc;border-radius:4px;background:#fff" title="teachgbt explorer">'
        "</iframe></div>"
    )
