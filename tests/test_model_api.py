"""A fitted model made from trees (from_trees, load), and one NotFittedError everywhere."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    X[::11, 1] = np.nan
    y = (X[:, 0] - X[:, 2] + 0.3 * rng.normal(size=120) > 0).astype(int)
    return pd.DataFrame(X, columns=["a", "b", "c"]), y


@pytest.mark.parametrize("kw", [dict(), dict(algorithm="gbdt"), dict(tree_method="hist")], ids=str)
def test_from_trees_predicts_as_the_model_the_trees_came_from(data, kw):
    X, y = data
    labels = np.array(["no", "yes"])[y]
    clf = tg.BoostingClassifier(n_estimators=4, max_depth=3, **kw).fit(X, labels)
    made = tg.BoostingClassifier.from_trees(
        clf.trees_, base_score=clf.base_score_, classes=clf.classes_, max_depth=3, **kw
    )
    assert np.array_equal(made.decision_function(X), clf.decision_function(X))
    assert np.array_equal(made.predict_proba(X), clf.predict_proba(X))
    assert list(made.predict(X)) == list(clf.predict(X))
    assert list(made.feature_names_in_) == ["a", "b", "c"]  # from the trees
    assert made.params_ == clf.params_
    np.testing.assert_array_equal(made.feature_importances_, clf.feature_importances_)

    yr = X["a"].fillna(0).to_numpy() * 2
    reg = tg.BoostingRegressor(n_estimators=3, **kw).fit(X, yr)
    made = tg.BoostingRegressor.from_trees(reg.trees_, base_score=reg.base_score_, **kw)
    assert np.array_equal(made.predict(X), reg.predict(X))


def test_from_trees_defaults_and_errors(data):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=2, base_score=0.5).fit(X, y)
    made = tg.BoostingClassifier.from_trees(clf.trees_)  # base_score None: margin starts at 0
    assert made.base_margin_ == 0.0
    assert list(made.classes_) == [0, 1]
    assert np.array_equal(made.decision_function(X), clf.decision_function(X))
    with pytest.raises(AttributeError, match="made from trees"):
        _ = made.trace_
    with pytest.raises(TypeError, match="Tree objects"):
        tg.BoostingClassifier.from_trees([object()])
    with pytest.raises(ValueError, match="n_features"):
        tg.BoostingClassifier.from_trees([])
    with pytest.raises(ValueError, match="at least two classes"):
        tg.BoostingClassifier.from_trees(clf.trees_, classes=["a"])
    with pytest.raises(ValueError, match="not whole rounds of 3"):  # 2 trees, 3 classes
        tg.BoostingClassifier.from_trees(clf.trees_, classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="feature names"):
        tg.BoostingClassifier.from_trees(clf.trees_, feature_names=["a"])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        tg.BoostingClassifier.from_trees(clf.trees_, base_score=2.0)
    with pytest.raises(ValueError, match="max_depth"):
        tg.BoostingClassifier.from_trees(clf.trees_, max_depth=-1)


@pytest.mark.parametrize("algorithm", ["xgboost", "gbdt"])
def test_save_load_round_trip(data, tmp_path, algorithm):
    X, y = data
    clf = tg.BoostingClassifier(algorithm=algorithm, n_estimators=3, max_depth=2).fit(X, y)
    clf.save(tmp_path / "m.json")
    back = tg.load(tmp_path / "m.json")
    assert type(back) is tg.BoostingClassifier
    assert np.array_equal(back.decision_function(X), clf.decision_function(X))
    assert back.get_params() == clf.get_params()  # base_score stays None: it was estimated
    assert back.base_score_ == clf.base_score_ and back.base_margin_ == clf.base_margin_
    assert back.params_ == clf.params_
    for a, b in zip(back.trees_, clf.trees_):
        pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    back.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == (tmp_path / "m.json").read_text()


def test_a_file_keeps_where_the_trees_came_from(data, tmp_path):
    """A fitted model loads as made from trees; any other origin (another library, a
    cluster) is written to the file and read back; a broken one is refused."""
    import json

    X, y = data
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    clf.save(tmp_path / "fitted.json")
    assert "origin" not in json.loads((tmp_path / "fitted.json").read_text())
    assert (
        tg.load(tmp_path / "fitted.json").model_.origin == "made from trees (tg.load, from_trees)"
    )
    elsewhere = tg.BoostingClassifier.from_trees(
        clf.trees_, clf.base_score_, origin="grown on Mars"
    )
    elsewhere.save(tmp_path / "mars.json")
    back = tg.load(tmp_path / "mars.json")
    assert back.model_.origin == "grown on Mars"
    with pytest.raises(AttributeError, match="was grown on Mars, not fitted here"):
        back.trace_  # noqa: B018
    d = json.loads((tmp_path / "mars.json").read_text())
    for bad in (["a", "list"], 7, "x" * 5000):
        (tmp_path / "bad.json").write_text(json.dumps({**d, "origin": bad}))
        with pytest.raises(ValueError, match="its origin .* is not a line of text"):
            tg.load(tmp_path / "bad.json")


def test_zero_tree_model_round_trips(data, tmp_path):
    X, y = data
    reg = tg.BoostingRegressor(n_estimators=0).fit(X, y.astype(float))
    reg.save(tmp_path / "m.json")
    assert np.array_equal(tg.load(tmp_path / "m.json").predict(X), reg.predict(X))


# ------------------------------------------------------------------ not fitted
def _entry_points():
    import teachgbt.show.draw

    return {
        "predict": lambda m: m.predict(np.zeros((1, 3))),
        "decision_function": lambda m: m.decision_function(np.zeros((1, 3))),
        "predict_proba": lambda m: m.predict_proba(np.zeros((1, 3))),
        "feature_importances_": lambda m: m.feature_importances_,
        "trace_": lambda m: m.trace_,
        "save": lambda m: m.save("never-written.json"),
        "draw": lambda m: teachgbt.show.draw.draw_model(m),
        "plot_model": lambda m: teachgbt.show.draw.plot_model(m),
        "plot.loss_curve": lambda m: tg.plot.loss_curve(m),
        "plot.importance": lambda m: tg.plot.importance(m),
        "explain.leaf": lambda m: tg.explain.leaf(m, 1, 0),
        "explain.prediction": lambda m: tg.explain.prediction(m, np.zeros(3)),
    }


@pytest.mark.parametrize("entry", list(_entry_points()))
def test_not_fitted_is_scikit_learns_error(entry, tmp_path, monkeypatch):
    sklearn_exceptions = pytest.importorskip("sklearn.exceptions")
    monkeypatch.chdir(tmp_path)
    assert tg.NotFittedError is sklearn_exceptions.NotFittedError
    model = tg.BoostingClassifier()
    with pytest.raises(sklearn_exceptions.NotFittedError, match="not fitted yet"):
        _entry_points()[entry](model)
    assert not hasattr(model, "trace_")  # hasattr still answers False
    assert list(tmp_path.iterdir()) == []
