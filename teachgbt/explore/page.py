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

__all__ = ["render", "iframe", "COMPRESS_ABOVE"]

COMPRESS_ABOVE = 1_000_000  # bytes of JSON above which the data is sent gzip-compressed

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
    return resources.files("teachgbt.explore").joinpath(name).read_text(encoding="utf-8")


def _payload(data):
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if len(text.encode("utf-8")) > COMPRESS_ABOVE:
        packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
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


def iframe(page, height=720):
    """The page inside an ``<iframe srcdoc>``: how Jupyter shows it, with no server."""
    return (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        f'style="width:100%;height:{int(height)}px;border:1px solid #ccc;border-radius:4px" '
        'title="teachgbt explorer"></iframe>'
    )
