"""Telling model files apart by their content, never by their extension.

* teachgbt JSON: a JSON object whose ``format`` is ``teachgbt-model``;
* XGBoost JSON: a JSON object with a ``learner``;
* XGBoost UBJSON: ``{`` followed by a UBJSON length marker (``i U I l L``) or ``$``/``#``;
* LightGBM text: the first line is ``tree``.
"""

from __future__ import annotations

import json
import os

__all__ = ["KINDS", "read_model_file"]

KINDS = ("teachgbt", "xgboost", "lightgbm")
_MAX_FILE = 2**31  # bytes; larger is not a tree model anyone teaches with


def read_model_file(path):
    """``(kind, content)``: kind in ``KINDS``; content a dict (JSON/UBJSON) or text."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(2, "no such file", path)
    if os.path.isdir(path):
        raise ValueError(f"{path} is a folder, not a model file")
    if os.path.getsize(path) > _MAX_FILE:
        raise ValueError(f"{path} is too large to be a model file")
    with open(path, "rb") as f:
        data = f.read()
    if not data.strip():
        raise ValueError(f"{path} is empty: not a model file")
    head = data.lstrip()[:64]
    if (
        head.startswith(b"{")
        and len(head) > 1
        and head[1:2] in (b"i", b"U", b"I", b"l", b"L", b"$", b"#")
    ):
        from ._ubjson import loads

        try:
            d = loads(data)
        except ValueError as e:
            raise ValueError(f"{path}: {e} (a truncated or corrupted .ubj file?)") from None
        return _json_kind(path, d), d
    if head.startswith(b"{"):
        try:
            d = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(
                f"{path} is not valid JSON ({e}); a truncated or corrupted model file?"
            ) from None
        return _json_kind(path, d), d
    if head.split(b"\n", 1)[0].strip() == b"tree":
        try:
            return "lightgbm", data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{path} looks like a LightGBM model but is not text") from None
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
