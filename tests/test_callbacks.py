"""What runs around the boosting loop after each round: eval sets, early stopping (against
XGBoost's, when it is installed), the caller's callbacks, the progress bar."""

import sys

import numpy as np
import pytest
from hist_data import few_values

import teachgbt as tg


def test_early_stopping_follows_xgboost():
    xgb = pytest.importorskip("xgboost")
    X, y, _ = few_values(seed=12, n=700, d=5, levels=8)
    Xt, yt, Xv, yv = X[:450], y[:450], X[450:], y[450:]
    kw = dict(tree_method="hist", n_estimators=60, max_depth=3, learning_rate=0.3)
    theirs = xgb.XGBClassifier(early_stopping_rounds=5, n_jobs=1, **kw)
    theirs.fit(Xt, yt, eval_set=[(Xv, yv)], verbose=False)
    ours = tg.BoostingClassifier(early_stopping_rounds=5, **kw).fit(Xt, yt, eval_set=[(Xv, yv)])
    assert ours.best_iteration_ == theirs.best_iteration
    assert len(ours.trees_) == len(theirs.get_booster().get_dump())
    np.testing.assert_allclose(
        ours.evals_result_["validation_0"]["logloss"],
        theirs.evals_result()["validation_0"]["logloss"],
        atol=1e-6,
    )
    # predictions use the best iteration, as XGBoost's do
    np.testing.assert_allclose(ours.predict_proba(Xv), theirs.predict_proba(Xv), atol=1e-6)


def test_eval_set_without_early_stopping_records_every_round():
    X, _, logit = few_values(seed=13, n=300)
    est = tg.BoostingRegressor(tree_method="hist", n_estimators=7).fit(
        X, logit, eval_set=[(X[:100], logit[:100]), (X[100:], logit[100:])]
    )
    assert set(est.evals_result_) == {"validation_0", "validation_1"}
    assert len(est.evals_result_["validation_1"]["rmse"]) == 7
    assert est.best_iteration_ is None


def test_callback_can_stop_training():
    X, y, _ = few_values(seed=14, n=200)
    seen = []

    def stop_after_three(model, t):
        seen.append((t, len(model.trees_)))
        return t >= 3

    est = tg.BoostingClassifier(
        tree_method="hist", n_estimators=10, callbacks=[stop_after_three]
    ).fit(X, y)
    assert len(est.trees_) == 3
    assert seen == [(1, 1), (2, 2), (3, 3)]


def test_progress_bar_quiet_unless_asked(capsys, monkeypatch):
    pytest.importorskip("tqdm")
    X, y, _ = few_values(seed=15, n=200)
    tg.BoostingClassifier(tree_method="hist", n_estimators=5).fit(X, y)  # stderr is no terminal
    tg.BoostingClassifier(tree_method="hist", n_estimators=5, verbose=False).fit(X, y)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    tg.BoostingClassifier(tree_method="hist", n_estimators=5, verbose=False).fit(X, y)
    assert capsys.readouterr().err == ""
    tg.BoostingClassifier(tree_method="hist", n_estimators=5, verbose=True).fit(X, y)
    assert "boosting" in capsys.readouterr().err


def test_early_stopping_needs_an_eval_set():
    X, y, _ = few_values(n=80)
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval_set"):
        tg.BoostingClassifier(tree_method="hist", early_stopping_rounds=3).fit(X, y)
