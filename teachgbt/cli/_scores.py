"""The scores ``teachgbt train`` prints for a fitted model on rows it is given: log loss
and AUC for two classes, multiclass log loss and accuracy for K ≥ 3, RMSE for a regressor
(each as scikit-learn's ``log_loss``, ``roc_auc_score``, ``accuracy_score`` computes it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["score_line", "auc"]


def score_line(model, X, y):
    """One line: log loss and AUC for two classes; multiclass log loss and accuracy for
    K ≥ 3; RMSE for a regressor."""
    fitted = model.model_
    if fitted.is_classifier:
        proba = model.predict_proba(X)
        codes = pd.Index(model.classes_).get_indexer(np.asarray(y))  # the column of each label
        if fitted.n_outputs > 1:
            p = np.clip(proba[np.arange(len(codes)), codes], 1e-15, 1.0)
            accuracy = float(np.mean(np.argmax(proba, axis=1) == codes))
            return f"log loss {-np.mean(np.log(p)):.4f}, accuracy {accuracy:.4f}"
        y01 = (codes == 1).astype(float)
        p = np.clip(proba[:, 1], 1e-15, 1 - 1e-15)
        logloss = -np.mean(y01 * np.log(p) + (1 - y01) * np.log(1 - p))
        return f"log loss {logloss:.4f}, AUC {auc(y01, p)}"
    rmse = float(np.sqrt(np.mean((np.asarray(y, dtype=float) - model.predict(X)) ** 2)))
    return f"RMSE {rmse:.4g}"


def auc(y01, score):
    """The probability that a random positive scores above a random negative (ties: ½)."""
    n_pos, n_neg = int(y01.sum()), int(len(y01) - y01.sum())
    if not n_pos or not n_neg:
        return "undefined (one class only)"
    ranks = pd.Series(score).rank().to_numpy()  # average ranks handle ties
    return f"{(ranks[y01 == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg):.4f}"
