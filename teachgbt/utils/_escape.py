"""Names read from files, made safe to show: in HTML and on a terminal.

A feature name, a class label or a category is text someone else wrote. Put into HTML as
it is, ``<script>alert(1)</script>`` runs in the notebook or page that shows the table;
printed to a terminal as it is, ``\\x1b]0;...\\x07`` retitles the window and ``\\x1b[2J``
clears the screen. Every view calls these two functions on such text: the one place
where names are escaped.

* ``escape_html(text)``: ``&``, ``<``, ``>``, ``"`` and ``'`` as entities, for element
  text and attribute values alike.
* ``printable(text)``: each control character as a visible escape (``\\x1b``, ``\\x07``,
  ``\\x9b``); newline and tab stay, since the tables and formulas printed are made of them
  (``keep`` says which others stay: a progress bar on stderr needs its carriage return).
"""

from __future__ import annotations

import html
import re

__all__ = ["escape_html", "printable"]

#: the C0 controls, DEL and the C1 controls (0x9b is a one-byte CSI)
_CONTROLS = [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]]
_PATTERNS = {}


def escape_html(text):
    """``text`` (anything: it is made a string) safe inside HTML text or a quoted attribute."""
    return html.escape(str(text), quote=True)


def printable(text, keep="\n\t"):
    """``text`` with every control character but those in ``keep`` shown as ``\\xNN``."""
    pattern = _PATTERNS.get(keep)
    if pattern is None:
        shown = "".join(re.escape(c) for c in _CONTROLS if c not in keep)
        pattern = _PATTERNS[keep] = re.compile(f"[{shown}]")
    text = str(text)
    if pattern.search(text) is None:
        return text
    return pattern.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
