"""Telling model files apart by their content, never by their extension.

* teachgbt JSON: a JSON object whose ``format`` is ``teachgbt-model``;
* XGBoost JSON: a JSON object with a ``learner``;
* XGBoost UBJSON: ``{`` followed by a UBJSON length marker (``i U I l L``) or ``$``/``#``;
* LightGBM text: the first line is ``tree``.
"""

from __future__ import annotations

import json
import os

from ..utils import read_bytes

__all__ = ["KINDS", "MAX_FILE", "read_model_file", "parse_json", "kind_of_start", "display_name"]

KINDS = ("teachgbt", "xgboost", "lightgbm")
MAX_FILE = 1 << 30  # bytes; larger is not a tree model anyone teaches with


def read_model_file(path):
    """``(kind, content, data)`` of the model file ``path`` (``-``: standard input), read
    once (a FIFO or a pipe can be read only once): kind in ``KINDS``; content a dict
    (JSON/UBJSON) or text; data its bytes, which the library's own check reads."""
    path = os.fspath(path)
    if path != "-" and not os.path.exists(path):
        raise FileNotFoundError(2, "no such file", path)
    shown = display_name(path)
    data = read_bytes(path, MAX_FILE, "model file", lambda start: kind_of_start(shown, start))
    if not data.strip():
        raise ValueError(f"{shown} is empty: not a model file")
    kind = kind_of_start(shown, data)
    if kind == "ubjson":
        from ._ubjson import loads

        try:
            d = loads(data)
        except ValueError as e:
            raise ValueError(f"{shown}: {e} (a truncated or corrupted .ubj file?)") from None
        return _json_kind(shown, d), d, data
    if kind == "json":
        d = parse_json(shown, data)
        return _json_kind(shown, d), d, data
    try:
        return "lightgbm", data.decode("utf-8"), data
    except UnicodeDecodeError:
        raise ValueError(f"{shown} looks like a LightGBM model but is not text") from None


def display_name(path):
    """How messages name a file: its path, or "standard input" for ``-``."""
    path = os.fspath(path)
    return "standard input" if path == "-" else path


def parse_json(path, data):
    """The JSON in ``data`` (bytes of the file ``path``), or one clear ValueError."""
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(
            f"{path} is not valid JSON ({e}); a truncated or corrupted model file?"
        ) from None
    except RecursionError:  # Python's parser recurses once per level
        raise ValueError(f"{path}: JSON nested too deep to be a model file") from None


def kind_of_start(path, data):
    """ "ubjson", "json" or "lightgbm" from a file's first bytes, or a ValueError."""
    head = data.lstrip()[:64]
    if head.startswith(b"{") and head[1:2] in (b"i", b"U", b"I", b"l", b"L", b"$", b"#"):
        return "ubjson"
    if head.startswith(b"{"):
        return "json"
    if head.split(b"\n", 1)[0].strip() == b"tree":
        return "lightgbm"
    raise ValueError(
        f"{path} is not a model file teachgbt reads: expected a teachgbt or XGBoost JSON, "
        "an XGBoost .ubj or a LightGBM model .txt"
    )


def _json_kind(path, d):
    if isinstance(d, dict) and d.get("format") == "teachgbt-model":
        return "teachgbt"
    if isinstance(d, dict) and isinstance(d.get("learner"), dict):
        return "xgboost"
    raise ValueError(
        f"{path} holds JSON, but neither a teachgbt model (no 'format': 'teachgbt-model') "
        "nor an XGBoost model (no 'learner')"
    )
