"""scikit-learn's own estimator checks, with teachgbt's deliberate differences declared."""

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.estimators import _expected_failed_checks

estimator_checks = pytest.importorskip("sklearn.utils.estimator_checks")
sparse = pytest.importorskip("scipy.sparse")

CONFIGS = [
    (cls, algorithm, tree_method)
    for cls in (tg.BoostingClassifier, tg.BoostingRegressor)
    for algorithm in ("xgboost", "gbdt")
    for tree_method in ("exact", "hist")
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    "cls, algorithm, tree_method", CONFIGS, ids=lambda v: getattr(v, "__name__", v)
)
def test_check_estimator(cls, algorithm, tree_method):
    est = cls(algorithm=algorithm, tree_method=tree_method, n_estimators=5, max_depth=3)
    expected = _expected_failed_checks(est)
    results = estimator_checks.check_estimator(est, expected_failed_checks=expected, on_fail=None)
    failed = [
        (r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"
    ]
    assert failed == []
    assert all(isinstance(reason, str) and reason for reason in expected.values())


def test_sparse_input_is_refused_with_a_reason():
    X = sparse.random(20, 3, density=0.5, format="csr", random_state=0)
    with pytest.raises(TypeError, match="sparse.*toarray"):
        tg.BoostingRegressor(n_estimators=1).fit(X, np.arange(20.0))
    dense = tg.BoostingRegressor(n_estimators=1).fit(X.toarray(), np.arange(20.0))
    with pytest.raises(TypeError, match="sparse"):
        dense.predict(X.tocsc())


def test_categorical_column_asks_for_enable_categorical_or_one_hot():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "colour": pd.Categorical(list("rgbr"))})
    with pytest.raises(TypeError, match=r"'colour'.*enable_categorical=True.*one-hot"):
        tg.BoostingClassifier(n_estimators=1).fit(df, [0, 1, 0, 1])
